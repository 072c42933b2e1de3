"""Provider request logs (JSONL of {request, response}): Anthropic Messages, OpenAI Chat Completions and
Responses; the response carries usage and tool calls, the request the tool results sent back."""

from __future__ import annotations

from ...core.jsonlines import documents
from ...providers.catalog import logged_tool_calls, logged_tool_results, logged_usage
from .collector import Collector, where
from .fields import definitions, result_text, split_name, stem


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
                      str(resp.get("model") or req.get("model") or ""), logged_usage(u),
                      definitions=definitions(tools) if tools else None)
        for call_id, name, args in logged_tool_calls(resp):
            server, tool = split_name(str(name))
            c.call(str(call_id), at, ts, tool, server, args)
        for call_id, content, err in () if c.lean else logged_tool_results(req):
            c.result(call_id, result_text(content), err)
