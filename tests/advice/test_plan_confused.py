"""The plan's merge stage with an eval (plan --eval FILE): a merge that joins a pair the model confused
says so, the count beside the near-duplicate score; a confused pair left unmerged is a merge candidate
in the warnings; the eval moves no figure (the definitions decide what merges). Counts planted in
tests/_picks.py, written here by hand."""

from __future__ import annotations

import warnings

import pytest
from _picks import REG, write_eval

import toolsurvey as ts
from toolsurvey.advice.plan.stages import plan
from toolsurvey.advice.similarity.pairs import similar_pairs
from toolsurvey.advice.thresholds import load_config
from toolsurvey.cli import main

pytest.importorskip("openai")
USAGE = "data/usage/ops_assistant.jsonl"


def make(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return plan(ts.load(REG), usage=USAGE, **kw)


def test_the_merge_names_the_measured_confusion_and_the_rest_are_candidates(monkeypatch, tmp_path):
    out, _ = write_eval(monkeypatch, tmp_path)
    p, bare = make(eval=out), make()
    alerts = next(a for a in p.actions if a.kind == "merge" and "metrics/list_alerts" in a.tools)
    c = load_config()["similarity"]
    pairs = similar_pairs(ts.load(REG), threshold=c["threshold"], method=c["method"], config=c)
    score = pairs[pairs["tool_a"].isin(["list_alerts", "get_active_alerts"])
                  & pairs["tool_b"].isin(["list_alerts", "get_active_alerts"])]["score"].iloc[0]
    assert alerts.detail.endswith(
        "; measured: 2 confusions, called metrics/list_alerts for metrics/get_active_alerts's queries once (p12), "
        "metrics/get_active_alerts for metrics/list_alerts's once (p11); predicted: near-duplicates by the overlap "
        f"rule (similarity {score:.2f} >= {c['threshold']})")
    candidate = [w for w in p.warnings if w.startswith("merge candidate, not merged:")]
    assert len(candidate) == 1
    assert candidate[0].startswith("merge candidate, not merged: metrics/query_metrics and metrics/query_logs "
                                   "(measured: 3 confusions, called metrics/query_logs for metrics/query_metrics's "
                                   "queries 2 times (p1, p2), metrics/query_metrics for metrics/query_logs's once "
                                   "(<b>p3</b>); predicted: not near-duplicates")
    # The eval adds words, not figures: the same actions and the same cost after.
    assert [(a.kind, a.target, a.tools) for a in p.actions] == [(a.kind, a.target, a.tools) for a in bare.actions]
    assert p.runs["after"].summary["cost_per_month"] == bare.runs["after"].summary["cost_per_month"]


def test_cli_plan_and_the_report_carry_them(monkeypatch, tmp_path, capsys):
    out, _ = write_eval(monkeypatch, tmp_path)
    capsys.readouterr()
    assert main(["plan", REG, "--usage", USAGE, "--eval", str(out), "--show", "actions", "--format", "csv"]) == 0
    got = capsys.readouterr()
    assert "merge candidate, not merged: metrics/query_metrics and metrics/query_logs" in " ".join(got.err.split())
    assert "measured: 2 confusions" in got.out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = ts.report(REG, usage=USAGE, eval=out)
    assert any(n.startswith("Plan: merge candidate, not merged: metrics/query_metrics") for n in rep.section("plan").notes)
