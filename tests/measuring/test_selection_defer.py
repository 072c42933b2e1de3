"""`toolsurvey eval --defer client` through the fake Chat Completions server (tests/fake_llm.py): the
model is scripted per query, so every figure is worked out by hand here, and the wire is read back
as the second oracle (what the model was shown, what the harness answered to its search).

The registry: four tools with no words in common, so BM25 on a search for "weather forecast" finds
the weather tool alone (every other tool scores 0), and a search for "zebra" finds nothing."""

from __future__ import annotations

import json

import pytest
from conftest import run_cli
from fake_llm import Move, serve

pytest.importorskip("openai")
pytest.importorskip("jsonschema")

REGISTRY = {"servers": {"desk": {"tools": [
    {"name": "weather_forecast", "description": "Get the weather forecast for a city.",
     "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
    {"name": "send_email", "description": "Send an email message to a recipient.",
     "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}}}},
    {"name": "create_invoice", "description": "Create an invoice for a customer order.",
     "inputSchema": {"type": "object", "properties": {"amount": {"type": "number"}}}},
    {"name": "list_files", "description": "List the files in a folder.",
     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}]}}}

QUERIES = [
    {"id": "q1", "query": "Will it rain in Paris tomorrow?", "gold": ["desk/weather_forecast"]},
    {"id": "q2", "query": "Mail the report to Ana.", "gold": ["desk/send_email"]},
    {"id": "q3", "query": "Hello there!", "gold": []},
    {"id": "q4", "query": "Bill the customer 40 dollars.", "gold": ["desk/create_invoice"]},
    {"id": "q5", "query": "What files are in /tmp?", "gold": ["desk/list_files"]},
]

# What the scripted model does for each query (by its first user message):
# q1 searches "weather forecast", is given weather_forecast, calls it: right after a search.
# q2 searches "zebra", finds nothing, answers in text: a skip after a search that missed.
# q3 answers in text at once: rightly no call, no search.
# q4 calls create_invoice straight from the listed names, never loaded: invalid, no search.
# q5 searches "weather forecast again" in every request: still searching at the last (3rd) request,
#    a skip, after searches that found only the weather tool.
SEARCH_FOR = {"q1": "weather forecast", "q2": "zebra", "q5": "weather forecast again"}


def decide(query, names, tools):
    if query.startswith("{"):  # the harness's answer to a search: a tool message
        searched = json.loads(query)["query"]
        if searched == "zebra":
            return Move(text="I could not find a tool for that.")
        if searched == "weather forecast again":
            return Move(calls=[("tool_search", {"query": searched})])
        return Move(calls=[("weather_forecast", {"city": "Paris"})])
    qid = next(q["id"] for q in QUERIES if q["query"] == query)
    if qid in SEARCH_FOR:
        return Move(calls=[("tool_search", {"query": SEARCH_FOR[qid]})])
    if qid == "q4":
        return Move(calls=[("create_invoice", {"amount": 40})])
    return Move(text="Hello!")


@pytest.fixture
def files(tmp_path):
    reg, qs = tmp_path / "reg.json", tmp_path / "q.jsonl"
    reg.write_text(json.dumps(REGISTRY))
    qs.write_text("".join(json.dumps(q) + "\n" for q in QUERIES))
    return reg, qs


def run(files, tmp_path, *extra):
    reg, qs = files
    log, out = tmp_path / "log.jsonl", tmp_path / "out.json"
    code = run_cli("eval", reg, "--queries", qs, "--model", "local", "--base-url", "http://llm.test/v1",
                   "--defer", "client", "--log", log, "--format", "json", "-o", out, "-q", *extra)
    return code, [json.loads(x) for x in log.read_text().splitlines()], json.loads(out.read_text())


def test_client_mode_every_record_and_rate_worked_by_hand(monkeypatch, tmp_path, files):
    fake = serve(monkeypatch, tmp_path, decide)
    code, log, doc = run(files, tmp_path)
    assert code == 0
    by = {r["id"]: r for r in log}
    assert {i: r["outcome"] for i, r in by.items()} == {"q1": "right", "q2": "skip", "q3": "no_call",
                                                        "q4": "invalid", "q5": "skip"}
    d = {i: r["defer"] for i, r in by.items()}
    assert all(x["mode"] == "client" for x in d.values())
    assert {i: x["searched"] for i, x in d.items()} == {"q1": True, "q2": True, "q3": False, "q4": False, "q5": True}
    assert {i: x["found_gold"] for i, x in d.items()} == {"q1": True, "q2": False, "q3": None, "q4": None,
                                                          "q5": False}
    assert {i: x["extra_requests"] for i, x in d.items()} == {"q1": 1, "q2": 1, "q3": 0, "q4": 0, "q5": 2}
    assert d["q1"]["searches"] == [{"query": "weather forecast", "found": ["desk/weather_forecast"]}]
    assert d["q2"]["searches"] == [{"query": "zebra", "found": []}]
    assert d["q5"]["exhausted"] is True and d["q5"]["rounds"] == 3 and by["q5"]["reason"].startswith("still searching")
    assert by["q4"]["reason"] == "tool 'create_invoice' was not offered"
    # the fake bills 1000 input and 20 output tokens per request
    assert {i: x["extra_input_tokens"] for i, x in d.items()} == {"q1": 1000, "q2": 1000, "q3": 0, "q4": 0, "q5": 2000}
    assert by["q5"]["usage"]["input"] == 3000 and by["q5"]["usage"]["output"] == 60
    s = doc["defer"]
    assert (s["searched"]["count"], s["searched"]["of"]) == (3, 5)
    assert (s["search_found_gold"]["count"], s["search_found_gold"]["of"]) == (1, 3)  # q1 of q1, q2, q5
    assert (s["end_to_end"]["count"], s["end_to_end"]["of"]) == (1, 4)  # q1 of the four needing a tool
    assert s["extra_requests"] == 4 and s["extra_input_tokens"] == 4000 and s["rounds_exhausted"] == 1
    assert s["extra_requests_per_query"] == pytest.approx(4 / 5)
    # the wire: 2 + 2 + 1 + 1 + 3 requests; the first of each shows only the search tool, the names listed
    chats = [r["body"] for r in fake.requests if r["path"].endswith("/chat/completions")]
    assert len(chats) == 9
    firsts = [b for b in chats if len(b["messages"]) == 2]
    assert len(firsts) == 5
    for b in firsts:
        assert [t["function"]["name"] for t in b["tools"]] == ["tool_search"]
        listed = b["messages"][0]["content"].splitlines()
        assert b["messages"][0]["role"] == "system" and listed[1:] == ["weather_forecast", "send_email",
                                                                       "create_invoice", "list_files"]
    second = next(b for b in chats if len(b["messages"]) == 4 and "Paris" in b["messages"][1]["content"])
    assert [t["function"]["name"] for t in second["tools"]] == ["tool_search", "weather_forecast"]
    call, reply = second["messages"][2], second["messages"][3]
    assert call["role"] == "assistant" and call["tool_calls"][0]["function"]["name"] == "tool_search"
    assert reply["role"] == "tool" and reply["tool_call_id"] == call["tool_calls"][0]["id"]
    assert json.loads(reply["content"]) == {"query": "weather forecast", "matches": ["weather_forecast"],
                                            "total_deferred_tools": 4}


def test_a_rerun_replays_each_conversation_from_the_cache(monkeypatch, tmp_path, files):
    fake = serve(monkeypatch, tmp_path, decide)
    _, log, _ = run(files, tmp_path)
    sent = len(fake.requests)
    _, again, doc = run(files, tmp_path)
    assert len(fake.requests) == sent
    assert [r["defer"] for r in again] == [r["defer"] for r in log]
    assert doc["billed"]["requests"] == 0 and doc["billed"]["from_cache"] == 5


def test_names_left_out_csv_and_text_views(monkeypatch, tmp_path, files, capsys):
    fake = serve(monkeypatch, tmp_path, decide)
    reg, qs = files
    code, out, _ = run_cli("eval", reg, "--queries", qs, "--model", "local", "--base-url", "http://llm.test/v1",
                           "--defer", "client", "--no-deferred-names", "--format", "csv", "-q", capsys=capsys)
    assert code == 0
    first = next(r["body"] for r in fake.requests if r["path"].endswith("/chat/completions"))
    assert [m["role"] for m in first["messages"]] == ["user"]  # no system message: nothing listed
    rows = out.splitlines()
    assert rows[0].endswith("defer_mode,defer_searched,defer_found_gold,defer_search_requests,defer_extra_requests,"
                            "defer_extra_input_tokens,defer_extra_output_tokens")
    assert len(rows) == 6
    code, out, _ = run_cli("eval", reg, "--queries", qs, "--model", "local", "--base-url", "http://llm.test/v1",
                           "--defer", "client", "-q", capsys=capsys)
    assert "deferred loading (client)" in out and "3 of 5" in out and "1 of 4" in out
    code, out, _ = run_cli("eval", reg, "--queries", qs, "--model", "local", "--base-url", "http://llm.test/v1",
                           "--defer", "client", "-q", "--format", "markdown", capsys=capsys)
    assert "| right tool in the end (of queries needing a tool): end to end | 25.0%" in out


def test_dry_run_states_the_estimate_assumption_and_bad_flags_are_one_line(monkeypatch, tmp_path, files, capsys):
    serve(monkeypatch, tmp_path, decide)
    reg, qs = files
    code, out, _ = run_cli("eval", reg, "--queries", qs, "--model", "local", "--base-url", "http://llm.test/v1",
                           "--defer", "client", "--dry-run", capsys=capsys)
    assert code == 0 and "15 requests" in out  # 5 queries x 3 requests, the worst case
    assert "worst case" in " ".join(out.split())
    code, _, err = run_cli("eval", reg, "--queries", qs, "--model", "local", "--base-url", "http://llm.test/v1",
                           "--search-k", "3", capsys=capsys)
    assert code == 2 and "--defer client" in err and "Traceback" not in err
    code, _, err = run_cli("eval", reg, "--queries", qs, "--model", "local", "--base-url", "http://llm.test/v1",
                           "--defer", "anthropic-bm25", capsys=capsys)
    assert code == 2 and "anthropic-messages" in err and len(err.strip().splitlines()) == 1
