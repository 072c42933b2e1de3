"""The sample data: generated deterministically, and the seed's Figure 3 comparison recomputed by hand."""

import json
import subprocess
import sys

from _oracle import compact, ntok
from conftest import DATA, ROOT

import toolsurvey as ts

SAMPLES = DATA / "responses"


def test_the_generator_reproduces_the_committed_samples_byte_for_byte(tmp_path):
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_sample_responses.py"), "--out", str(tmp_path)],
                   check=True, capture_output=True)
    committed = sorted(p.relative_to(SAMPLES) for p in SAMPLES.rglob("*") if p.is_file() and p.suffix != ".md")
    assert committed == sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    for rel in committed:
        assert (tmp_path / rel).read_bytes() == (SAMPLES / rel).read_bytes(), rel


def test_figure_3_full_issues_against_six_fields_by_hand():
    files = sorted((SAMPLES / "list_issues").glob("*.json"))
    full = six = 0
    for f in files:
        issues = json.loads(f.read_text())
        assert len(issues) == 10 and {"user", "reactions", "body", "labels", "url"} <= set(issues[0])
        full += ntok(compact(issues))
        six += ntok(compact([{"number": i["number"], "title": i["title"], "state": i["state"],
                              "labels": [{"name": label["name"]} for label in i["labels"]],
                              "comments": i["comments"], "updated_at": i["updated_at"]} for i in issues]))
    table = ts.measure_responses(SAMPLES / "list_issues",
                                 trimming={"keep": "number,title,state,labels[].name,comments,updated_at"})
    assert table["tokens"].sum() == full and table["trimmed"].sum() == six
    # seed 004 measured about thirty times on live GitHub data; the synthetic issues land close to it
    assert 20 < full / six < 40


def test_the_trace_mixes_json_text_and_mcp_results_from_several_tools():
    table = ts.measure_responses(SAMPLES / "traces.jsonl")
    assert set(table["kind"]) == {"json", "text", "mcp"}
    assert table["tool"].nunique() >= 6 and table["server"].notna().all()
    assert table.attrs["warnings"] == []
    shot = table[table["tool"] == "take_screenshot"].iloc[0]
    assert shot["tokens"] == ntok("Screenshot of https://example.test/dashboard (1280x800)") + 1366
