"""Traces as queries: each prompt, with the registry tools called before the next one. The traces are
written here in the three formats, so the expected queries are known by construction."""

from __future__ import annotations

import json

import pytest

import toolsurvey as ts
from toolsurvey.errors import InputError


def reg():
    return ts.Registry.from_tools([ts.Tool("search_tickets", "Search tickets.", server="tickets"),
                                   ts.Tool("create_ticket", "Create a ticket.", server="tickets"),
                                   ts.Tool("notify_channel", "Post to Slack.", server="comms")])


def lines(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def user(text, session="s1"):
    return {"type": "user", "sessionId": session, "message": {"role": "user", "content": text}}


def assistant(*names, session="s1"):
    return {"type": "assistant", "sessionId": session, "requestId": f"r{names}",
            "message": {"model": "claude-sonnet-4-5", "usage": {"input_tokens": 1, "output_tokens": 1},
                        "content": [{"type": "tool_use", "id": f"t{i}{n}", "name": n, "input": {}}
                                    for i, n in enumerate(names)]}}


def test_claude_code_prompts_and_the_mcp_tools_then_called(tmp_path):
    p = lines(tmp_path / "s1.jsonl", [
        user("find the login bugs"), assistant("mcp__tickets__search_tickets", "Read"),
        {"type": "user", "sessionId": "s1", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t0", "content": "ok"}]}},  # a tool result: not a prompt
        assistant("mcp__tickets__create_ticket", "mcp__tickets__search_tickets"),
        user("<command-name>/clear</command-name>"),                          # a client command: not a prompt
        user("tell the team"), assistant("mcp__comms__notify_channel"),
        user("thanks!"), assistant("Bash"),                                     # no registry tool: left out
    ])
    q = ts.queries_from_traces(p, reg())
    assert [(x.query, x.gold) for x in q] == [
        ("find the login bugs", ("tickets/search_tickets", "tickets/create_ticket")),
        ("tell the team", ("comms/notify_channel",))]
    assert "3 prompts read; 2 called registry tools" in q.warnings[0] and "Bash" in q.warnings[1]
    ev = ts.retrieval_eval(reg(), q)
    assert ev.summary["queries"] == 2


def test_provider_log_and_otel(tmp_path):
    log = lines(tmp_path / "log.jsonl", [
        {"session": "a", "request": {"messages": [{"role": "user", "content": "post the outage note"}]},
         "response": {"usage": {"input_tokens": 1, "output_tokens": 1},
                      "content": [{"type": "tool_use", "id": "1", "name": "notify_channel", "input": {}}]}},
        {"session": "a", "request": {"messages": [{"role": "user", "content": "post the outage note"},
                                                  {"role": "assistant", "content": "done"}]},
         "response": {"usage": {"prompt_tokens": 1, "completion_tokens": 1}, "choices": [{"message": {
             "tool_calls": [{"id": "2", "function": {"name": "create_ticket", "arguments": "{}"}}]}}]}},
    ])
    q = ts.queries_from_traces(log, reg())
    assert [(x.query, x.gold) for x in q] == [("post the outage note", ("comms/notify_channel", "tickets/create_ticket"))]
    attr = lambda k, v: {"key": k, "value": {"stringValue": v}}
    spans = [{"traceId": "t", "startTimeUnixNano": "1", "attributes": [
                  attr("gen_ai.operation.name", "chat"), attr("gen_ai.conversation.id", "c"),
                  attr("gen_ai.input.messages", json.dumps([{"role": "user", "parts": [
                      {"type": "text", "content": "open a ticket for the crash"}]}]))]},
             {"traceId": "t", "startTimeUnixNano": "2", "attributes": [
                  attr("gen_ai.operation.name", "execute_tool"), attr("gen_ai.conversation.id", "c"),
                  attr("gen_ai.tool.name", "create_ticket")]}]
    otlp = tmp_path / "otel.json"
    otlp.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}) + "\n")
    q = ts.queries_from_traces(otlp, reg())
    assert [(x.query, x.gold) for x in q] == [("open a ticket for the crash", ("tickets/create_ticket",))]


def test_traces_of_another_registry_are_one_clear_error(tmp_path, cli):
    p = lines(tmp_path / "s1.jsonl", [user("hello"), assistant("Bash")])
    with pytest.raises(InputError, match="none was followed by a call to a tool of this registry"):
        ts.queries_from_traces(p, reg())
    path = tmp_path / "reg.json"
    path.write_text(json.dumps([{"name": "x_tool", "description": "x", "inputSchema": {"type": "object"}}]))
    code, out, err = cli("retrieval", path, "--traces", p)
    assert code == 2 and "Traceback" not in err


def test_sample_traces_give_queries_for_the_sample_registry(cli):
    code, out, err = cli("retrieval", "data/registries/ops_assistant.json", "--traces", "data/traces", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["summary"]["queries"] >= 5
