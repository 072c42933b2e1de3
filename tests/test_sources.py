"""Outputs cite sources by their own names (article, benchmark, provider page) and dates, never an
internal reference document number such as "seed 001" that a reader cannot look up.
(A random seed, as in "Monte Carlo (200 tasks, seed 3)", is fine.)"""

from __future__ import annotations

import re

import pytest
from conftest import ROOT

import toolsurvey as ts
from toolsurvey.cli import main

# "seed 001", "seeds 001/004", "the seeds' method", "the seed's rewrite", "Seed 004, Figure 3".
SEED_CITATION = re.compile(r"(?i)\bseeds?\s*0\d\d\b|\bseeds'|\bseed's\b|\bthe seeds?\b")
OPS = ROOT / "data" / "registries" / "ops_assistant.json"
SCENARIO = ROOT / "data" / "scenarios" / "ops_assistant.toml"
USAGE = ROOT / "data" / "usage" / "ops_assistant.jsonl"
PHASES = ROOT / "data" / "phases" / "ops_assistant.toml"


def citations(text: str) -> list[str]:
    return [text[max(m.start() - 40, 0):m.end() + 40] for m in SEED_CITATION.finditer(text)]


def test_the_pattern_finds_seed_citations_and_spares_random_seeds():
    assert citations("the default curve (seed 001) and seeds 001/004")
    assert citations("compact JSON (the seeds' method)") and citations("(the seed's rewrite)")
    assert citations("Monte Carlo (200 tasks, seed 3)") == [] and citations("seed = 1") == []


@pytest.mark.parametrize("path", sorted(p for folder in ("toolsurvey/assumptions", "toolsurvey/templates", "notebooks",
                                                         "docs", "data/scenarios", "data/phases")
                                        for p in (ROOT / folder).rglob("*") if p.is_file())
                         + [ROOT / "README.md"] + sorted((ROOT / "data").glob("*/README.md")),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_package_data_notebooks_and_docs_cite_no_seed(path):
    assert citations(path.read_text(encoding="utf-8", errors="replace")) == []


def test_bundled_assumptions_name_their_sources():
    assert "Tool registry design" in ts.load_accuracy().source
    from toolsurvey.model.accuracy import load_description_effect

    assert "Tool registry design" in load_description_effect().source


@pytest.mark.parametrize("argv", [
    ["footprint", OPS], ["audit", OPS], ["simulate", OPS, "--scenario", SCENARIO],
    ["plan", OPS, "--usage", USAGE, "--phases", PHASES, "--scenario", SCENARIO],
    ["report", OPS, "--scenario", SCENARIO, "--usage", USAGE, "--format", "markdown"],
], ids=lambda a: a[0] if isinstance(a, list) else "")
def test_cli_output_cites_no_seed(argv, capsys):
    main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert out and citations(out + err) == []


def test_rendered_report_cites_no_seed(tmp_path):
    rep = ts.report(ts.load(OPS), scenario=SCENARIO, usage=USAGE)
    assert citations(rep.to_html()) == [] and citations(rep.to_markdown()) == []
