"""The deferral levers priced at the end-to-end rate of an eval run with --defer
(`deferral_from_eval`, `report(deferral=)`, `plan(deferral=)`, `--eval FILE`), and, without one,
BM25's hit rate with a line saying so.

The eval here is written by hand: five records, four needing a tool, of which two end right, so the
end-to-end rate is 2 of 4 (50%), and its Wilson 95% interval for 2 of 4 is worked below from the
formula: centre (0.5 + 1.96²/8) / (1 + 1.96²/4) = 0.5, half-width 1.96/(1 + 0.9604) x
sqrt(0.0625 + 0.0600) = 0.5 x 0.6996... -> [0.150, 0.850]."""

from __future__ import annotations

import json
import warnings

import pytest
from conftest import run_cli

import toolsurvey as ts
from toolsurvey.advice.deferral import MeasuredDeferral, deferral_from_eval, price_search
from toolsurvey.errors import InputError
from toolsurvey.measuring.selection.stored import read_eval

REG = "data/registries/ops_assistant.json"
SCENARIO = "data/scenarios/ops_assistant.toml"


def record(i, gold, outcome, searched, found):
    called = {"right": gold[0] if gold else "none", "wrong": "tickets/create_ticket", "skip": "none",
              "no_call": "none"}[outcome]
    return {"id": f"q{i}", "model": "gemma-test", "repeat": 0, "query": f"query {i}", "gold": gold,
            "outcome": outcome, "expected": gold[0] if gold else "none", "called": called, "args_valid": None,
            "args_match": None,
            "tools_offered": [], "calls": [], "usage": {"input": 10, "cache_write_5m": 0, "cache_write_1h": 0,
                                                         "cache_read": 0, "output": 2},
            "from_cache": False, "cost": None,
            "defer": {"mode": "client", "searched": searched, "found_gold": found if gold and searched else None,
                      "searches": [], "loaded": [], "rounds": 2 if searched else 1, "exhausted": False,
                      "search_requests": int(searched), "extra_requests": int(searched),
                      "extra_input_tokens": 100 * int(searched), "extra_output_tokens": 5 * int(searched)}}


@pytest.fixture
def log(tmp_path):
    g = ["tickets/get_ticket"]
    rows = [record(1, g, "right", True, True), record(2, g, "right", True, True), record(3, g, "wrong", True, True),
            record(4, g, "skip", False, None), record(5, [], "no_call", False, None)]
    path = tmp_path / "defer.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_the_end_to_end_rate_and_its_interval_worked_by_hand(log):
    d = deferral_from_eval(read_eval(log))
    assert isinstance(d, MeasuredDeferral)
    assert (d.count, d.of, d.rate) == (2, 4, 0.5)
    assert d.low == pytest.approx(0.150, abs=1e-3) and d.high == pytest.approx(0.850, abs=1e-3)
    assert d.searched == pytest.approx(3 / 5) and d.found_gold == pytest.approx(3 / 3)
    assert d.hit_at(1) == d.hit_at(10) == 0.5
    assert deferral_from_eval(log) == d  # a path reads the same
    assert "gemma-test called a needed tool after deferred loading (eval --defer client) for 2 of 4" in d.describe()


def test_a_plain_eval_is_refused_with_one_line(tmp_path):
    plain = tmp_path / "plain.jsonl"
    rec = {k: v for k, v in record(1, ["tickets/get_ticket"], "right", True, True).items() if k != "defer"}
    plain.write_text(json.dumps(rec) + "\n")
    with pytest.raises(InputError, match="expected an eval run with --defer"):
        deferral_from_eval(plain)


def test_the_deferral_lever_is_priced_at_the_measured_rate(log):
    reg, sc = ts.load(REG), ts.load_scenario(SCENARIO)
    d = deferral_from_eval(log)
    base = float(ts.simulate(reg, sc, samples=0).summary["cost_per_completed_task"])
    kw = dict(strategy="tool_search", search="anthropic-bm25", search_k=None, samples=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        measured, given = price_search(reg, sc, base, d, **kw), price_search(reg, sc, base, 0.5, **kw)
    assert measured.cost == given.cost and measured.quality == 0.5  # the same simulation as a 50% hit rate
    assert measured.rests_on().startswith("measured end to end: gemma-test called a needed tool")


def build(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ts.report(REG, usage="data/usage/ops_assistant.jsonl", scenario=SCENARIO, **kw)


def test_report_and_plan_use_it_and_without_it_say_bm25(log):
    text = " ".join(build(deferral=log).to_markdown().split())
    assert "measured end to end: gemma-test called a needed tool after deferred loading" in text
    bm25 = " ".join(build(queries="data/queries/ops_assistant.jsonl").summary_text().split())
    assert "BM25's hit rate without the model in the loop" in bm25
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = ts.plan(ts.load(REG), scenario=SCENARIO, deferral=deferral_from_eval(log))
    said = " ".join([*p.warnings, *(a.detail for a in p.actions if a.kind == "defer")])
    assert "measured end to end: gemma-test" in said


def test_cli_eval_flag_on_report_and_plan(log, tmp_path, capsys):
    code, out, err = run_cli("plan", REG, "--scenario", SCENARIO, "--eval", log, capsys=capsys)
    assert code == 0 and "measured end to end: gemma-test" in " ".join((out + err).split())
    plain = tmp_path / "plain.jsonl"
    rec = {k: v for k, v in record(1, ["tickets/get_ticket"], "right", True, True).items() if k != "defer"}
    plain.write_text(json.dumps(rec) + "\n")
    code, out, err = run_cli("report", REG, "--scenario", SCENARIO, "--eval", plain, "--format", "markdown",
                             "-o", tmp_path / "r.md", capsys=capsys)
    assert code == 0
    said = " ".join((tmp_path / "r.md").read_text().split())
    assert "assumes every search finds the needed tool" in said and "measured end to end" not in said
    code, out, err = run_cli("plan", REG, "--scenario", SCENARIO, "--eval", plain, capsys=capsys)
    assert code == 0 and "measured end to end" not in out + err
    assert "the eval given was not run with --defer, so deferred loading is priced at BM25's hit rate" in " ".join(
        err.split())
