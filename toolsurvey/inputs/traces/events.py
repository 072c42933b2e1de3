"""What shapes a session besides its requests: the user's prompts (where turns start), compactions (the
history replaced by a summary) and, where the agent records them, the context window it works in (the
size it must compact before) and changes to the environment its prompt describes (Codex's `world_state`
changes: workspace roots, date), as Claude Code and Codex record them."""

from __future__ import annotations

from typing import Any

EVENT_FIELDS = ("session", "agent", "timestamp", "kind", "tokens", "detail")
PROMPT, COMPACTION, WINDOW, ENVIRONMENT = "prompt", "compaction", "context_window", "environment"
COMPACT_LIMIT = "compact_limit"  # the context size the agent compacts at on its own, where it is known


def is_prompt(rec: dict, msg: dict) -> bool:
    """A user line the user (or a command they ran) wrote: text, not a tool result, not a meta line
    (Claude Code's reminders) and not a compaction summary."""
    if rec.get("isMeta") or rec.get("isCompactSummary"):
        return False
    content = msg.get("content")
    if isinstance(content, str):
        return True
    if not isinstance(content, list):
        return False
    kinds = {b.get("type") for b in content if isinstance(b, dict)}
    return "text" in kinds and "tool_result" not in kinds


def claude_event(rec: dict, msg: dict, session: str, agent: str) -> tuple[Any, ...] | None:
    """The event a Claude Code line records (EVENT_FIELDS order), or None: a prompt, or a compaction
    (a `compact_boundary` system line, with the context size it compacted and what triggered it)."""
    kind = rec.get("type")
    if kind == "user" and is_prompt(rec, msg):
        return (session, agent, rec.get("timestamp"), PROMPT, None, "")
    if kind == "system" and rec.get("subtype") == "compact_boundary":
        meta = rec.get("compactMetadata") if isinstance(rec.get("compactMetadata"), dict) else {}
        tokens = meta.get("preTokens")
        return (session, agent, rec.get("timestamp"), COMPACTION,
                tokens if isinstance(tokens, (int, float)) and not isinstance(tokens, bool) else None,
                str(meta.get("trigger") or ""))
    return None
