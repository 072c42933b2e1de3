"""Claude Code session files (JSONL): assistant lines carry requests and tool calls, user lines tool results.

Subagents' files (`<session>/subagents/agent-*.jsonl`) are tagged with the agent they belong to.
"""

from __future__ import annotations

from pathlib import Path

from ...core.jsonlines import documents
from .collector import Collector
from .events import claude_event
from .fields import anthropic_usage, arguments, result_text, split_name, stem

# Line types that are not model requests or tool results: read and passed over.
CLAUDE_OTHER = {"summary", "system", "file-history-snapshot", "queue-operation", "progress", "custom-title",
                "tag", "agent-name", "last-prompt", "pr-link", "attachment", "cost-state", "mode"}


def claude_code(path: str, c: Collector) -> None:
    """Add one Claude Code file, read line by line, to `c`."""
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
        if kind in ("user", "system"):
            c.event(claude_event(rec, msg, str(rec.get("sessionId") or file_session), str(rec.get("agentId") or file_agent)))
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
                                          "tool": tool, "server": server, "arguments": arguments(b.get("input"))})
            usage = msg.get("usage")
            if not isinstance(usage, dict):
                c.skips.add(path, n, "assistant line without message.usage", "no usage")
                continue
            key = str(rec.get("requestId") or msg.get("id") or rec.get("uuid") or f"{path}:{n}")
            c.request(key, path, n, {"session": session, "subagent": sub, "agent": agent, "timestamp": ts,
                                     "model": str(msg.get("model") or ""), "tool_definition_tokens": None,
                                     **anthropic_usage(usage)})
        elif kind == "user":
            content = msg.get("content")
            for b in content if isinstance(content, list) else []:
                if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id"):
                    c.result(str(b["tool_use_id"]), result_text(b.get("content")), b.get("is_error") is True)
        elif kind in CLAUDE_OTHER:
            c.other_lines += 1
        else:
            c.skips.add(path, n, f"unknown line type {kind!r}", "unknown line type")
