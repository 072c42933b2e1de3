"""`toolsurvey eval` end to end through the official openai SDK against a fake OpenAI-compatible
server (httpx MockTransport, the documented chat.completion shape): every metric recounted from the
JSON Lines log by a second, simple implementation; the cache (a re-run sends nothing); --baseline;
the CI gates; and each bad input as one line with exit 2."""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest
from _oracle import wilson
from conftest import ROOT
from fake_llm import Failure, FakeLLM, Move, route, serve

from toolsurvey.cli import main

pytest.importorskip("openai")
REG = str(ROOT / "data" / "registries" / "ops_assistant.json")
QUERIES = [str(ROOT / "data" / "queries" / "ops_assistant.jsonl"),
           str(ROOT / "data" / "queries" / "ops_assistant_selection.jsonl")]


def messy(query: str, names: list[str], tools: list) -> Move:
    """A model that does a bit of everything the classification must handle."""
    q = query.lower()
    if "owns" in q:
        return Move([("get_owner", {"service": "payments-api"})])
    if "deploy" in q:
        return Move([("list_deploys", '{"service": ')])  # arguments cut off: invalid
    if "haiku" in q:
        return Move(text='<tool_call>{"name": "notify_channel", "arguments": {}}</tool_call>')
    if "ticket" in q:
        return Move([("search_tickets", {"query": "x"}), ("page_oncall", {})])  # parallel, one wrong
    if "alert" in q:
        return Move([("get_active_alerts", {})])
    if "slack" in q or "channel" in q:
        return Move([("send_slack_message", {"text": "hi"})])
    if "thanks" in q:
        return Move([("notify_channel", {"channel": "#ops", "text": "bye"})])  # a call where none is wanted
    if "incident" in q:
        return Move([("drop_database", {})])  # a tool that was not offered
    return Move(text="I can't help with that.")


@pytest.fixture
def fake(monkeypatch, tmp_path):
    return serve(monkeypatch, tmp_path, messy)


def run(*args):
    return main(["eval", REG, "--queries", *QUERIES, "--model", "local-test-model", "--base-url", "http://llm.test/v1",
                 *args])


def one_line_error(err: str, message: str) -> bool:
    """The run ended in one error line holding `message` (the registry's own warnings may come before)."""
    last = err.strip().splitlines()[-1]
    return last.startswith("toolsurvey eval: error:") and message in last and "Traceback" not in err




def recount(log: list[dict]) -> dict:
    """Every figure, counted again from the log alone."""
    first = [r for r in log if r["repeat"] == 0]
    by = Counter(r["outcome"] for r in first)
    need = [r for r in first if r["gold"]]
    none = [r for r in first if not r["gold"]]

    def rate(k, n):
        lo, hi = wilson(k, n)
        return {"count": k, "of": n, "rate": k / n if n else None, "low": lo, "high": hi}

    out = {"accuracy": rate(by["right"] + by["no_call"], len(first)), "tool_accuracy": rate(by["right"], len(need)),
           "skip_rate": rate(by["skip"], len(need)), "false_call_rate": rate(by["false_call"], len(none)),
           "invalid_rate": rate(by["invalid"], len(first))}
    cells = Counter((r["expected"], r["called"]) for r in first)
    tools = {}
    for (e, c), n in cells.items():
        for t in (e, c):
            if t not in ("none", "invalid"):
                tools.setdefault(t, {"expected": 0, "called": 0, "right": 0, "skipped": 0})
        if e in tools:
            tools[e]["expected"] += n
            tools[e]["skipped"] += n if c == "none" else 0
            tools[e]["right"] += n if c == e else 0
        if c in tools:
            tools[c]["called"] += n
    return out, cells, tools


def test_eval_counts_every_outcome_and_the_log_recounts_every_figure(fake, tmp_path, capsys):
    log, out = tmp_path / "log.jsonl", tmp_path / "out.json"
    assert run("--log", str(log), "--format", "json", "-o", str(out), "--concurrency", "4") == 0
    records = [json.loads(x) for x in log.read_text().splitlines()]
    doc = json.loads(out.read_text())
    assert doc["queries"] == records and len(records) == 42 + 16 == len(fake.requests)
    assert set(Counter(r["outcome"] for r in records)) == {"right", "wrong", "skip", "false_call", "invalid", "no_call"}
    rates, cells, tools = recount(records)
    for key, want in rates.items():
        assert doc["summary"][key] == want, key
    conf = doc["confusion"]
    for i, row in enumerate(conf["rows"]):
        for j, col in enumerate(conf["columns"]):
            assert conf["counts"][i][j] == cells.get((row, col), 0)
    assert sum(map(sum, conf["counts"])) == 58
    for t in doc["per_tool"]:
        mine = tools[t["tool"]]
        assert (t["expected"], t["called"], t["right"]) == (mine["expected"], mine["called"], mine["right"])
        assert t["recall"] == (mine["right"] / mine["expected"] if mine["expected"] else None)
        assert t["precision"] == (mine["right"] / mine["called"] if mine["called"] else None)
        assert t["skip_rate"] == (mine["skipped"] / mine["expected"] if mine["expected"] else None)
    by_id = {r["id"]: r for r in records}
    assert by_id["ops-01"]["outcome"] == "right" and by_id["ops-01"]["args_valid"] is True
    assert by_id["none-04"]["outcome"] == "invalid"  # a call written as text is not "no call"
    assert by_id["none-01"]["outcome"] == "false_call" and by_id["none-07"]["outcome"] == "no_call"
    assert by_id["near-01"]["outcome"] == "wrong" and len(by_id["near-01"]["calls"]) == 2
    assert by_id["near-01"]["called"] == "incidents/page_oncall"
    # the two tools named `search` were sent under other names, and the run says so
    assert "catalog/search" in capsys.readouterr().err
    sent = fake.requests[0]["body"]
    assert sent["temperature"] == 0 and sent["tool_choice"] == "auto" and len(sent["tools"]) == 63
    assert "authorization" in fake.requests[0]["headers"]


def test_rerun_sends_nothing_and_bills_nothing(fake, capsys):
    assert run("-q") == 0
    first = len(fake.requests)
    capsys.readouterr()
    assert run("-q", "--format", "json") == 0
    assert len(fake.requests) == first  # counted at the server: zero requests
    doc = json.loads(capsys.readouterr().out)
    assert doc["billed"]["requests"] == 0 and doc["billed"]["from_cache"] == 58
    assert run("-q", "--no-cache") == 0 and len(fake.requests) == 2 * first


def test_text_output_shows_rates_tables_estimate_and_caveat(fake, capsys):
    assert run("--format", "table") == 0
    cap = capsys.readouterr()
    for s in ("accuracy", "95% interval", "per tool", "confusion", "estimate:", "billed:", "says nothing about"):
        assert s in cap.out + cap.err, s
    assert "no price is known for 'local-test-model'" in cap.err
    assert run("--format", "markdown") == 0 and "| expected \\ called | " in capsys.readouterr().out


def test_failed_request_is_counted_and_not_cached(fake, capsys):
    fake.fail_next(Failure(400, {"error": {"message": "context_length_exceeded", "type": "invalid_request_error"}}))
    assert run("-q", "--format", "json") == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["failed"]) == 1 and len(doc["queries"]) == 57
    assert any("incomplete" in w for w in doc["warnings"])
    n = len(fake.requests)
    assert run("-q") == 0 and len(fake.requests) == n + 1  # only the failed one is asked again


def described(query, names, tools):
    """Calls the right tool only when its description has more than five words."""
    long = {t["function"]["name"] for t in tools if len((t["function"].get("description") or "").split()) > 5}
    if "owns" in query.lower():
        return Move([("get_owner", {"service": "x"})] if "get_owner" not in long else [])
    pick = {"PromQL": "query_metrics", "deploy": "list_deploys", "incident": "list_incidents"}
    for word, tool in pick.items():
        if word.lower() in query.lower():
            return Move([(tool, {"query": "x", "service": "x"})] if tool in long else [])
    return Move(text="ok")


def test_baseline_reports_changed_queries_mcnemar_and_costs(monkeypatch, tmp_path, capsys):
    f = FakeLLM(described)
    route(monkeypatch, f)
    monkeypatch.setenv("TOOLSURVEY_CACHE_DIR", str(tmp_path / "cache"))
    doc = json.loads((ROOT / "data" / "registries" / "ops_assistant.json").read_text())
    for server in doc["servers"].values():
        for t in server["tools"]:
            t["description"] = " ".join((t.get("description") or "").split()[:5])
    short = tmp_path / "short.json"
    short.write_text(json.dumps(doc))
    assert main(["eval", str(short), "--queries", *QUERIES, "--model", "m", "--base-url", "http://llm.test/v1",
                 "--baseline", REG, "--format", "json", "-q"]) == 0
    c = json.loads(capsys.readouterr().out)["comparison"]
    assert c["paired"] == 58 and c["changed"]
    assert c["b"] == sum(1 for x in c["changed"] if x["before"] in ("right", "no_call")
                         and x["after"] not in ("right", "no_call"))
    n = c["b"] + c["c"]
    assert c["p_value"] == min(1.0, 2 * sum(math.comb(n, i) for i in range(min(c["b"], c["c"]) + 1)) / 2 ** n)
    assert c["after"]["tokens_per_request"] < c["before"]["tokens_per_request"]
    assert c["before"]["tokens_per_completed_task"] is not None
    assert main(["eval", str(short), "--queries", *QUERIES, "--model", "m", "--base-url", "http://llm.test/v1",
                 "--baseline", REG, "--max-drop", "1", "-q"]) == 1
    assert "changed outcome" in capsys.readouterr().out


def test_fail_under_exits_1(fake, capsys):
    assert run("-q", "--fail-under", "90%") == 1
    assert "under --fail-under" in capsys.readouterr().err


@pytest.mark.parametrize("lines,message", [
    ([], "no queries"),
    (['{"id": "a", "query": "x", "gold": ["get_ownr"]}'], "closest: get_owner"),
    (['{"id": "a", "query": "x", "gold": []}', '{"id": "a", "query": "y", "gold": []}'], "ids must be unique"),
])
def test_bad_queries_are_one_line_exit_2(lines, message, fake, tmp_path, capsys):
    q = tmp_path / "q.jsonl"
    q.write_text("\n".join(lines))
    assert main(["eval", REG, "--queries", str(q), "--model", "m", "--base-url", "http://llm.test/v1"]) == 2
    err = capsys.readouterr().err
    assert one_line_error(err, message) and not fake.requests


def test_no_key_names_the_variable(fake, capsys):
    assert main(["eval", REG, "--queries", QUERIES[0], "--model", "gpt-4o"]) == 2
    err = capsys.readouterr().err
    assert one_line_error(err, "OPENAI_API_KEY") and not fake.requests


def test_estimate_over_max_cost_sends_nothing(fake, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-123")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://llm.test/v1")
    assert main(["eval", REG, "--queries", *QUERIES, "--model", "gpt-4o", "--max-cost", "0.10"]) == 2
    err = capsys.readouterr().err
    assert "over --max-cost" in err and "estimate:" in err and not fake.requests
    assert "sk-test-secret-123" not in err


def test_unreachable_server_is_one_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("TOOLSURVEY_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["eval", REG, "--queries", QUERIES[1], "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
                 "--timeout", "2", "-q"]) == 2
    err = capsys.readouterr().err
    assert one_line_error(err, "cannot be reached") and not list((tmp_path / "cache").rglob("*.json"))


def test_dry_run_prints_the_estimate_without_a_key_or_a_request(fake, monkeypatch, capsys):
    assert main(["eval", REG, "--queries", *QUERIES, "--model", "claude-sonnet-4-5", "--dry-run"]) == 0
    out = capsys.readouterr().out
    # 58 requests of 12,529 tool tokens and their own: $2.24 at $3 / $15 per million; written once and
    # read 57 times at $3.75 / $0.30 per million: $0.3165 (docs/eval.md works both out by hand)
    assert "58 of 58 requests" in out and "$2.24" in out and "$0.3165 with the tool definitions cached" in out
    assert "over --max-cost $1.00" in out and not fake.requests


def test_csv_has_one_row_per_answer(fake, capsys):
    assert run("-q", "--format", "csv") == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].startswith("id,repeat,outcome,expected,called") and len(rows) == 59
