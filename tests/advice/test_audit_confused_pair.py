"""The audit's confused-pair rule (audit --eval FILE): the pairs an eval's answers confused at least
[selection] min_confusions times, with the counts both ways and the query ids planted in
tests/_picks.py (written here by hand), and the near-duplicate rule's verdict on the same pair beside
them; nothing without an eval."""

from __future__ import annotations

import json
import re

import pytest
from _picks import REG, write_eval

import toolsurvey as ts
from toolsurvey.advice.audit.run import audit
from toolsurvey.advice.similarity.pairs import similar_pairs
from toolsurvey.advice.thresholds import load_config
from toolsurvey.cli import main
from toolsurvey.errors import InputError

pytest.importorskip("openai")


def confused(findings):
    return findings[findings["rule"] == "confused-pair"]


def test_pairs_confused_at_least_twice_with_their_counts_queries_and_the_predicted_score(monkeypatch, tmp_path):
    out, log = write_eval(monkeypatch, tmp_path)
    for path in (out, log):
        f = confused(audit(ts.load(REG), eval=path, rules=["confused-pair"]))
        # ranked as every finding is: severity, tokens (0 here), then server and tool
        assert [(r.server + "/" + r.tool, r.other) for r in f.itertuples()] == [
            ("metrics/get_active_alerts", "metrics/list_alerts"), ("metrics/query_metrics", "metrics/query_logs")]
        second, first = f["evidence"].tolist()
        assert first.startswith("3 confusions (>= 2): called metrics/query_logs for metrics/query_metrics's queries "
                                "2 times (p1, p2), metrics/query_metrics for metrics/query_logs's once (<b>p3</b>)")
        assert second.startswith("2 confusions (>= 2): called metrics/list_alerts for metrics/get_active_alerts's "
                                 "queries once (p12), metrics/get_active_alerts for metrics/list_alerts's once (p11)")
        assert set(f["severity"]) == {"warning"} and f["tokens"].tolist() == [0, 0]

    # The alerts pair is one the near-duplicate rule flags: its score, as similar_pairs gives it, is shown.
    c = load_config()["similarity"]
    pairs = similar_pairs(ts.load(REG), threshold=c["threshold"], method=c["method"], config=c)
    row = pairs[(pairs["tool_a"].isin(["list_alerts", "get_active_alerts"]))
                & (pairs["tool_b"].isin(["list_alerts", "get_active_alerts"]))].iloc[0]
    assert f"predicted: near-duplicates by the overlap rule (similarity {row['score']:.2f} >= {c['threshold']})" in second
    assert "merge metrics/get_active_alerts and metrics/list_alerts into one tool" in f["fix"].iloc[0]
    # The metrics pair is not: the rule predicted no confusion, the eval measured three.
    score = float(re.search(r"similarity (\d\.\d\d) <", first).group(1))
    assert "predicted: not near-duplicates by the overlap rule" in first and score < c["threshold"]


def test_the_threshold_comes_from_the_config(monkeypatch, tmp_path):
    out, _ = write_eval(monkeypatch, tmp_path)
    reg = ts.load(REG)
    once = confused(audit(reg, eval=out, rules=["confused-pair"], config={"selection": {"min_confusions": 1}}))
    assert once["other"].tolist() == ["metrics/list_alerts", "metrics/query_logs", "tickets/update_ticket"]
    assert once["evidence"].iloc[2].startswith("1 confusion (>= 1): called tickets/update_ticket for "
                                               "tickets/close_ticket's queries once (p4); never")
    assert confused(audit(reg, eval=out, rules=["confused-pair"], config={"selection": {"min_confusions": 4}})).empty


def test_without_an_eval_the_rule_finds_nothing():
    f = audit(ts.load(REG))
    assert "confused-pair" in f.attrs["rules"] and confused(f).empty


def test_an_eval_of_another_registry_is_refused(monkeypatch, tmp_path):
    out, _ = write_eval(monkeypatch, tmp_path)
    with pytest.raises(InputError, match="the eval names none of this registry's 1 tools"):
        audit(ts.Registry.from_tools([ts.Tool("x", "An x.", {"type": "object"}, server="s")]), eval=out)


def test_cli_json_and_markdown(monkeypatch, tmp_path, capsys):
    out, _ = write_eval(monkeypatch, tmp_path)
    capsys.readouterr()
    assert main(["audit", REG, "--eval", str(out), "--rules", "confused-pair", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["tool"], r["other"]) for r in rows] == [("get_active_alerts", "metrics/list_alerts"),
                                                       ("query_metrics", "metrics/query_logs")]
    assert main(["audit", REG, "--eval", str(out), "--rules", "confused-pair", "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert "<b>p3</b>" not in md and "&lt;b&gt;p3&lt;/b&gt;" in md
    assert "local-test-model's picks counted from each query's first answer, 12 queries" in md
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "q1"}\n')
    assert main(["audit", REG, "--eval", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "record 1 has no gold" in err and "Traceback" not in err


def test_a_sweep_is_read_at_its_largest_visible_set(monkeypatch, tmp_path):
    out, _ = write_eval(monkeypatch, tmp_path, "--visible", "5,all")
    f = audit(ts.load(REG), eval=out, rules=["confused-pair"])
    assert f["other"].tolist() == ["metrics/list_alerts", "metrics/query_logs"]  # the planted pairs, once each
    assert f["evidence"].iloc[1].startswith("3 confusions (>= 2)")
    assert f.attrs["notes"] == ["local-test-model's picks counted from a catalog-size sweep read at its largest "
                                "visible set (all), each query's first answer, 12 queries"]
