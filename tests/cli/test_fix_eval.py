"""`toolsurvey fix --eval FILE --eval-model MODEL`: the selection change of the schema rewrites, through
the official openai SDK against a fake OpenAI-compatible server (httpx MockTransport). The model is
scripted to look at the schemas the rewrites change, so which queries change is known by hand; the
change fix prints is checked against `toolsurvey eval FIXED --baseline READ` run on the registry
`fix --write -o` wrote, with a cache of its own (an independent path); a scripted drop beyond
--max-drop is flagged with exit 1; a missing partner flag is one line, exit 2; the estimate comes
before anything is sent."""

from __future__ import annotations

import json
import math

import pytest
from conftest import ROOT
from fake_llm import FakeLLM, Move, route

from toolsurvey.cli import main

pytest.importorskip("openai")
SAMPLE = str(ROOT / "data" / "registries" / "ops_assistant.json")
QUERIES = str(ROOT / "data" / "queries" / "ops_assistant.jsonl")
OWN = "catalog,deploys,metrics"
URL = "http://llm.test/v1"


def _params(tools, name):
    return next(t["function"]["parameters"] for t in tools if t["function"]["name"] == name)


def trade(query, names, tools):
    """Calls describe_service_dependencies only while its schema has `$defs` (before inline-refs), and
    create_deploy only once its schema has lost `$schema` (after drop-dollar-schema); answers text
    otherwise. On the sample: ops-03 right before only, ops-15 right after only."""
    q = query.lower()
    if "depend on" in q:
        deps = _params(tools, "describe_service_dependencies")
        return Move([("describe_service_dependencies", {"service": "billing"})] if "$defs" in deps else [])
    if q.startswith("ship version"):
        deploy = _params(tools, "create_deploy")
        return Move([("create_deploy", {"service": "orders"})] if "$schema" not in deploy else [])
    return Move(text="ok")


def worse(query, names, tools):
    """Both of those queries right only before the rewrites: 2 of 42 lost, 4.8 points."""
    q = query.lower()
    if "depend on" in q and "$defs" in _params(tools, "describe_service_dependencies"):
        return Move([("describe_service_dependencies", {"service": "billing"})])
    if q.startswith("ship version") and "$schema" in _params(tools, "create_deploy"):
        return Move([("create_deploy", {"service": "orders"})])
    return Move(text="ok")


@pytest.fixture
def cache(monkeypatch, tmp_path):
    monkeypatch.setenv("TOOLSURVEY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return tmp_path / "cache"


def fake(monkeypatch, decide) -> FakeLLM:
    f = FakeLLM(decide)
    route(monkeypatch, f)
    return f


def fix(*args):
    return main(["fix", SAMPLE, "--own", OWN, "--eval", QUERIES, "--eval-model", "m", "--base-url", URL, "-q", *args])


def test_selection_change_is_what_eval_baseline_prints(monkeypatch, cache, tmp_path, capsys):
    f = fake(monkeypatch, trade)
    assert fix("--format", "json") == 0
    sel = json.loads(capsys.readouterr().out)["selection"]
    assert len(f.requests) == 2 * 42  # each query once on the registry read, once on the fixed one
    c = sel["comparison"]
    # by hand: ops-03 right before only (b = 1), ops-15 right after only (c = 1); McNemar's exact p on
    # 1 and 1 is min(1, 2 * (C(2,0) + C(2,1)) / 2^2) = 1
    assert {x["id"] for x in c["changed"]} == {"ops-03", "ops-15"}
    assert (c["b"], c["c"], c["p_value"], c["paired"]) == (1, 1, 1.0, 42)
    assert sel["accuracy_before"]["count"] == sel["accuracy_after"]["count"] and not sel["flagged"]

    # the independent path: the registry fix writes, evaluated by `toolsurvey eval --baseline` afresh
    fixed = tmp_path / "fixed.json"
    assert main(["fix", SAMPLE, "--own", OWN, "--write", "-o", str(fixed)]) == 0
    capsys.readouterr()
    monkeypatch.setenv("TOOLSURVEY_CACHE_DIR", str(tmp_path / "cache-eval"))
    sent = len(f.requests)
    args = ["eval", str(fixed), "--queries", QUERIES, "--model", "m", "--base-url", URL, "--baseline", SAMPLE, "-q"]
    assert main([*args, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(f.requests) == sent + 2 * 42  # asked again, not read from fix's cache
    assert doc["comparison"] == c
    assert doc["summary"]["accuracy"] == sel["accuracy_after"] and doc["baseline"]["summary"]["accuracy"] == \
        sel["accuracy_before"]

    # the text: eval's "Against the baseline" block appears in fix's output as eval prints it
    assert main(args) == 0
    block = capsys.readouterr().out
    block = block[block.index("Against the baseline"):].rstrip("\n")
    assert fix() == 0
    out = capsys.readouterr().out
    assert block in out and out.index("tokens saved") < out.index("selection change of the rewrites") < \
        out.index(block)
    assert "FLAGGED" not in out


def test_drop_beyond_max_drop_is_flagged_and_exits_1(monkeypatch, cache, tmp_path, capsys):
    fake(monkeypatch, worse)
    written = tmp_path / "fixed.json"
    assert fix("--max-drop", "1", "--write", "-o", str(written)) == 1
    out = capsys.readouterr().out
    drop = 2 / 42 * 100  # two queries of 42 right only before
    assert f"FLAGGED: accuracy dropped {drop:.1f} points" in out and "more than --max-drop 1" in out
    assert written.exists()  # flagged, not hidden: what --write asked for is still written
    assert fix("--max-drop", "5", "--format", "json") == 0  # under the limit: same answers, from the cache
    sel = json.loads(capsys.readouterr().out)["selection"]
    assert math.isclose(sel["drop_points"], drop) and not sel["flagged"]
    assert fix("--max-drop", "4", "--format", "json") == 1
    assert json.loads(capsys.readouterr().out)["selection"]["flagged"]


@pytest.mark.parametrize("argv,message", [
    (["--eval", QUERIES], "--eval needs --eval-model MODEL too"),
    (["--eval-model", "m"], "--eval-model needs --eval FILE too"),
    (["--max-drop", "2"], "--max-drop flags a drop in accuracy measured with --eval FILE and --eval-model"),
])
def test_a_missing_partner_flag_is_one_line_exit_2(argv, message, monkeypatch, cache, capsys):
    f = fake(monkeypatch, trade)
    assert main(["fix", SAMPLE, "--own", OWN, *argv]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [f"toolsurvey fix: error: {err.split('error: ', 1)[1].strip()}"]
    assert message in err and not f.requests


def test_the_estimate_comes_before_anything_is_sent(monkeypatch, cache, tmp_path, capsys):
    f = fake(monkeypatch, trade)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-123")
    monkeypatch.setenv("OPENAI_BASE_URL", URL)
    written = tmp_path / "fixed.json"
    code = main(["fix", SAMPLE, "--own", OWN, "--eval", QUERIES, "--eval-model", "gpt-4o", "--max-cost", "0.01",
                 "--write", "-o", str(written)])
    err = capsys.readouterr().err
    # both registries' estimates, then the refusal: nothing sent, nothing written
    assert code == 2 and err.index("estimate: 42 of 42 requests") < err.index("baseline estimate: 42 of 42") < \
        err.index("over --max-cost $0.01")
    assert not f.requests and not written.exists() and "sk-test-secret-123" not in err
    assert main(["fix", SAMPLE, "--own", OWN, "--eval", QUERIES, "--eval-model", "gpt-4o", "--yes", "-q"]) == 0
    err = capsys.readouterr().err
    assert "estimate: 42 of 42 requests" in err and len(f.requests) == 84


def test_without_eval_flags_nothing_is_asked_and_the_json_has_no_selection(monkeypatch, cache, capsys):
    f = fake(monkeypatch, trade)
    assert main(["fix", SAMPLE, "--own", OWN, "--format", "json"]) == 0
    assert set(json.loads(capsys.readouterr().out)) == {"rewrites", "settings"} and not f.requests
