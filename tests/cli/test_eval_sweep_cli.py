"""`toolsurvey eval --visible ... --fit` end to end through the official openai SDK against the fake
OpenAI-compatible server: every per-size figure recounted from the JSON Lines log by a second, simple
implementation (exact equality); each logged visible set holds the gold tools at the size asked; the
requests come grouped by visible set; the fitted curve carries its source into simulate, plan and
report; and simulate's cost per completed task with a small written curve, worked out by hand."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from _oracle import wilson
from conftest import ROOT
from fake_llm import Move, serve, word_match

from toolsurvey.cli import main

pytest.importorskip("openai")
REG = str(ROOT / "data" / "registries" / "ops_assistant.json")
QUERIES = [str(ROOT / "data" / "queries" / "ops_assistant.jsonl"),
           str(ROOT / "data" / "queries" / "ops_assistant_selection.jsonl")]


def decide(query: str, names: list[str], tools: list) -> Move:
    """Calls the first offered tool sharing a word with the query, so more tools in view mean more
    wrong picks; writes a call out as text for incidents (invalid); otherwise no call."""
    words = {w.strip("?.,").lower() for w in query.split() if len(w) > 3}
    if "incident" in words:
        return Move(text='<tool_call>{"name": "x", "arguments": {}}</tool_call>')
    if "nothing" in words:
        return Move([("not_a_tool", {})])
    return word_match(query, tools)


@pytest.fixture
def fake(monkeypatch, tmp_path):
    return serve(monkeypatch, tmp_path, decide)


def run(*args):
    return main(["eval", REG, "--queries", *QUERIES, "--model", "local-test-model", "--base-url", "http://llm.test/v1",
                 *args])




def recount(log: list[dict], size) -> dict:
    rows = [r for r in log if r["visible"] == size and r["repeat"] == 0]
    by = Counter(r["outcome"] for r in rows)
    need = [r for r in rows if r["gold"]]
    calls = [r for r in need if r["outcome"] in ("right", "wrong", "invalid")]
    bad = sum(1 for r in calls if r["outcome"] in ("wrong", "invalid"))
    return {"queries": len(rows), "wrong": (bad, len(calls)), "accuracy": (by["right"] + by["no_call"], len(rows)),
            "tool_accuracy": (by["right"], len(need)), "skip": (by["skip"], len(need))}


def test_every_figure_per_size_is_recounted_from_the_log(fake, tmp_path, capsys):
    log, out = tmp_path / "log.jsonl", tmp_path / "out.json"
    assert run("--visible", "5,10,20,all", "--seed", "3", "--log", str(log), "--format", "json", "-o", str(out), "-q") == 0
    records = [json.loads(x) for x in log.read_text().splitlines()]
    doc = json.loads(out.read_text())
    assert [r["visible"] for r in doc["by_size"]] == [5, 10, 20, "all"]
    assert len(records) == 58 * 4
    for row in doc["by_size"]:
        mine = recount(records, row["visible"])
        assert row["queries"] == mine["queries"] == 58
        for key, field in (("wrong", "wrong_call_rate"), ("accuracy", "accuracy"), ("tool_accuracy", "tool_accuracy"),
                           ("skip", "skip_rate")):
            k, n = mine[key]
            got = row[field]
            assert (got["count"], got["of"]) == (k, n), (row["visible"], key)
            assert got["rate"] == k / n
            assert (got["low"], got["high"]) == pytest.approx(wilson(k, n), abs=1e-15)
    # the sweep measured something that moves: more tools in view, more wrong calls here
    wrong = [r["wrong_call_rate"]["rate"] for r in doc["by_size"]]
    assert wrong[0] < wrong[-1]
    # each logged visible set: the gold tools plus distractors, at the size asked, as sent
    gold_of = {json.loads(x)["id"]: json.loads(x)["gold"] for f in QUERIES for x in open(f)}
    for r in records:
        offered = r["tools_offered"]
        assert set(gold_of[r["id"]]) <= set(offered)
        assert len(offered) == (63 if r["visible"] == "all" else max(r["visible"], len(gold_of[r["id"]])))
    body_tools = [[t["function"]["name"] for t in q["body"]["tools"]] for q in fake.requests]
    assert sorted(len(t) for t in body_tools) == sorted(len(r["tools_offered"]) for r in records)


def test_requests_come_grouped_by_visible_set_and_a_rerun_sends_nothing(fake, tmp_path):
    assert run("--visible", "5,all", "--distractors", "nearest", "-q", "-o", str(tmp_path / "o.txt")) == 0
    sets = [tuple(t["function"]["name"] for t in q["body"]["tools"]) for q in fake.requests]
    changes = sum(1 for a, b in zip(sets, sets[1:], strict=False) if a != b)
    assert changes == len(set(sets)) - 1  # each visible set's requests sent one after another
    assert sum(1 for s in sets if len(s) == 63) == 58
    before = len(fake.requests)
    assert run("--visible", "5,all", "--distractors", "nearest", "-q", "-o", str(tmp_path / "o.txt")) == 0
    assert len(fake.requests) == before


def test_table_markdown_and_csv_have_one_row_per_size(fake, tmp_path):
    for fmt in ("table", "markdown", "csv"):
        out = tmp_path / f"o.{fmt}"
        assert run("--visible", "5,10", "--format", fmt, "-o", str(out), "-q") == 0
        text = out.read_text()
        assert "wrong" in text
        if fmt == "csv":
            lines = text.splitlines()
            assert lines[0].startswith("visible,tools_offered,queries,wrong_call_rate_count")
            assert [x.split(",")[0] for x in lines[1:]] == ["5", "10"]
        else:
            assert "random distractors (seed 0)" in text


def test_fit_writes_a_curve_whose_source_simulate_plan_and_report_cite(fake, tmp_path, capsys):
    curve = tmp_path / "curve.toml"
    assert run("--visible", "5,10,all", "--fit", str(curve), "-q", "-o", str(tmp_path / "o.txt")) == 0
    text = curve.read_text()
    assert 'source = "measured: local-test-model on your registry, 58 queries, ' in text
    assert "task success derived, not measured" in text
    capsys.readouterr()
    assert main(["simulate", REG, "--model", "claude-sonnet-4-5", "--steps", "9", "--accuracy-curve", str(curve)]) == 0
    out = " ".join(capsys.readouterr().out.split())  # the text is wrapped to the terminal
    assert "accuracy: measured: local-test-model on your registry, 58 queries, " in out
    assert "task success derived, not measured" in out
    md = tmp_path / "report.md"
    assert main(["report", REG, "--accuracy-curve", str(curve), "--format", "markdown", "-o", str(md)]) == 0
    assert "measured: local-test-model on your registry, 58 queries" in md.read_text()
    assert "the bundled curve" not in md.read_text()
    capsys.readouterr()
    assert main(["plan", REG, "--accuracy-curve", str(curve), "--show", "stages"]) == 0
    assert "measured: local-test-model on your registry, 58 queries" in " ".join(capsys.readouterr().out.split())


def test_simulate_cost_per_completed_task_from_a_written_curve_by_hand(tmp_path, capsys):
    """docs/simulation.md's rules, worked by hand for a curve of two points (5 tools: 20% wrong, 50%
    success; 15 tools: 40% wrong, 25% success), 10 tools of 100 tokens, 2 steps, no caching, Claude
    Sonnet 4.5 at $3 / $15 per million input / output tokens with its 346-token tool-use prompt.

    At 10 tools the curve reads halfway: wrong 0.3, success 0.375. Expected calls 1 / (1 - 0.3) = 10/7,
    priced linearly between a task of 1 call and one of 2 (weight 3/7 on the second).
    Every request carries 346 + 1,000 = 1,346 tokens; a call adds 60 + 500 = 560 to the history.
    1 call:  inputs 1,346 + 1,906 = 3,252, outputs 60 + 300 = 360: (3,252 x 3 + 360 x 15) / 10^6 = $0.015156
    2 calls: inputs 1,346 + 1,906 + 2,466 = 5,718, outputs 420: (17,154 + 6,300) / 10^6 = $0.023454
    task: 0.015156 + 3/7 x 0.008298 = $0.018712285714...; completed: / 0.375 = $0.049899428571...
    """
    curve = tmp_path / "curve.toml"
    curve.write_text('source = "measured: tiny-model on your registry, 12 queries, 2026-12-06"\nas_of = "2026-12-06"\n'
                     "[[points]]\nvisible = 5\nwrong = 0.2\nsuccess = 0.5\n"
                     "[[points]]\nvisible = 15\nwrong = 0.4\nsuccess = 0.25\n")
    assert main(["simulate", "--tool-tokens", "100", "--registry-size", "10", "--steps", "2", "--model",
                 "claude-sonnet-4-5", "--caching", "none", "--accuracy-curve", str(curve), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    row = doc["rows"][0]
    task = 0.015156 + 3 / 7 * (0.023454 - 0.015156)
    assert row["wrong_rate"] == pytest.approx(0.3, abs=1e-12)
    assert row["success"] == pytest.approx(0.375, abs=1e-12)
    assert row["cost_per_task"] == pytest.approx(task, rel=1e-9)
    assert row["cost_per_completed_task"] == pytest.approx(task / 0.375, rel=1e-9)
    assert doc["assumptions"]["accuracy_curve"]["source"].startswith("measured: tiny-model on your registry")


def one_line_error(err: str, message: str) -> bool:
    last = err.strip().splitlines()[-1]
    return last.startswith("toolsurvey eval: error:") and message in last and "Traceback" not in err


def test_bad_sweep_options_are_one_line_and_nothing_is_written(fake, tmp_path, capsys):
    curve, log = tmp_path / "c.toml", tmp_path / "l.jsonl"
    assert run("--fit", str(curve)) == 2
    assert one_line_error(capsys.readouterr().err, "--fit belongs to the catalog-size sweep")
    assert run("--visible", "5,x") == 2
    assert one_line_error(capsys.readouterr().err, "expected --visible sizes")
    assert run("--visible", "5,all", "--baseline", REG) == 2
    assert one_line_error(capsys.readouterr().err, "--baseline is not taken with --visible")
    # one size only: a curve needs two points, so neither the curve nor the log is written
    assert run("--visible", "all", "--fit", str(curve), "--log", str(log), "-q") == 2
    assert one_line_error(capsys.readouterr().err, "expected at least two sizes")
    assert not curve.exists() and not log.exists()


def test_the_estimate_of_all_alone_is_the_plain_evals(tmp_path, monkeypatch):
    """Each visible set is priced tool by tool; with every tool in every set, that is the plain eval's
    estimate, line for line (docs/eval.md gives both figures)."""
    monkeypatch.setenv("TOOLSURVEY_CACHE_DIR", str(tmp_path / "cache"))
    args = ["eval", REG, "--queries", *QUERIES, "--model", "claude-sonnet-4-5", "--dry-run"]
    plain, swept = tmp_path / "plain.txt", tmp_path / "swept.txt"
    assert main([*args, "-o", str(plain)]) == 0
    assert main([*args, "--visible", "all", "-o", str(swept)]) == 0
    norm = lambda p: " ".join(p.read_text().split()).replace("; the mean over the visible sets", "")
    assert norm(plain) == norm(swept)
    assert "$2.24" in norm(plain) and "$0.3165" in norm(plain)


def test_sweep_outputs_escape_the_model_name(fake, tmp_path):
    hostile = "m\x1b[31m<script>|x"
    for fmt in ("table", "markdown"):
        out = tmp_path / f"o.{fmt}"
        assert main(["eval", REG, "--queries", *QUERIES, "--model", hostile, "--base-url", "http://llm.test/v1",
                     "--visible", "5,all", "--format", fmt, "-o", str(out), "-q"]) == 0
        text = out.read_text()
        assert "\x1b" not in text
        if fmt == "markdown":
            assert "<script>" not in text
