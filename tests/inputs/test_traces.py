"""Reading real agent traces: billed tokens counted once per request, tool calls, costs, bad input."""

from __future__ import annotations

import gzip
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from _public_data import CLAUDE_CODE_LOG
from conftest import ROOT, shared

from toolsurvey.cli import main
from toolsurvey.core.tokens import get_encoding
from toolsurvey.inputs.traces.load import load_traces

O200K = get_encoding("o200k_base")  # the shipped o200k_base file, checked against tiktoken in test_tokens


def tok(text: str) -> int:
    return len(O200K.encode_ordinary(text))


def assistant(rid, usage, content=(), session="s1", ts="2026-01-05T10:00:00Z", model="claude-sonnet-4-5-20250929",
              **extra):
    return {"type": "assistant", "sessionId": session, "requestId": rid, "timestamp": ts, "uuid": f"u-{rid}-{id(usage)}",
            "message": {"id": f"msg_{rid}", "model": model, "role": "assistant", "content": list(content),
                        "usage": usage}, **extra}


def result(tid, text, error=False, session="s1"):
    return {"type": "user", "sessionId": session, "timestamp": "2026-01-05T10:00:05Z",
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": text,
                                                     **({"is_error": True} if error else {})}]}}


def use(tid, name, args):
    return {"type": "tool_use", "id": tid, "name": name, "input": args}


def write(path: Path, records, tail: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + tail)
    return path


def usage(inp, w5, w1h, read, out):
    return {"input_tokens": inp, "cache_creation_input_tokens": w5 + w1h, "cache_read_input_tokens": read,
            "cache_creation": {"ephemeral_5m_input_tokens": w5, "ephemeral_1h_input_tokens": w1h},
            "output_tokens": out}


PAYLOAD = json.dumps({"items": [{"id": 7, "title": "Login fails after timeout"}], "total": 1})


@pytest.fixture
def session(tmp_path):
    """One Claude Code session: request r1 streamed over three lines (output grows 1 -> 1 -> 250),
    then r2 in one line. r1 calls an MCP tool, whose result follows."""
    lines = [
        {"type": "user", "sessionId": "s1", "timestamp": "2026-01-05T09:59:59Z",
         "message": {"role": "user", "content": "find login bugs"}},
        assistant("r1", usage(3, 12000, 500, 0, 1), [{"type": "thinking", "thinking": "..."}]),
        assistant("r1", usage(3, 12000, 500, 0, 1), [{"type": "text", "text": "Looking."}]),
        assistant("r1", usage(3, 12000, 500, 0, 250), [use("t1", "mcp__github__search_issues", {"q": "login"})]),
        result("t1", PAYLOAD),
        assistant("r2", usage(5, 300, 0, 12500, 80), [{"type": "text", "text": "One bug."}],
                  ts="2026-01-05T10:00:09Z"),
        {"type": "summary", "summary": "login bugs", "leafUuid": "x"},
    ]
    return write(tmp_path / "proj" / "s1.jsonl", lines)


def test_streamed_request_counts_once_and_line_by_line_would_overcount(session):
    tr = load_traces(session, engine="python")
    r = tr.requests
    assert len(r) == 2
    # Worked out by hand from the fixture: r1 once (its final usage) plus r2.
    assert int(r["input_tokens"].sum()) == 3 + 5
    assert int(r["cache_write_5m"].sum()) == 12000 + 300
    assert int(r["cache_write_1h"].sum()) == 500
    assert int(r["cache_read"].sum()) == 0 + 12500
    assert int(r["output_tokens"].sum()) == 250 + 80
    # Summing every assistant line, as the naive analyzers do, counts r1's writes three times.
    naive = sum(json.loads(x)["message"]["usage"]["cache_creation_input_tokens"]
                for x in session.read_text().splitlines() if json.loads(x)["type"] == "assistant")
    assert naive == 3 * 12500 + 300
    assert int(r["cache_write"].sum()) == 12500 + 300 != naive
    assert "4 line(s) with usage -> 2 request(s)" in tr.dedup


def test_cost_uses_the_price_table_per_token_kind(session):
    tr = load_traces(session, engine="python")
    # claude-sonnet-4-5 (bundled, as of 2025-11-24): $3 input, $15 output, $3.75 5m write, $0.30 read;
    # a 1-hour write is 2 x input = $6. The trace's dated id resolves to the undated price row.
    r1 = (3 * 3 + 12000 * 3.75 + 500 * 6 + 0 * 0.30 + 250 * 15) / 1e6
    r2 = (5 * 3 + 300 * 3.75 + 0 * 6 + 12500 * 0.30 + 80 * 15) / 1e6
    assert list(tr.requests["cost"]) == pytest.approx([r1, r2])
    assert tr.sessions.loc[0, "cost"] == pytest.approx(r1 + r2)
    assert tr.totals("day")["cost"].sum() == pytest.approx(r1 + r2)


def test_tool_calls_name_server_result_tokens_and_repeats(tmp_path):
    args = {"q": "login"}
    lines = [assistant("r1", usage(1, 0, 0, 0, 5), [use("t1", "mcp__github__search_issues", args)]),
             result("t1", PAYLOAD),
             assistant("r2", usage(1, 0, 0, 0, 5), [use("t2", "mcp__github__search_issues", {"q": "login"})]),
             result("t2", [{"type": "text", "text": PAYLOAD}], error=True),
             assistant("r3", usage(1, 0, 0, 0, 5), [use("t3", "Bash", {"command": "ls"})]),
             result("t3", "a\nb")]
    tr = load_traces(write(tmp_path / "s.jsonl", lines), engine="python")
    c = tr.calls.set_index("call_id")
    assert list(c["server"].fillna("(built-in)")) == ["github", "github", "(built-in)"]
    assert list(c["tool"]) == ["search_issues", "search_issues", "Bash"]
    assert list(c["result_tokens"]) == [tok(PAYLOAD), tok(PAYLOAD), tok("a\nb")]
    assert list(c["error"]) == [False, True, False]
    assert list(c["repeated"]) == [False, True, False]
    assert c.loc["t1", "arguments_bytes"] == len('{"q":"login"}')
    by_tool = tr.totals("tool").set_index("tool")
    assert by_tool.loc["search_issues", "calls"] == 2 and by_tool.loc["search_issues", "errors"] == 1


def test_subagents_gzip_and_bad_lines_are_counted_not_fatal(tmp_path):
    root = tmp_path / "proj"
    write(root / "s1.jsonl", [assistant("r1", usage(1, 10, 0, 0, 5)),
                              {"type": "mystery", "sessionId": "s1"},
                              {"type": "assistant", "sessionId": "s1", "message": {"content": []}}],
          tail='{"type": "assistant", "sessionId": "s1", "requestId": "r9", "mess')  # still being written
    sub = root / "s1" / "subagents" / "agent-abc.jsonl"
    sub.parent.mkdir(parents=True)
    with gzip.open(str(sub) + ".gz", "wt") as f:
        f.write(json.dumps(assistant("r2", usage(2, 20, 0, 0, 7))) + "\n")
    # a resumed session repeats r1 in a second file
    write(root / "s2.jsonl", [assistant("r1", usage(1, 10, 0, 0, 5), session="s2"),
                              assistant("r3", usage(4, 0, 0, 0, 1), session="s2")])
    good = gzip.compress("".join(json.dumps(assistant(f"g{i}", usage(1, 0, 0, 0, 1), session="s3")) + "\n"
                                 for i in range(2000)).encode())
    (root / "s3.jsonl.gz").write_bytes(good[: len(good) // 2])  # cut short
    tr = load_traces(root, engine="python")
    assert set(tr.requests["request_id"]) >= {"r1", "r2", "r3"}
    assert int((tr.requests["request_id"] == "r1").sum()) == 1
    sub_rows = tr.requests[tr.requests["subagent"]]
    assert list(sub_rows["request_id"]) == ["r2"] and list(sub_rows["agent"]) == ["abc"]
    why = tr.skips.reasons
    assert why["truncated last line"] == 1
    assert why["no usage"] == 1
    assert "request seen in another file" not in why  # counted once and said in one line, not skipped per line
    assert tr.account.repeated_in == {str(root / "s2.jsonl"): [1, 1, str(root / "s1.jsonl")]}
    assert why["corrupt gzip"] == 1
    # an unknown line type is one warning per type, with its count and first place, not one per line
    text = "\n".join(tr.problems)
    assert "s1.jsonl:4: truncated last line" in text and "unknown line type 'mystery' x1 (first at" in text
    assert f"{len(tr.skips)} line(s) skipped" in tr.summary()
    # the truncated line and the rest of the cut gzip could hold usage: the totals say they are incomplete
    assert "TOTALS ARE INCOMPLETE" in tr.summary() and "1 truncated last line" in tr.summary()


def test_otel_genai_spans(tmp_path):
    def a(k, v):
        return {"key": k, "value": {"intValue": str(v)} if isinstance(v, int) else {"stringValue": v}}

    defs = [{"name": "search_issues", "description": "Search issues", "parameters": {"type": "object"}}]
    spans = [
        {"traceId": "t", "spanId": "c1", "startTimeUnixNano": "1767607200000000000", "attributes": [
            a("gen_ai.operation.name", "chat"), a("gen_ai.request.model", "gpt-4o"),
            a("gen_ai.conversation.id", "conv-1"), a("gen_ai.usage.input_tokens", 1000),
            a("gen_ai.usage.cache_read.input_tokens", 600), a("gen_ai.usage.output_tokens", 40),
            a("gen_ai.tool.definitions", json.dumps(defs))]},
        {"traceId": "t", "spanId": "x1", "startTimeUnixNano": "1767607201000000000", "status": {"code": 2},
         "attributes": [a("gen_ai.operation.name", "execute_tool"), a("gen_ai.tool.name", "mcp__gh__search_issues"),
                        a("gen_ai.tool.call.id", "call_1"), a("gen_ai.conversation.id", "conv-1"),
                        a("gen_ai.tool.call.arguments", '{"q": "x"}'), a("gen_ai.tool.call.result", PAYLOAD)]},
        {"traceId": "t", "spanId": "h1", "attributes": [a("http.method", "GET")]},
    ]
    doc = {"resourceSpans": [{"resource": {"attributes": [a("service.name", "demo")]},
                              "scopeSpans": [{"scope": {"name": "x"}, "spans": spans}]}]}
    tr = load_traces(write(tmp_path / "spans.json", [doc]), engine="python")
    assert tr.files == {str(tmp_path / "spans.json"): "otel"}
    r = tr.requests.iloc[0]
    # The conventions count cached tokens inside gen_ai.usage.input_tokens.
    assert (r["input_tokens"], r["cache_read"], r["output_tokens"]) == (400, 600, 40)
    assert r["tool_definition_tokens"] == tok(json.dumps(defs, separators=(",", ":")))
    assert r["session"] == "conv-1" and str(r["timestamp"]) == "2026-01-05 10:00:00+00:00"
    # gpt-4o, bundled: $2.50 input, $1.25 cached read, $10 output per million
    assert r["cost"] == pytest.approx((400 * 2.5 + 600 * 1.25 + 40 * 10) / 1e6)
    c = tr.calls.iloc[0]
    assert (c["server"], c["tool"], bool(c["error"]), c["result_tokens"]) == ("gh", "search_issues", True, tok(PAYLOAD))


def test_provider_logs_openai_chat_responses_and_anthropic(tmp_path):
    tools = [{"type": "function", "function": {"name": "get_issue", "parameters": {"type": "object"}}}]
    lines = [
        {"session": "a", "request": {"model": "gpt-4o", "tools": tools, "messages": [{"role": "user", "content": "hi"}]},
         "response": {"id": "chatcmpl-1", "model": "gpt-4o", "choices": [{"message": {"tool_calls": [
             {"id": "call_1", "function": {"name": "get_issue", "arguments": '{"n": 1}'}}]}}],
             "usage": {"prompt_tokens": 500, "completion_tokens": 20, "prompt_tokens_details": {"cached_tokens": 256}}}},
        {"session": "a", "request": {"model": "gpt-4o", "messages": [
            {"role": "tool", "tool_call_id": "call_1", "content": PAYLOAD}]},
         "response": {"id": "chatcmpl-2", "model": "gpt-4o", "choices": [{"message": {"content": "done"}}],
                      "usage": {"prompt_tokens": 600, "completion_tokens": 10}}},
        {"session": "b", "request": {"model": "gpt-5", "input": [
            {"type": "function_call_output", "call_id": "fc_0", "output": "ok"}]},
         "response": {"id": "resp_1", "object": "response", "model": "gpt-5", "output": [
             {"type": "function_call", "call_id": "fc_1", "name": "mcp__gh__list", "arguments": "{}"}],
             "usage": {"input_tokens": 300, "input_tokens_details": {"cached_tokens": 100}, "output_tokens": 5}}},
        {"session": "c", "request": {"model": "claude-haiku-4-5", "messages": []},
         "response": {"id": "msg_1", "type": "message", "model": "claude-haiku-4-5", "content": [],
                      "usage": {"input_tokens": 7, "cache_creation_input_tokens": 70, "cache_read_input_tokens": 700,
                                "output_tokens": 3}}},
    ]
    tr = load_traces(write(tmp_path / "log.jsonl", lines), engine="python")
    r = tr.requests.set_index("request_id")
    assert tuple(r.loc["chatcmpl-1", ["input_tokens", "cache_read", "output_tokens"]]) == (244, 256, 20)
    assert tuple(r.loc["resp_1", ["input_tokens", "cache_read", "output_tokens"]]) == (200, 100, 5)
    assert tuple(r.loc["msg_1", ["input_tokens", "cache_write_5m", "cache_read", "output_tokens"]]) == (7, 70, 700, 3)
    assert r.loc["chatcmpl-1", "tool_definition_tokens"] == tok(json.dumps(tools, separators=(",", ":")))
    c = tr.calls.set_index("call_id")
    assert c.loc["call_1", "result_tokens"] == tok(PAYLOAD) and c.loc["call_1", "tool"] == "get_issue"
    assert c.loc["fc_1", "server"] == "gh" and math.isnan(c.loc["fc_1", "result_tokens"])


def test_real_claude_code_log_fixture_matches_an_independent_sum():
    real = shared(*CLAUDE_CODE_LOG)
    recs = [json.loads(x) for x in real.read_text().splitlines() if x.strip()]
    per_request = {r["requestId"]: r["message"]["usage"] for r in recs if r.get("type") == "assistant"}
    tr = load_traces(real, engine="python")
    assert len(tr.requests) == len(per_request) == 5
    assert int(tr.requests["input_tokens"].sum()) == sum(u["input_tokens"] for u in per_request.values())
    assert int(tr.requests["output_tokens"].sum()) == sum(u["output_tokens"] for u in per_request.values())
    # Claude 3 Sonnet: $3 input and $15 output per million tokens (Anthropic's price list); no cache tokens here.
    by_hand = sum(u["input_tokens"] * 3 + u["output_tokens"] * 15 for u in per_request.values()) / 1e6
    assert float(tr.requests["cost"].sum()) == pytest.approx(by_hand, rel=1e-9)
    assert sorted(tr.calls["tool"]) == ["Bash", "Edit"]


def test_generated_claude_code_folder_matches_an_independent_sum(tmp_path):
    subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_traces.py"), "claude-code",
                    str(tmp_path), "--sessions", "4", "--steps", "5"], check=True, capture_output=True)
    final: dict[str, int] = {}
    lines = 0
    for f in sorted(tmp_path.rglob("*.jsonl")):
        for x in f.read_text().splitlines():
            rec = json.loads(x)
            if rec.get("type") == "assistant":
                lines += 1
                final[rec["requestId"]] = max(final.get(rec["requestId"], 0), rec["message"]["usage"]["output_tokens"])
    tr = load_traces(tmp_path, engine="python")
    assert lines > len(final) == len(tr.requests)
    assert int(tr.requests["output_tokens"].sum()) == sum(final.values())
    assert tr.requests["subagent"].any()


def test_cli_traces_prints_totals_and_exits_2_on_bad_path(session, tmp_path, capsys):
    assert main(["traces", str(session.parent), "--by", "tool", "--format", "json", "--engine", "python"]) == 0
    out = capsys.readouterr()
    rows = json.loads(out.out)["rows"]
    assert rows[0]["tool"] == "search_issues" and rows[0]["server"] == "github"
    assert "deduplicated:" in out.err
    assert main(["traces", str(tmp_path / "nope"), "--engine", "python"]) == 2
    assert "no such file" in capsys.readouterr().err



def test_a_model_without_a_price_is_a_counted_warning_and_no_cost(tmp_path):
    lines = shared(*CLAUDE_CODE_LOG).read_text().replace("claude-3-sonnet-20240229", "in-house-model-7")
    tr = load_traces(write(tmp_path / "s.jsonl", [json.loads(x) for x in lines.splitlines() if x.strip()]),
                     engine="python")
    assert tr.requests["cost"].isna().all()
    assert any("in-house-model-7" in w and "no price" in w for w in tr.warnings)


def test_an_integer_past_pythons_digit_limit_is_not_a_trace_and_not_a_crash(tmp_path, capsys):
    # int('9' * 5000) raises ValueError, not JSONDecodeError: detection must treat the file as no trace.
    f = tmp_path / "big.json"
    f.write_text('{"n": ' + "9" * 5000 + "}")
    assert main(["responses", str(f), "--format", "csv"]) == 0
    assert "not JSON" in capsys.readouterr().err
