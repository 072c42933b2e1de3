"""OpenTelemetry GenAI spans (OTLP JSON): chat spans carry requests, execute_tool spans tool calls and results."""

from __future__ import annotations

from typing import Any

from ...core.jsonlines import documents
from .collector import Collector, where
from .fields import definitions, non_negative, result_text, split_name, stem

CHAT_OPS = {"chat", "text_completion", "generate_content"}


def _value(v: Any) -> Any:
    if not isinstance(v, dict):
        return v
    for k in ("stringValue", "boolValue", "doubleValue"):
        if k in v:
            return v[k]
    if "intValue" in v:  # int64 is a JSON string in OTLP JSON
        return non_negative(v["intValue"])
    if "arrayValue" in v:
        return [_value(x) for x in v["arrayValue"].get("values", [])]
    return None


def _attrs(items: Any) -> dict[str, Any]:
    return {a["key"]: _value(a.get("value")) for a in items or [] if isinstance(a, dict) and "key" in a}


def otel(path: str, c: Collector) -> None:
    """Add the GenAI spans of one OTLP JSON file (one TracesData object per line) to `c`."""
    for n, doc in documents(path, c.skips):
        if not isinstance(doc, dict) or "resourceSpans" not in doc:
            c.skips.add(path, n, "expected an OTLP TracesData object with resourceSpans", "not OTLP traces")
            continue
        for rs in doc["resourceSpans"] or []:
            res = _attrs((rs.get("resource") or {}).get("attributes"))
            for ss in rs.get("scopeSpans") or rs.get("instrumentationLibrarySpans") or []:
                for span in ss.get("spans") or []:
                    _span(path, n, span, res, c)


def _span(path: str, n: int, span: dict, res: dict, c: Collector) -> None:
    a = _attrs(span.get("attributes"))
    op = a.get("gen_ai.operation.name")
    session = str(a.get("gen_ai.conversation.id") or a.get("session.id") or res.get("session.id")
                  or span.get("traceId") or stem(path))
    ts = non_negative(span.get("startTimeUnixNano")) or None
    if op in CHAT_OPS:
        if "gen_ai.usage.input_tokens" not in a and "gen_ai.usage.output_tokens" not in a:
            c.skips.add(path, n, f"{op} span {span.get('spanId')} has no gen_ai.usage attributes", "no usage")
            return
        read = non_negative(a.get("gen_ai.usage.cache_read.input_tokens"))
        write = non_negative(a.get("gen_ai.usage.cache_creation.input_tokens"))
        # The conventions count cached tokens inside gen_ai.usage.input_tokens.
        uncached = max(non_negative(a.get("gen_ai.usage.input_tokens")) - read - write, 0)
        defs = a.get("gen_ai.tool.definitions")
        c.request(str(span.get("spanId") or f"{path}:{n}"), path, n,
                  where(session, False, str(a.get("gen_ai.agent.name") or ""), ""), ts,
                  str(a.get("gen_ai.response.model") or a.get("gen_ai.request.model") or ""),
                  (uncached, write, 0, read, non_negative(a.get("gen_ai.usage.output_tokens"))),
                  definitions=definitions(defs))
    elif op == "execute_tool":
        call_id = str(a.get("gen_ai.tool.call.id") or span.get("spanId") or f"{path}:{n}")
        server, tool = split_name(str(a.get("gen_ai.tool.name") or ""))
        c.call(call_id, where(session, False, "", ""), ts, tool, server, a.get("gen_ai.tool.call.arguments"))
        status = (span.get("status") or {}).get("code")
        err = status in (2, "STATUS_CODE_ERROR") or bool(a.get("error.type"))
        result = a.get("gen_ai.tool.call.result")
        if not c.lean:
            c.result(call_id, None if result is None else result_text(result), err)
    else:
        c.other_lines += 1
