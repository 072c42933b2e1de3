"""`toolsurvey eval --defer anthropic-bm25|anthropic-regex`: Anthropic's server-side tool search,
through the official `anthropic` SDK over an `httpx.MockTransport` (tests/fake_llm.py) that answers
in the shape the Tool search tool documentation gives (Anthropic documentation, "Tool search tool":
request, response format and error handling; the SDK's own types agree: ToolSearchToolBm25_20251119Param,
ServerToolUseBlock, ToolSearchToolResultBlock, ToolSearchToolSearchResultBlock, ToolReferenceBlock):

    request:  tools = [{"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
                       {...a tool..., "defer_loading": true}, ...]
    answer:   content = [server_tool_use {id, name, input: {query}},
                         tool_search_tool_result {tool_use_id, content: tool_search_tool_search_result
                                                  {tool_references: [{type: tool_reference, tool_name}]}},
                         tool_use {...}]
              usage.server_tool_use.tool_search_requests

Checked: the request body as sent, and the figures read back, worked by hand per query."""

from __future__ import annotations

import json

import pytest
from conftest import run_cli
from fake_llm import FakeLLM, Move, route

pytest.importorskip("anthropic")
pytest.importorskip("jsonschema")

REGISTRY = {"servers": {"desk": {"tools": [
    {"name": "weather_forecast", "description": "Get the weather forecast for a city.",
     "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
    {"name": "send_email", "description": "Send an email message to a recipient.",
     "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}}}},
    {"name": "list_files", "description": "List the files in a folder.",
     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}]}}}
QUERIES = [{"id": "q1", "query": "Will it rain in Paris?", "gold": ["desk/weather_forecast"]},
           {"id": "q2", "query": "Mail Ana the report.", "gold": ["desk/send_email"]},
           {"id": "q3", "query": "Hello!", "gold": []},
           {"id": "q4", "query": "What is in /tmp?", "gold": ["desk/list_files"]}]


class ServerSearch(FakeLLM):
    """Messages answers with the server's searches in them, scripted per query:
    q1: one search finding weather_forecast and send_email, then a call to weather_forecast;
    q2: one search ending in a tool_search_tool_result_error ("unavailable"), then text;
    q3: text, no search;
    q4: two searches (the first finds nothing, the second list_files), then a call to send_email."""

    def _messages_answer(self, body):
        q = body["messages"][-1]["content"]
        name = body["tools"][0]["name"]

        def search(i, query, found=None, error=None):
            content = ({"type": "tool_search_tool_result_error", "error_code": error} if error else
                       {"type": "tool_search_tool_search_result",
                        "tool_references": [{"type": "tool_reference", "tool_name": n} for n in found]})
            return [{"type": "server_tool_use", "id": f"srvtoolu_0{i}", "name": name, "input": {"query": query}},
                    {"type": "tool_search_tool_result", "tool_use_id": f"srvtoolu_0{i}", "content": content}]

        def use(tool, args):
            return [{"type": "tool_use", "id": "toolu_01", "name": tool, "input": args}]

        script = {"Will it rain in Paris?": (search(1, "weather", ["weather_forecast", "send_email"])
                                             + use("weather_forecast", {"city": "Paris"}), 1),
                  "Mail Ana the report.": (search(1, "email", error="unavailable")
                                           + [{"type": "text", "text": "The search failed."}], 1),
                  "Hello!": ([{"type": "text", "text": "Hello!"}], 0),
                  "What is in /tmp?": (search(1, "folder contents", []) + search(2, "files", ["list_files"])
                                       + use("send_email", {"to": "ana"}), 2)}
        content, searches = script[q]
        usage = {"input_tokens": 700, "output_tokens": 40, "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0}
        if searches:
            usage["server_tool_use"] = {"tool_search_requests": searches}
        calls = any(b["type"] == "tool_use" for b in content)
        return {"id": "msg_01", "type": "message", "role": "assistant", "model": body["model"], "content": content,
                "stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None, "usage": usage}


@pytest.fixture
def fake(monkeypatch, tmp_path):
    f = ServerSearch(lambda *a: Move())
    route(monkeypatch, f)
    monkeypatch.setenv("TOOLSURVEY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0000")
    return f


@pytest.fixture
def files(tmp_path):
    reg, qs = tmp_path / "reg.json", tmp_path / "q.jsonl"
    reg.write_text(json.dumps(REGISTRY))
    qs.write_text("".join(json.dumps(q) + "\n" for q in QUERIES))
    return reg, qs


def test_bm25_request_as_documented_and_server_searches_read_back(fake, files, tmp_path):
    reg, qs = files
    log, out = tmp_path / "log.jsonl", tmp_path / "out.json"
    code = run_cli("eval", reg, "--queries", qs, "--model", "claude-sonnet-4-5", "--defer", "anthropic-bm25",
                   "--log", log, "--format", "json", "-o", out, "-q")
    assert code == 0
    sent = [r["body"] for r in fake.requests if r["path"].endswith("/messages")]
    assert len(sent) == 4  # one request per query: the searches run on the server
    for body in sent:
        tools = body["tools"]
        assert tools[0] == {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}
        assert [t["name"] for t in tools[1:]] == ["weather_forecast", "send_email", "list_files"]
        assert all(t["defer_loading"] is True for t in tools[1:])
        assert all("cache_control" not in t for t in tools)
        assert tools[1]["input_schema"]["required"] == ["city"] and tools[1]["description"].startswith("Get the")
        assert body["tool_choice"] == {"type": "auto"}
    by = {r["id"]: r for r in (json.loads(x) for x in log.read_text().splitlines())}
    assert {i: r["outcome"] for i, r in by.items()} == {"q1": "right", "q2": "skip", "q3": "no_call", "q4": "wrong"}
    d = {i: r["defer"] for i, r in by.items()}
    assert {i: x["searched"] for i, x in d.items()} == {"q1": True, "q2": True, "q3": False, "q4": True}
    assert {i: x["found_gold"] for i, x in d.items()} == {"q1": True, "q2": False, "q3": None, "q4": True}
    assert {i: x["search_requests"] for i, x in d.items()} == {"q1": 1, "q2": 1, "q3": 0, "q4": 2}
    assert d["q1"]["searches"] == [{"query": "weather",
                                    "found": ["desk/weather_forecast", "desk/send_email"]}]
    assert d["q2"]["searches"] == [{"query": "email", "found": [], "error": "unavailable"}]
    assert d["q4"]["loaded"] == ["desk/list_files"]
    assert all(x["extra_requests"] == 0 and x["extra_input_tokens"] is None for x in d.values())
    s = json.loads(out.read_text())["defer"]
    assert (s["searched"]["count"], s["searched"]["of"]) == (3, 4)
    assert (s["search_found_gold"]["count"], s["search_found_gold"]["of"]) == (2, 3)  # q1, q4 of q1, q2, q4
    assert (s["end_to_end"]["count"], s["end_to_end"]["of"]) == (1, 3)  # q1 of the three needing a tool
    assert s["search_requests"] == 4 and s["extra_requests"] == 0 and s["extra_input_tokens"] is None


def test_regex_variant_sends_its_own_tool_and_unsupported_models_are_one_line(fake, files, tmp_path, capsys):
    reg, qs = files
    code = run_cli("eval", reg, "--queries", qs, "--model", "claude-sonnet-4-5", "--defer", "anthropic-regex",
                   "-q", "--format", "json", "-o", tmp_path / "o.json")
    assert code == 0
    first = next(r["body"] for r in fake.requests if r["path"].endswith("/messages"))
    assert first["tools"][0] == {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}
    code, _, err = run_cli("eval", reg, "--queries", qs, "--model", "claude-3-haiku-20240307",
                           "--defer", "anthropic-bm25", "-q", capsys=capsys)
    assert code == 2 and "not documented for model" in err and "Traceback" not in err


def test_dry_run_estimate_states_one_search_per_query(fake, files, capsys):
    reg, qs = files
    code, out, _ = run_cli("eval", reg, "--queries", qs, "--model", "claude-sonnet-4-5", "--defer", "anthropic-bm25",
                           "--dry-run", capsys=capsys)
    assert code == 0 and "4 of 4 requests" in out
    assert "one server-side search per query loading 5 tools" in " ".join(out.split())
    assert not [r for r in fake.requests if r["path"].endswith("/messages")]
