"""Notebook 08's inputs (toolsurvey/present/selection_inputs.py) and its charts: eval files sorted into
the views that need them, the recorded eval of the bundled sample, a live run through the official
openai SDK against the scripted fake server, and the figures by description length and deferred
against loaded, counted again here from hand-made records with a Wilson interval of the test's own.
Labels read from a file are escaped in every chart."""

from __future__ import annotations

import json

import pytest
from _oracle import wilson
from conftest import DATA, ROOT
from fake_llm import Move, serve, word_match

from toolsurvey.cli import main
from toolsurvey.errors import InputError
from toolsurvey.measuring.selection.stored import read_eval
from toolsurvey.present.charts import selection as charts
from toolsurvey.present.selection_inputs import (
    RECORDED,
    deferred_vs_loaded,
    read_files,
    recorded,
    selection_inputs,
)

REG = str(DATA / "registries" / "ops_assistant.json")
QUERIES = [str(DATA / "queries" / "ops_assistant_selection.jsonl")]
EVALS = ROOT / "data" / "evals"




def rec(i, outcome, gold=("a/x",), **extra):
    called = {"right": "a/x", "wrong": "a/y", "invalid": "invalid", "false_call": "a/y"}.get(outcome, "none")
    return {"id": f"q{i}", "query": f"query {i}", "gold": list(gold), "outcome": outcome, "expected": (gold or ["none"])[0],
            "called": called, "tools_offered": ["a/x", "a/y"], "args_valid": None, "args_match": None, **extra}


def test_the_description_length_view_counted_by_hand(tmp_path):
    shown = {"none": 0.0, 10: 9.5, "full": 30.0}
    recs = [rec(1, "right", description_tokens="full"), rec(2, "wrong", description_tokens="full"),
            rec(3, "skip", description_tokens=10), rec(4, "right", description_tokens=10),
            rec(5, "right", description_tokens=10), rec(6, "no_call", gold=(), description_tokens="none"),
            rec(7, "invalid", description_tokens="none")]
    log = tmp_path / "desc.jsonl"
    log.write_text("".join(json.dumps({**r, "description_mean_tokens": shown[r["description_tokens"]]}) + "\n"
                           for r in recs))
    fig = charts.description_measured(read_files([log]).described)
    wrong, acc = fig.data
    assert list(acc.x) == [0.0, 9.5, 30.0]  # none, then 10 tokens, then full, at the tokens shown
    # Accuracy: none 1 of 2 (the no_call), 10: 2 of 3, full 1 of 2. Wrong calls: none 1 of 1 (invalid),
    # 10: 0 of 2 (the skip is no call), full 1 of 2.
    assert list(acc.y) == pytest.approx([50, 200 / 3, 50])
    assert list(wrong.y) == pytest.approx([100, 0, 50])
    lo, hi = wilson(2, 3)
    assert (acc.error_y.array[1], acc.error_y.arrayminus[1]) == pytest.approx((100 * hi - 200 / 3, 200 / 3 - 100 * lo))


def test_deferred_against_loaded_counted_by_hand():
    loaded = [rec(1, "right"), rec(2, "right"), rec(3, "wrong"), rec(4, "no_call", gold=())]
    d = lambda searched, found, req, tok: {"mode": "client", "searched": searched, "found_gold": found,  # noqa: E731
                                           "extra_requests": req, "extra_input_tokens": tok}
    deferred = [rec(1, "right", defer=d(True, True, 1, 900)), rec(2, "skip", defer=d(False, False, 0, 0)),
                rec(3, "wrong", defer=d(True, False, 2, 1500)), rec(4, "no_call", gold=(), defer=d(False, False, 0, 0))]
    loaded_row, client = deferred_vs_loaded(deferred, loaded)
    assert loaded_row["setup"] == "every tool loaded" and loaded_row["accuracy"]["count"] == 3
    assert client["setup"] == "deferred (client)"
    assert (client["accuracy"]["count"], client["accuracy"]["of"]) == (2, 4)  # right + no_call
    assert (client["searched"]["count"], client["searched"]["of"]) == (2, 4)
    assert (client["found_gold"]["count"], client["found_gold"]["of"]) == (1, 3)  # of the three that need a tool
    assert client["extra_requests"] == pytest.approx(3 / 4) and client["extra_input_tokens"] == pytest.approx(600)
    assert (client["searched"]["low"], client["searched"]["high"]) == pytest.approx(wilson(2, 4), abs=1e-12)
    fig = charts.deferred_against_loaded([loaded_row, client])
    assert [t.name for t in fig.data] == ["accuracy", "searched", "search found a gold tool"]
    assert list(fig.data[1].x) == ["deferred (client)"]  # nothing searched with every tool loaded


def test_files_are_sorted_by_what_their_records_carry(tmp_path):
    described = tmp_path / "desc.jsonl"
    described.write_text("".join(json.dumps(rec(i, "right", description_tokens=n, description_mean_tokens=t)) + "\n"
                                 for i, (n, t) in enumerate((("none", 0), (20, 14.5), ("full", 31.0)))))
    deferred = tmp_path / "defer.jsonl"
    deferred.write_text(json.dumps(rec(1, "right", defer={"mode": "<b>client</b>", "searched": True})) + "\n")
    plain = tmp_path / "plain.jsonl"
    plain.write_text(json.dumps(rec(1, "wrong")) + "\n")
    got = read_files([described, deferred, plain])
    assert got.described.variants == ["none", 20, "full"] and len(got.deferred) == 1
    assert got.plain is not None and [r["id"] for r in got.loaded] == ["q1"]
    assert got.sweep is None and got.ab is None and not got.recorded
    fig = charts.deferred_against_loaded(deferred_vs_loaded(got.deferred, got.loaded))
    assert "<b>" not in json.dumps(fig.to_plotly_json()["data"])  # a mode read from a file is escaped
    bad = tmp_path / "bad.json"
    bad.write_text('{"nothing": 1}')
    with pytest.raises(InputError, match="expected the JSON of `toolsurvey eval"):
        read_files([bad])


def decide(query: str, names: list[str], tools: list) -> Move:
    """The first offered tool sharing a word with the query, else no call."""
    return word_match(query, tools)


def test_a_live_run_gives_the_figures_the_cli_writes(monkeypatch, tmp_path):
    """The notebook's live path (model and base_url given) against the CLI's own files for the same
    queries and model: the same summary, sweep and comparison."""
    pytest.importorskip("openai")
    fake = serve(monkeypatch, tmp_path, decide)
    old = tmp_path / "old.json"
    reg = json.loads(open(REG, encoding="utf-8").read())
    for server in reg["servers"].values():
        for t in server["tools"]:
            t["description"] = " ".join((t.get("description") or "").split()[:3])
    old.write_text(json.dumps(reg))
    got = selection_inputs(REG, QUERIES, model="local-test-model", base_url="http://llm.test/v1", visible="5,all",
                           baseline=str(old))
    assert got.origin.startswith("a live run of local-test-model at http://llm.test/v1") and not got.recorded
    common = ["--queries", *QUERIES, "--model", "local-test-model", "--base-url", "http://llm.test/v1", "-q",
              "--format", "json"]
    sent = len(fake.requests)
    assert main(["eval", REG, *common, "--baseline", str(old), "-o", str(tmp_path / "ab.json")]) == 0
    assert main(["eval", REG, *common, "--visible", "5,all", "-o", str(tmp_path / "sw.json")]) == 0
    assert len(fake.requests) == sent  # the CLI's answers all came from the live run's cache
    ab = json.loads((tmp_path / "ab.json").read_text())
    assert got.plain.summary == ab["summary"]
    assert got.ab["comparison"] == ab["comparison"] and got.ab["after"] == ab["summary"]
    assert got.ab["before"] == ab["baseline"]["summary"]
    assert got.sweep.by_size() == read_eval(tmp_path / "sw.json").by_size()
    from_files = read_files([tmp_path / "ab.json", tmp_path / "sw.json"])
    assert from_files.ab["comparison"] == got.ab["comparison"] and from_files.sweep.by_size() == got.sweep.by_size()


def test_no_key_falls_back_to_the_recorded_eval_and_says_so(monkeypatch, tmp_path):
    if not all((EVALS / n).is_file() for n in RECORDED):
        pytest.skip("data/evals holds no recorded eval yet (scripts/record_eval.py writes it)")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    got = selection_inputs(REG, QUERIES, model="gpt-4o", recorded_dir=EVALS)
    assert got.recorded and got.origin.startswith("no live run (") and "OPENAI_API_KEY" in got.origin
    assert "not an agent's model" in got.origin
    rec_ = recorded(EVALS)
    assert rec_.plain is not None and rec_.sweep is not None and rec_.ab is not None
    assert rec_.plain.summary == json.loads((EVALS / RECORDED[0]).read_text())["summary"]
    with pytest.raises(InputError, match="expected the recorded eval in"):
        recorded(tmp_path)
