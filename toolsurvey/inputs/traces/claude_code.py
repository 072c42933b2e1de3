"""Claude Code session files (JSONL): assistant lines carry requests and tool calls, user lines tool results.

Subagents' files (`<session>/subagents/agent-*.jsonl`) are tagged with the agent they belong to. A
subagent's requests also appear in its parent's `progress` lines (`data.type` "agent_progress");
they count only when the subagent has no file of its own (see `Collector.resolve`).
"""

from __future__ import annotations

from pathlib import Path

from ...core.jsonlines import documents
from .collector import PROGRESS, Collector
from .fields import anthropic_usage, result_text, split_name, stem

# Line types that carry the conversation: any of them identifies a Claude Code file.
CLAUDE_TYPES = frozenset({"user", "assistant", "summary", "system", "progress"})
# Line types that are not model requests or tool results: read and passed over. Files of recent
# versions (2.1.9x) may open with any number of them.
CLAUDE_OTHER = frozenset({"summary", "system", "file-history-snapshot", "queue-operation", "progress",
                          "custom-title", "ai-title", "tag", "agent-name", "last-prompt", "pr-link", "attachment",
                          "cost-state", "mode", "permission-mode", "worktree-state"})
# Only lines holding this can carry usage: with `usage_only`, the others are not parsed.
USAGE_MARK = b'"usage"'


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
    for n, rec in records:
        if not isinstance(rec, dict):
            c.skips.add(path, n, f"expected a JSON object, found {type(rec).__name__}", "not an object")
            continue
        kind = rec.get("type")
        msg = rec.get("message") if isinstance(rec.get("message"), dict) else {}
        if kind == "assistant":
            session = str(rec.get("sessionId") or file_session)
            where = {"session": session, "subagent": bool(subagent_file or rec.get("isSidechain")),
                     "agent": str(rec.get("agentId") or file_agent), "project": project or str(rec.get("cwd") or "")}
            _assistant(path, n, rec, msg, where, c)
        elif kind == "user":
            _results(msg, c)
        elif kind == "progress":
            _progress(path, n, rec, file_session, project, c)
        elif kind in CLAUDE_OTHER:
            c.other_lines += 1
        else:
            c.unknown(str(kind), path, n, "usage" in msg)


def _assistant(path: str, n: int, rec: dict, msg: dict, where: dict, c: Collector, source: str = "file") -> None:
    ts = rec.get("timestamp")
    content = msg.get("content") if isinstance(msg.get("content"), list) else []
    for b in content:
        if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id"):
            server, tool = split_name(str(b.get("name", "")))
            c.call(str(b["id"]), {**where, "timestamp": ts, "tool": tool, "server": server,
                                  "arguments": b.get("input")})
    usage = msg.get("usage")
    if not isinstance(usage, dict):
        if source == "file":
            c.skips.add(path, n, "assistant line without message.usage", "no usage")
        return
    key = str(rec.get("requestId") or msg.get("id") or rec.get("uuid") or f"{path}:{n}")
    c.request(key, path, n, {**where, "timestamp": ts, "model": str(msg.get("model") or ""),
                             "tool_definition_tokens": None, **anthropic_usage(usage)}, source)


def _results(msg: dict, c: Collector) -> None:
    if c.lean:
        return
    content = msg.get("content")
    for b in content if isinstance(content, list) else []:
        if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id"):
            c.result(str(b["tool_use_id"]), result_text(b.get("content")), b.get("is_error") is True)


def _progress(path: str, n: int, rec: dict, file_session: str, project: str, c: Collector) -> None:
    """A subagent's message relayed in its parent's progress line: its request (held apart until
    every file is read), tool calls and results."""
    data = rec.get("data") if isinstance(rec.get("data"), dict) else {}
    inner = data.get("message") if data.get("type") == "agent_progress" else None
    if not isinstance(inner, dict):
        c.other_lines += 1
        return
    msg = inner.get("message") if isinstance(inner.get("message"), dict) else {}
    if inner.get("type") == "assistant":
        where = {"session": str(rec.get("sessionId") or file_session), "subagent": True,
                 "agent": str(data.get("agentId") or ""), "project": project or str(rec.get("cwd") or "")}
        _assistant(path, n, {"timestamp": inner.get("timestamp") or rec.get("timestamp"),
                             "requestId": inner.get("requestId"), "uuid": inner.get("uuid")}, msg, where, c, PROGRESS)
    elif inner.get("type") == "user":
        _results(msg, c)
    else:
        c.other_lines += 1
