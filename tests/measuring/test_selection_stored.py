"""`read_eval`: an eval read back from the file `toolsurvey eval` wrote (its --format json, or its
--log JSON Lines) gives the figures the run printed, for a plain eval and a --visible sweep; a file
that is not one names what was expected and what was found."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT
from fake_llm import Move, serve, word_match

from toolsurvey.cli import main
from toolsurvey.errors import InputError
from toolsurvey.measuring.selection.stored import read_eval
from toolsurvey.measuring.selection.sweep import SweepEval

pytest.importorskip("openai")
REG = str(ROOT / "data" / "registries" / "ops_assistant.json")
QUERIES = [str(ROOT / "data" / "queries" / "ops_assistant.jsonl"),
           str(ROOT / "data" / "queries" / "ops_assistant_selection.jsonl")]


def decide(query: str, names: list[str], tools: list) -> Move:
    """The first offered tool sharing a word with the query, else no call."""
    return word_match(query, tools)


def run(tmp_path, *args) -> tuple[dict, list[dict]]:
    out, log = tmp_path / "eval.json", tmp_path / "eval.jsonl"
    assert main(["eval", REG, "--queries", *QUERIES, "--model", "local-test-model", "--base-url", "http://llm.test/v1",
                 "--format", "json", "-o", str(out), "--log", str(log), "-q", *args]) == 0
    return json.loads(out.read_text()), [json.loads(line) for line in log.read_text().splitlines()]


def test_a_stored_eval_gives_the_figures_the_run_printed(monkeypatch, tmp_path):
    serve(monkeypatch, tmp_path, decide)
    doc, log = run(tmp_path)
    for path in (tmp_path / "eval.json", tmp_path / "eval.jsonl"):
        ev = read_eval(path)
        assert ev.summary == doc["summary"]
        assert ev.confusion() == doc["confusion"]
        assert ev.model == "local-test-model"
        assert "over 63 tools" in ev.describe()  # the sample registry's 63, not only the tools that came up
    assert read_eval(tmp_path / "eval.json").per_tool() == doc["per_tool"]
    # Hand count from the log: right answers plus correct non-calls, over the first answers.
    right = sum(1 for r in log if r["outcome"] in ("right", "no_call"))
    assert read_eval(tmp_path / "eval.jsonl").summary["accuracy"]["count"] == right


def test_a_stored_sweep_reads_back_as_a_sweep(monkeypatch, tmp_path):
    serve(monkeypatch, tmp_path, decide)
    doc, _ = run(tmp_path, "--visible", "5,10,all", "--seed", "3")
    sw = read_eval(tmp_path / "eval.json")
    assert isinstance(sw, SweepEval)
    assert sw.sizes == [5, 10, "all"] and sw.seed == 3 and sw.distractors == "random"
    assert sw.by_size() == doc["by_size"]
    assert [row["wrong_call_rate"] for row in read_eval(tmp_path / "eval.jsonl").by_size()] == \
        [row["wrong_call_rate"] for row in doc["by_size"]]


@pytest.mark.parametrize("text, found", [
    ("", "found no answer records"),
    ('{"model": "m"}', 'without "queries"'),
    ('{"id": "q1", "gold": []}\n', "record 1 has no outcome, expected, called, args_valid, args_match, tools_offered"),
    ("[1, 2]", "found JSON of type list"),
])
def test_a_file_that_is_not_an_eval_says_what_was_expected(tmp_path, text, found):
    p = tmp_path / "x.json"
    p.write_text(text)
    with pytest.raises(InputError, match="expected the JSON of `toolsurvey eval") as e:
        read_eval(p)
    assert found in str(e.value)
