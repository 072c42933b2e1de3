"""Traces as retrieval queries: each user prompt in an agent trace, with the registry tools the agent
then called before the next prompt, is a query whose gold tools are those calls. Claude Code session
files (`mcp__<server>__<tool>` names mapped to registry tools), OpenTelemetry GenAI spans
(gen_ai.input.messages, execute_tool spans) and provider request logs are read."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ..core.deprecation import deprecated
from ..core.jsonlines import Skips, documents
from ..core.registry import Registry
from ..errors import InputError
from ..providers.catalog import logged_tool_calls
from .queries import Query
from .traces.fields import split_name, stem
from .traces.files import detect, source_files

MAX_QUERY_CHARS = 4000  # a prompt longer than this is cut (a pasted log is not a search query)


class TraceQueries(list):
    """The queries found (a list of Query), with `warnings` saying what was read and what was left out."""

    warnings: list[str]

    @property
    def notes(self) -> list[str]:
        """Deprecated name of `warnings` (kept for one release)."""
        deprecated("TraceQueries.notes", "TraceQueries.warnings")
        return self.warnings


def _text(content: Any) -> str:
    """The words a user typed: a string, or the text blocks of a content list (tool results left out)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content
                         if isinstance(b, dict) and b.get("type") in ("text", "input_text") and isinstance(b.get("text"), str))
    return ""


def _is_prompt(text: str) -> bool:
    """Typed by a person: not empty, not a client's command echo or caveat."""
    t = text.strip()
    return bool(t) and not t.startswith(("<command-", "<local-command", "Caveat:", "[Request interrupted"))


class _Builder:
    """Prompts and the tools called after each, per session, resolved against the registry."""

    def __init__(self, reg: Registry):
        self.keys = {t.key for t in reg}
        self.by_name: dict[str, list[str]] = {}
        for t in reg:
            self.by_name.setdefault(t.name, []).append(t.key)
        self.current: dict[str, list] = {}  # session -> [id, text, gold keys]
        self.out: list[Query] = []
        self.prompts = self.unmatched = 0
        self.outside: set[str] = set()

    def prompt(self, session: str, qid: str, text: str, source: str) -> None:
        self._close(session)
        self.prompts += 1
        self.current[session] = [qid, text[:MAX_QUERY_CHARS], [], source]

    def call(self, session: str, name: str) -> None:
        cur = self.current.get(session)
        if cur is None:
            return
        server, tool = split_name(name)
        key = f"{server}/{tool}" if server and f"{server}/{tool}" in self.keys else None
        if key is None and len(self.by_name.get(tool, [])) == 1:
            key = self.by_name[tool][0]
        if key is None:
            self.outside.add(name)
        elif key not in cur[2]:
            cur[2].append(key)

    def _close(self, session: str) -> None:
        cur = self.current.pop(session, None)
        if cur is None:
            return
        if cur[2]:
            self.out.append(Query(cur[0], cur[1], tuple(cur[2]), cur[3]))
        else:
            self.unmatched += 1

    def finish(self) -> TraceQueries:
        for s in list(self.current):
            self._close(s)
        out = TraceQueries(self.out)
        out.warnings = [f"{self.prompts:,} prompts read; {len(self.out):,} called registry tools and are queries, "
                     f"{self.unmatched:,} called none (left out)"]
        if self.outside:
            out.warnings.append(f"{len(self.outside):,} tool name(s) called are not in the registry (built-in or "
                             f"other servers), e.g. {', '.join(sorted(self.outside)[:5])}")
        return out


def _claude_code(path: str, b: _Builder, skips: Skips) -> None:
    file_session = stem(path)
    for n, rec in documents(path, skips):
        if not isinstance(rec, dict):
            continue
        session = str(rec.get("sessionId") or file_session)
        msg = rec.get("message") if isinstance(rec.get("message"), dict) else {}
        if rec.get("type") == "user" and not rec.get("isMeta"):
            text = _text(msg.get("content"))
            if _is_prompt(text):
                b.prompt(session, f"{file_session}:{n}", text, path)
        elif rec.get("type") == "assistant":
            for blk in msg.get("content") if isinstance(msg.get("content"), list) else []:
                if isinstance(blk, dict) and blk.get("type") == "tool_use":
                    b.call(session, str(blk.get("name", "")))


def _last_user(messages: Any) -> str:
    """The text of the last user message of a request's messages (Anthropic, OpenAI, OTel parts)."""
    if isinstance(messages, str):
        try:
            messages = json.loads(messages)
        except (json.JSONDecodeError, RecursionError):
            return ""
    for m in reversed(messages if isinstance(messages, list) else []):
        if isinstance(m, dict) and m.get("role") == "user":
            parts = m.get("parts")
            text = _text(parts if isinstance(parts, list) else m.get("content"))
            if parts and not text:
                text = "\n".join(p.get("content", "") for p in parts if isinstance(p, dict) and p.get("type") == "text"
                                 and isinstance(p.get("content"), str))
            return text
    return ""


def _prompt_if_new(b: _Builder, seen: dict, session: str, qid: str, text: str, path: str) -> None:
    if _is_prompt(text) and seen.get(session) != text:
        seen[session] = text
        b.prompt(session, qid, text, path)


def _provider_log(path: str, b: _Builder, skips: Skips) -> None:
    seen: dict[str, str] = {}
    for n, rec in documents(path, skips):
        if not isinstance(rec, dict) or not isinstance(rec.get("response"), dict):
            continue
        req = rec.get("request") if isinstance(rec.get("request"), dict) else {}
        session = str(rec.get("session") or rec.get("session_id") or stem(path))
        text = _last_user(req.get("messages") or req.get("input"))
        _prompt_if_new(b, seen, session, f"{stem(path)}:{n}", text, path)
        for _, name, _ in logged_tool_calls(rec["response"]):
            b.call(session, str(name or ""))


def _otel(path: str, b: _Builder, skips: Skips) -> None:
    seen: dict[str, str] = {}
    spans = sorted(otel_spans(path, skips), key=lambda s: (s[1], s[2]))
    for session, _, n, attrs in spans:
        op = attrs.get("gen_ai.operation.name")
        if op == "execute_tool":
            b.call(session, str(attrs.get("gen_ai.tool.name") or ""))
        elif "gen_ai.input.messages" in attrs:
            _prompt_if_new(b, seen, session, f"{stem(path)}:{n}", _last_user(attrs["gen_ai.input.messages"]), path)


def _otlp_value(v: Any) -> Any:
    if not isinstance(v, dict):
        return v
    for k in ("stringValue", "boolValue", "doubleValue", "intValue"):
        if k in v:
            return v[k]
    return None


def otel_spans(path: str, skips: Skips):
    """(session, start time, line, attributes) of every span of an OTLP JSON file."""
    for n, doc in documents(path, skips):
        for rs in doc.get("resourceSpans") or [] if isinstance(doc, dict) else []:
            for ss in rs.get("scopeSpans") or rs.get("instrumentationLibrarySpans") or []:
                for span in ss.get("spans") or []:
                    a = {x["key"]: _otlp_value(x.get("value")) for x in span.get("attributes") or []
                         if isinstance(x, dict) and "key" in x}
                    session = str(a.get("gen_ai.conversation.id") or a.get("session.id") or span.get("traceId")
                                  or stem(path))
                    yield session, int(span.get("startTimeUnixNano") or 0), n, a


READERS = {"claude-code": _claude_code, "provider-log": _provider_log, "otel": _otel}


def queries_from_traces(traces: str | Iterable, registry: Registry) -> TraceQueries:
    """Queries from agent traces (a file, folder, glob or list): each user prompt with the registry
    tools called before the next prompt of its session; prompts that call none are left out (counted
    in `.warnings`). Raises InputError when no file is a trace or no prompt called a registry tool."""
    b, skips, read = _Builder(registry), Skips(), 0
    for path in source_files(traces):
        fmt = detect(path)
        if fmt in READERS:
            READERS[fmt](path, b, skips)
            read += 1
    if not read:
        raise InputError(f"{traces}: no trace files (Claude Code, OTLP JSON or provider logs) to read queries from")
    out = b.finish()
    if len(skips):
        out.warnings.append(f"{len(skips):,} line(s) skipped: {skips.summary()}")
    if not out:
        raise InputError(f"{traces}: {b.prompts:,} prompts read, but none was followed by a call to a tool of "
                         "this registry; check that the traces and the registry belong together")
    return out
