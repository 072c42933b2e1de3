"""Fields the trace sources share, read forgivingly: counts, arguments, result text, MCP tool names
and tool definitions (a provider's usage is read by its module in `providers`)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from ...core.jsontree import canonical, compact, loads
from ...providers.endpoints import count

non_negative = count  # `v` as a count: an int of at least 0, and 0 for what is not a number


def stem(path: str | os.PathLike) -> str:
    """The file name without its .jsonl/.json/.gz suffixes."""
    return re.sub(r"(\.(jsonl|json|ndjson))?(\.gz)?$", "", Path(path).name)


# Keys every usage object of the formats read has (OpenAI Responses and Codex: input_tokens; Chat
# Completions: prompt_tokens; Anthropic: input_tokens): a record holding one as a key carries usage.
USAGE_KEYS = frozenset({"input_tokens", "prompt_tokens"})


def carries_usage(v: Any, depth: int = 8) -> bool:
    """Whether a parsed record holds a usage object: one of USAGE_KEYS as a key of an object within
    `depth` levels (as a key, not inside some text: a line quoting a file that mentions usage is not one)."""
    if depth < 0:
        return False
    if isinstance(v, dict):
        return not USAGE_KEYS.isdisjoint(v) or any(carries_usage(x, depth - 1) for x in v.values()
                                                   if isinstance(x, (dict, list)))
    if isinstance(v, list):
        return any(carries_usage(x, depth - 1) for x in v if isinstance(x, (dict, list)))
    return False


arguments = canonical  # a call's arguments, given as an object or as JSON text: sorted compact JSON


def result_text(content: Any) -> str:
    """The text a tool result puts in front of the model (image blocks carry none)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(result_text(b.get("text", "") if isinstance(b, dict) and b.get("type", "text") == "text"
                                     else b if isinstance(b, str) else "") for b in content)
    return compact(content, sort_keys=True)


def split_name(name: str) -> tuple[str | None, str]:
    """(server, tool) from an MCP name `mcp__<server>__<tool>`; (None, name) for a built-in tool."""
    if name.startswith("mcp__"):
        parts = name.split("__", 2)
        if len(parts) == 3 and parts[1] and parts[2]:
            return parts[1], parts[2]
    return None, name


def definitions(defs: Any) -> str | None:
    """Tool definitions as compact JSON text (measured later), or None when the record has none."""
    if defs is None:
        return None
    if isinstance(defs, str):
        try:
            defs = loads(defs)
        except ValueError:
            return defs
    return compact(defs)
