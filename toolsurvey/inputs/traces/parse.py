"""Record parsers for the three trace sources, and per-file format detection.

Each parser walks one file's records and adds to a `Collector`: requests keyed by their id (so a
request streamed as several lines, or seen again in a resumed session's file, counts once), tool
calls keyed by call id, and tool results keyed by the call id they answer.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core.choices import TRACE_FORMATS
from ...core.jsonlines import Skips, documents, head

FORMATS = TRACE_FORMATS
USAGE_FIELDS = ("input_tokens", "cache_write_5m", "cache_write_1h", "cache_read", "output_tokens")
# Claude Code line types that are not model requests or tool results: read and passed over.
CLAUDE_OTHER = {"summary", "system", "file-history-snapshot", "queue-operation", "progress", "custom-title",
                "tag", "agent-name", "last-prompt", "pr-link", "attachment", "cost-state", "mode"}
CHAT_OPS = {"chat", "text_completion", "generate_content"}


# Rows are stored as lists in these column orders (a dict per row would take several times the memory).
REQUEST_FIELDS = ("session", "subagent", "agent", "timestamp", "model", "tool_definition_tokens", *USAGE_FIELDS,
                  "request_id", "file", "line", "lines")
CALL_FIELDS = ("session", "subagent", "agent", "timestamp", "tool", "server", "arguments")
_AT = {f: i for i, f in enumerate(REQUEST_FIELDS)}
_USAGE_AT = [_AT[f] for f in USAGE_FIELDS]
_TEXT, _ERROR, _TOKENS = 0, 1, 2  # a result: [text, is_error, tokens]


def _intern(v: Any) -> Any:
    return sys.intern(v) if isinstance(v, str) else v


@dataclass
class Collector:
    """What the parsers found across all files of one load."""

    requests: dict[str, list] = field(default_factory=dict)
    calls: dict[str, tuple] = field(default_factory=dict)
    results: dict[str, list] = field(default_factory=dict)
    skips: Skips = field(default_factory=Skips)
    usage_lines: int = 0          # lines (or spans) that carried usage
    duplicate_files: int = 0      # request lines skipped because another file had the request
    other_lines: int = 0          # known records that are neither requests nor tool results
    files: dict[str, str] = field(default_factory=dict)

    def request(self, key: str, file: str, line: int, row: dict) -> None:
        """Count a request's usage once: streamed lines of one request keep each field's largest value."""
        self.usage_lines += 1
        old = self.requests.get(key)
        if old is None:
            self.requests[key] = [_intern(row["session"]), row["subagent"], _intern(row["agent"]), row["timestamp"],
                                  _intern(row["model"]), row["tool_definition_tokens"],
                                  *(row[f] for f in USAGE_FIELDS), key, _intern(file), line, [line]]
            return
        if old[_AT["file"]] != file:
            self._seen_elsewhere(key, file, line, old)
            return
        old[_AT["lines"]].append(line)
        for f, i in zip(USAGE_FIELDS, _USAGE_AT, strict=True):
            if row[f] > old[i]:
                old[i] = row[f]
        if not old[_AT["model"]]:
            old[_AT["model"]] = _intern(row["model"])

    def format_of(self, file: str, format: str = "auto") -> str | None:
        """`file`'s trace format (detected when `format` is "auto"), recorded; None, with a counted skip,
        when it is none this reader knows."""
        fmt = detect(file) if format == "auto" else format
        if fmt is None:
            self.skips.add(file, 0, "not a trace file this reader knows (Claude Code JSONL, OTLP JSON, provider "
                           "request log); file skipped", "file of unknown format")
        else:
            self.files[file] = fmt
        return fmt

    def parse(self, file: str, fmt: str) -> None:
        """Add `file`, in format `fmt`, with the built-in reader; an unreadable file is a counted skip."""
        try:
            PARSERS[fmt](file, self)
        except OSError as e:
            self.skips.add(file, 0, f"cannot read: {e.strerror or e}", "unreadable file")

    def _seen_elsewhere(self, key: str, file: str, line: int, old: list) -> None:
        self.duplicate_files += 1
        self.skips.add(file, line, f"request {key} was already read from {old[_AT['file']]}:{old[_AT['line']]} "
                       "(a resumed session repeats it); counted once", "request seen in another file")

    def call(self, call_id: str, row: dict) -> None:
        if call_id not in self.calls:
            self.calls[call_id] = tuple(_intern(row[f]) if f != "arguments" else row[f] for f in CALL_FIELDS)

    def result(self, call_id: str, text: str | None, error: bool) -> None:
        if call_id not in self.results:
            self.results[call_id] = [text, error, None]

    def count_tokens(self, encoding: str, keep_text: bool = True) -> None:
        """Count result and tool-definition tokens now (in batches); drop the texts unless `keep_text`."""
        from .load import count_chunked

        todo = [r for r in self.results.values() if r[_TOKENS] is None]
        for r, n in zip(todo, count_chunked((r[_TEXT] for r in todo), encoding), strict=True):
            r[_TOKENS] = n
            if not keep_text:
                r[_TEXT] = None
        at = _AT["tool_definition_tokens"]
        reqs = [r for r in self.requests.values() if isinstance(r[at], str)]
        for r, n in zip(reqs, count_chunked((r[at] for r in reqs), encoding), strict=True):
            r[at] = n

    def merge(self, other: Collector) -> None:
        """Add a Collector of later files, as if their lines had been read after this one's."""
        for key, row in other.requests.items():
            old = self.requests.get(key)
            if old is None:
                self.requests[key] = row
            else:  # only across files: one file is read by one partition
                for line in row[_AT["lines"]]:
                    self._seen_elsewhere(key, row[_AT["file"]], line, old)
        for call_id, row in other.calls.items():
            self.calls.setdefault(call_id, row)
        for call_id, row in other.results.items():
            self.results.setdefault(call_id, row)
        self.skips.items += other.skips.items
        self.skips.reasons.update(other.skips.reasons)
        self.usage_lines += other.usage_lines
        self.duplicate_files += other.duplicate_files
        self.other_lines += other.other_lines
        self.files.update(other.files)


def stem(path: str | os.PathLike) -> str:
    """The file name without its .jsonl/.json/.gz suffixes."""
    return re.sub(r"(\.(jsonl|json|ndjson))?(\.gz)?$", "", Path(path).name)


def _int(v: Any) -> int:
    try:
        return max(int(v), 0)
    except (TypeError, ValueError):
        return 0


def _compact(v: Any) -> str:
    return json.dumps(v if v is not None else {}, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _arguments(v: Any) -> str:
    """Arguments as sorted compact JSON, whether given as an object or as JSON text."""
    if isinstance(v, str):
        try:
            v = json.loads(v)
        except (json.JSONDecodeError, RecursionError):
            return v
    return _compact(v)


def _text(content: Any) -> str:
    """The text a tool result puts in front of the model (image blocks carry none)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text(b.get("text", "") if isinstance(b, dict) and b.get("type", "text") == "text"
                               else b if isinstance(b, str) else "") for b in content)
    return _compact(content)


def split_name(name: str) -> tuple[str | None, str]:
    """(server, tool) from an MCP name `mcp__<server>__<tool>`; (None, name) for a built-in tool."""
    if name.startswith("mcp__"):
        parts = name.split("__", 2)
        if len(parts) == 3 and parts[1] and parts[2]:
            return parts[1], parts[2]
    return None, name


def _anthropic_usage(u: dict) -> dict:
    writes = _int(u.get("cache_creation_input_tokens"))
    split = u.get("cache_creation") if isinstance(u.get("cache_creation"), dict) else {}
    hour = _int(split.get("ephemeral_1h_input_tokens"))
    five = _int(split.get("ephemeral_5m_input_tokens"))
    five = max(five, writes - hour)  # without the split, every write is a 5-minute write
    return {"input_tokens": _int(u.get("input_tokens")), "cache_write_5m": five, "cache_write_1h": hour,
            "cache_read": _int(u.get("cache_read_input_tokens")), "output_tokens": _int(u.get("output_tokens"))}


# ---------------------------------------------------------------- Claude Code session JSONL

def claude_code(path: str, c: Collector) -> None:
    claude_records(path, documents(path, c.skips), c)


def claude_records(path: str, records, c: Collector) -> None:
    """Add (line number, record) pairs of one Claude Code file (read by any engine) to `c`."""
    p = Path(path)
    subagent_file = p.name.startswith("agent-") and "subagents" in p.parts
    file_session = stem(p)
    file_agent = file_session.removeprefix("agent-") if subagent_file else ""
    for n, rec in records:
        if not isinstance(rec, dict):
            c.skips.add(path, n, f"expected a JSON object, found {type(rec).__name__}", "not an object")
            continue
        kind = rec.get("type")
        msg = rec.get("message") if isinstance(rec.get("message"), dict) else {}
        if kind == "assistant":
            session = str(rec.get("sessionId") or file_session)
            sub = bool(subagent_file or rec.get("isSidechain"))
            agent = str(rec.get("agentId") or file_agent)
            ts = rec.get("timestamp")
            content = msg.get("content") if isinstance(msg.get("content"), list) else []
            for b in content:
                if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id"):
                    server, tool = split_name(str(b.get("name", "")))
                    c.call(str(b["id"]), {"session": session, "subagent": sub, "agent": agent, "timestamp": ts,
                                          "tool": tool, "server": server, "arguments": _arguments(b.get("input"))})
            usage = msg.get("usage")
            if not isinstance(usage, dict):
                c.skips.add(path, n, "assistant line without message.usage", "no usage")
                continue
            key = str(rec.get("requestId") or msg.get("id") or rec.get("uuid") or f"{path}:{n}")
            c.request(key, path, n, {"session": session, "subagent": sub, "agent": agent, "timestamp": ts,
                                     "model": str(msg.get("model") or ""), "tool_definition_tokens": None,
                                     **_anthropic_usage(usage)})
        elif kind == "user":
            content = msg.get("content")
            for b in content if isinstance(content, list) else []:
                if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id"):
                    c.result(str(b["tool_use_id"]), _text(b.get("content")), b.get("is_error") is True)
        elif kind in CLAUDE_OTHER:
            c.other_lines += 1
        else:
            c.skips.add(path, n, f"unknown line type {kind!r}", "unknown line type")


# ---------------------------------------------------------------- OpenTelemetry GenAI (OTLP JSON)

def _value(v: Any) -> Any:
    if not isinstance(v, dict):
        return v
    for k in ("stringValue", "boolValue", "doubleValue"):
        if k in v:
            return v[k]
    if "intValue" in v:  # int64 is a JSON string in OTLP JSON
        return _int(v["intValue"])
    if "arrayValue" in v:
        return [_value(x) for x in v["arrayValue"].get("values", [])]
    return None


def _attrs(items: Any) -> dict[str, Any]:
    return {a["key"]: _value(a.get("value")) for a in items or [] if isinstance(a, dict) and "key" in a}


def otel(path: str, c: Collector) -> None:
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
    ts = _int(span.get("startTimeUnixNano")) or None
    if op in CHAT_OPS:
        if "gen_ai.usage.input_tokens" not in a and "gen_ai.usage.output_tokens" not in a:
            c.skips.add(path, n, f"{op} span {span.get('spanId')} has no gen_ai.usage attributes", "no usage")
            return
        read = _int(a.get("gen_ai.usage.cache_read.input_tokens"))
        write = _int(a.get("gen_ai.usage.cache_creation.input_tokens"))
        # The conventions count cached tokens inside gen_ai.usage.input_tokens.
        uncached = max(_int(a.get("gen_ai.usage.input_tokens")) - read - write, 0)
        defs = a.get("gen_ai.tool.definitions")
        c.request(str(span.get("spanId") or f"{path}:{n}"), path, n, {
            "session": session, "subagent": False, "agent": str(a.get("gen_ai.agent.name") or ""),
            "timestamp": ts, "model": str(a.get("gen_ai.response.model") or a.get("gen_ai.request.model") or ""),
            "tool_definition_tokens": _definitions(defs),
            "input_tokens": uncached, "cache_write_5m": write, "cache_write_1h": 0, "cache_read": read,
            "output_tokens": _int(a.get("gen_ai.usage.output_tokens"))})
    elif op == "execute_tool":
        call_id = str(a.get("gen_ai.tool.call.id") or span.get("spanId") or f"{path}:{n}")
        server, tool = split_name(str(a.get("gen_ai.tool.name") or ""))
        c.call(call_id, {"session": session, "subagent": False, "agent": "", "timestamp": ts, "tool": tool,
                         "server": server, "arguments": _arguments(a.get("gen_ai.tool.call.arguments"))})
        status = (span.get("status") or {}).get("code")
        err = status in (2, "STATUS_CODE_ERROR") or bool(a.get("error.type"))
        result = a.get("gen_ai.tool.call.result")
        c.result(call_id, None if result is None else _text(result), err)
    else:
        c.other_lines += 1


def _definitions(defs: Any) -> str | None:
    """Tool definitions as compact JSON text (measured later), or None when the span has none."""
    if defs is None:
        return None
    if isinstance(defs, str):
        try:
            defs = json.loads(defs)
        except (json.JSONDecodeError, RecursionError):
            return defs
    return json.dumps(defs, ensure_ascii=False, separators=(",", ":"))


# ---------------------------------------------------------------- provider request logs

def provider_log(path: str, c: Collector) -> None:
    for n, rec in documents(path, c.skips):
        if not isinstance(rec, dict) or not isinstance(rec.get("response"), dict):
            c.skips.add(path, n, "expected an object with request and response", "not a request log line")
            continue
        req = rec.get("request") if isinstance(rec.get("request"), dict) else {}
        resp = rec["response"]
        session = str(rec.get("session") or rec.get("session_id") or stem(path))
        ts = rec.get("timestamp")
        u = resp.get("usage") if isinstance(resp.get("usage"), dict) else None
        if u is None:
            c.skips.add(path, n, "response without usage", "no usage")
        else:
            tools = req.get("tools")
            c.request(str(resp.get("id") or rec.get("id") or f"{path}:{n}"), path, n, {
                "session": session, "subagent": False, "agent": "", "timestamp": ts,
                "model": str(resp.get("model") or req.get("model") or ""),
                "tool_definition_tokens": _definitions(tools) if tools else None, **_provider_usage(u)})
        for call_id, name, args in _provider_calls(resp):
            server, tool = split_name(name)
            c.call(call_id, {"session": session, "subagent": False, "agent": "", "timestamp": ts,
                             "tool": tool, "server": server, "arguments": _arguments(args)})
        for call_id, text, err in _provider_results(req):
            c.result(call_id, text, err)


def _provider_usage(u: dict) -> dict:
    if "prompt_tokens" in u:  # OpenAI Chat Completions: cached tokens are inside prompt_tokens
        read = _int((u.get("prompt_tokens_details") or {}).get("cached_tokens"))
        return {"input_tokens": max(_int(u["prompt_tokens"]) - read, 0), "cache_write_5m": 0, "cache_write_1h": 0,
                "cache_read": read, "output_tokens": _int(u.get("completion_tokens"))}
    if "input_tokens_details" in u:  # OpenAI Responses: likewise inside input_tokens
        read = _int((u.get("input_tokens_details") or {}).get("cached_tokens"))
        return {"input_tokens": max(_int(u.get("input_tokens")) - read, 0), "cache_write_5m": 0,
                "cache_write_1h": 0, "cache_read": read, "output_tokens": _int(u.get("output_tokens"))}
    return _anthropic_usage(u)  # Anthropic Messages: input_tokens excludes cache reads and writes


def _provider_calls(resp: dict):
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


def _provider_results(req: dict):
    for m in req.get("messages") or []:
        if not isinstance(m, dict):
            continue
        if m.get("role") == "tool" and m.get("tool_call_id"):  # OpenAI Chat
            yield str(m["tool_call_id"]), _text(m.get("content")), False
        elif isinstance(m.get("content"), list):  # Anthropic
            for b in m["content"]:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    yield str(b.get("tool_use_id")), _text(b.get("content")), b.get("is_error") is True
    for item in req.get("input") if isinstance(req.get("input"), list) else []:  # OpenAI Responses
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            yield str(item.get("call_id")), _text(item.get("output")), False


PARSERS = {"claude-code": claude_code, "otel": otel, "provider-log": provider_log}
_CLAUDE_KEYS = re.compile(rb'"(sessionId|parentUuid|requestId|isSidechain)"')
_CLAUDE_TYPE = re.compile(rb'"type": ?"(assistant|user)"')
_PROVIDER_KEYS = re.compile(rb'^\{\s*("timestamp"[^{]*?,\s*|"session"[^{]*?,\s*)*"(request|response)"\s*:\s*\{')


def detect(path: str | os.PathLike) -> str | None:
    """The trace format of a file from its first bytes, or None when it is none of FORMATS."""
    start = head(path, 16384)  # the first line, or enough of it: detection reads every file once more
    if b'"resourceSpans"' in start:
        return "otel"
    first = start.lstrip().split(b"\n", 1)[0]
    try:
        rec = json.loads(first)
    except (ValueError, RecursionError):  # bad JSON or UTF-8, or an integer past Python's digit limit
        rec = None
    if isinstance(rec, dict) and "response" in rec and "request" in rec:
        return "provider-log"
    if isinstance(rec, dict) and rec.get("type") in CLAUDE_OTHER | {"user", "assistant"}:
        return "claude-code"
    if _CLAUDE_KEYS.search(start) and _CLAUDE_TYPE.search(start):  # a first line cut off or unusual
        return "claude-code"
    if rec is None and _PROVIDER_KEYS.search(first):  # a request body longer than the bytes read
        return "provider-log"
    return None
