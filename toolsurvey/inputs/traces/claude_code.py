"""Claude Code session files (JSONL): assistant lines carry requests and tool calls, user lines tool results.

Subagents' files (`<session>/subagents/agent-*.jsonl`) are tagged with the agent they belong to. A
subagent's requests also appear in its parent's `progress` lines (`data.type` "agent_progress");
they count only when the subagent has no file of its own (see `Collector.resolve`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ...core.jsonlines import documents
from ...providers.anthropic import usage as anthropic_usage
from .collector import FILE, PROGRESS, Collector, where
from .events import claude_event
from .fields import result_text, split_name, stem

# Line types that carry the conversation: any of them identifies a Claude Code file.
CLAUDE_TYPES = frozenset({"user", "assistant", "summary", "system", "progress"})
# Line types that are not model requests or tool results: read and passed over. Files of recent
# versions (2.1.9x) may open with any number of them.
CLAUDE_OTHER = frozenset({"summary", "system", "file-history-snapshot", "queue-operation", "progress",
                          "custom-title", "ai-title", "tag", "agent-name", "last-prompt", "pr-link", "attachment",
                          "cost-state", "mode", "permission-mode", "worktree-state"})
# Only lines holding this key can carry usage (Anthropic's usage object always has it; as a key it is
# never inside a JSON string, whose quotes are escaped): with `usage_only`, the others are not
# parsed. bytes.find passes over trace text faster looking for it than for '"usage"' (3x) or
# '"input_tokens"' (1.7x), measured on the spotter transcripts.
USAGE_MARK = b'"output_tokens"'


def claude_code(path: str, c: Collector, usage_only: bool = False) -> None:
    """Add one Claude Code file, read line by line, to `c`; with `usage_only`, only the lines that
    can carry usage are parsed (requests and tool calls; no tool results)."""
    claude_records(path, documents(path, c.skips, (USAGE_MARK,) if usage_only else ()), c)


def project_of(path: Path) -> str:
    """The project folder a session file is in (`~/.claude/projects/<project>/...`), or '' outside one."""
    parts = path.parts
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] == "projects" and i + 1 < len(parts) - 1:
            return parts[i + 1]
    return ""


def claude_records(path: str, records, c: Collector) -> None:
    """Add (line number, record) pairs of one Claude Code file (read by any engine) to `c`."""
    p = Path(path)
    subagent_file = p.name.startswith("agent-") and "subagents" in p.parts
    file_session = stem(p)
    file_agent = file_session.removeprefix("agent-") if subagent_file else ""
    project = project_of(p)
    path = sys.intern(path)
    seen: dict[tuple, tuple] = {}  # (sessionId, isSidechain, agentId, cwd) -> where: most lines share one
    lean = c.lean
    for n, rec in records:
        if rec.__class__ is not dict:
            c.skips.add(path, n, f"expected a JSON object, found {type(rec).__name__}", "not an object")
            continue
        g = rec.get
        kind = g("type")
        if kind == "assistant":  # the usual line (the only one a lean read parses, but for progress)
            ident = (g("sessionId"), g("isSidechain") is True, g("agentId"), g("cwd"))
            try:
                at = seen.get(ident)
            except TypeError:  # an id that is not text (a broken line): no caching
                at, ident = None, None
            if at is None:
                sid, side, agent, cwd = ident or (g("sessionId"), g("isSidechain") is True, g("agentId"), g("cwd"))
                at = where(str(sid or file_session), bool(subagent_file or side), str(agent or file_agent),
                           project or str(cwd or ""))
                if ident is not None:
                    seen[ident] = at
            msg = g("message")
            _assistant(path, n, rec, msg if msg.__class__ is dict else {}, at, c)
            continue
        if kind in ("user", "system") and not lean:
            msg = g("message")
            c.event(claude_event(rec, msg if msg.__class__ is dict else {}, str(g("sessionId") or file_session),
                                 str(g("agentId") or file_agent)))
        if kind == "user":
            if not lean:
                _results(g("message"), c)
        elif kind == "progress":
            _progress(path, n, rec, file_session, project, c)
        elif kind in CLAUDE_OTHER:
            c.other_lines += 1
        else:
            msg = g("message")
            c.unknown(str(kind), path, n, msg.__class__ is dict and "usage" in msg)


def _assistant(path: str, n: int, rec: dict, msg: dict, at: tuple, c: Collector, source: str = FILE) -> None:
    ts = rec.get("timestamp")
    content = msg.get("content")
    if content.__class__ is list:
        for b in content:
            if b.__class__ is dict and b.get("type") == "tool_use" and b.get("id"):
                server, tool = split_name(str(b.get("name", "")))
                c.call(str(b["id"]), at, ts, tool, server, b.get("input"))
    usage = msg.get("usage")
    if usage.__class__ is not dict:
        if source == FILE:
            c.skips.add(path, n, "assistant line without message.usage", "no usage")
        return
    key = rec.get("requestId")
    if key.__class__ is not str or not key:
        key = str(key or msg.get("id") or rec.get("uuid") or f"{path}:{n}")
    model = msg.get("model")
    c.request(key, path, n, at, ts, model if model.__class__ is str else str(model or ""), anthropic_usage(usage),
              source)


def _results(msg: Any, c: Collector) -> None:
    content = msg.get("content") if msg.__class__ is dict else None
    for b in content if isinstance(content, list) else []:
        if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id"):
            c.result(str(b["tool_use_id"]), result_text(b.get("content")), b.get("is_error") is True)


def _progress(path: str, n: int, rec: dict, file_session: str, project: str, c: Collector) -> None:
    """A subagent's message relayed in its parent's progress line: its request (held apart until
    every file is read), tool calls and results."""
    data = rec.get("data")
    inner = data.get("message") if data.__class__ is dict and data.get("type") == "agent_progress" else None
    if inner.__class__ is not dict:
        c.other_lines += 1
        return
    msg = inner.get("message") if isinstance(inner.get("message"), dict) else {}
    if inner.get("type") == "assistant":
        at = where(str(rec.get("sessionId") or file_session), True, str(data.get("agentId") or ""),
                   project or str(rec.get("cwd") or ""))
        _assistant(path, n, {"timestamp": inner.get("timestamp") or rec.get("timestamp"),
                             "requestId": inner.get("requestId"), "uuid": inner.get("uuid")}, msg, at, c, PROGRESS)
    elif inner.get("type") == "user":
        if not c.lean:
            _results(msg, c)
    else:
        c.other_lines += 1
