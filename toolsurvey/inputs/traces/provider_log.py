"""Provider request logs (JSONL of {request, response}): Anthropic Messages, OpenAI Chat Completions and
Responses; the response carries usage and tool calls, the request the tool results sent back."""

from __future__ import annotations

from ...core.jsonlines import documents
from .collector import Collector, where
from .fields import anthropic_usage, definitions, non_negative, result_text, split_name, stem


def provider_log(path: str, c: Collector) -> None:
    """Add the request/response pairs of one provider log to `c`."""
    for n, rec in documents(path, c.skips):
        if not isinstance(rec, dict) or not isinstance(rec.get("response"), dict):
            c.skips.add(path, n, "expected an object with request and response", "not a request log line")
            continue
        req = rec.get("request") if isinstance(rec.get("request"), dict) else {}
        resp = rec["response"]
        session = str(rec.get("session") or rec.get("session_id") or stem(path))
        ts = rec.get("timestamp")
        u = resp.get("usage") if isinstance(resp.get("usage"), dict) else None
        at = where(session, False, "", "")
        if u is None:
            c.skips.add(path, n, "response without usage", "no usage")
        else:
            tools = req.get("tools")
            c.request(str(resp.get("id") or rec.get("id") or f"{path}:{n}"), path, n, at, ts,
                      str(resp.get("model") or req.get("model") or ""), _usage(u),
                      definitions=definitions(tools) if tools else None)
        for call_id, name, args in _calls(resp):
            server, tool = split_name(name)
            c.call(call_id, at, ts, tool, server, args)
        for call_id, text, err in () if c.lean else _results(req):
            c.result(call_id, text, err)


def _usage(u: dict) -> tuple[int, ...]:
    """USAGE_FIELDS of a response's usage."""
    if "prompt_tokens" in u:  # OpenAI Chat Completions: cached tokens are inside prompt_tokens
        read = non_negative((u.get("prompt_tokens_details") or {}).get("cached_tokens"))
        return max(non_negative(u["prompt_tokens"]) - read, 0), 0, 0, read, non_negative(u.get("completion_tokens"))
    if "input_tokens_details" in u:  # OpenAI Responses: likewise inside input_tokens
        read = non_negative((u.get("input_tokens_details") or {}).get("cached_tokens"))
        return max(non_negative(u.get("input_tokens")) - read, 0), 0, 0, read, non_negative(u.get("output_tokens"))
    return anthropic_usage(u)  # Anthropic Messages: input_tokens excludes cache reads and writes


def _calls(resp: dict):
    for b in resp.get("content") or []:  # Anthropic
        if isinstance(b, dict) and b.get("type") == "tool_use":
            yield str(b.get("id")), str(b.get("name", "")), b.get("input")
    for ch in resp.get("choices") or []:  # OpenAI Chat
        for tc in ((ch or {}).get("message") or {}).get("tool_calls") or []:
            fn = tc.get("function") or {}
            yield str(tc.get("id")), str(fn.get("name", "")), fn.get("arguments")
    for item in resp.get("output") or []:  # OpenAI Responses
        if isinstance(item, dict) and item.get("type") == "function_call":
            yield str(item.get("call_id") or item.get("id")), str(item.get("name", "")), item.get("arguments")


def _results(req: dict):
    for m in req.get("messages") or []:
        if not isinstance(m, dict):
            continue
        if m.get("role") == "tool" and m.get("tool_call_id"):  # OpenAI Chat
            yield str(m["tool_call_id"]), result_text(m.get("content")), False
        elif isinstance(m.get("content"), list):  # Anthropic
            for b in m["content"]:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    yield str(b.get("tool_use_id")), result_text(b.get("content")), b.get("is_error") is True
    for item in req.get("input") if isinstance(req.get("input"), list) else []:  # OpenAI Responses
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            yield str(item.get("call_id")), result_text(item.get("output")), False
