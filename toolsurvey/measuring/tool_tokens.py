"""Tokens of a tool's compact JSON (footprint's `json` rendering), counted once per tool and encoding.

The audit's rules, its merge estimates for every near-duplicate pair and the plan ask for the same
tools' counts many times. Tools are frozen, so a count stays true for as long as the tool lives; it
is forgotten when the tool is garbage-collected.
"""

from __future__ import annotations

import weakref
from functools import lru_cache

from ..core.jsontree import compact
from ..core.registry import Tool
from ..core.tokens import DEFAULT_ENCODING, count
from ..providers.render import JSON

_counts: dict[tuple[int, str], int] = {}


@lru_cache(maxsize=8192)
def _count(text: str, encoding: str) -> int:
    # Equal tools that are different objects (a merge that keeps one tool's definition) are encoded once.
    return count(text, encoding)


def tool_tokens(tool: Tool, encoding: str = DEFAULT_ENCODING) -> int:
    """Tokens of the tool's compact JSON of name, description and input schema (footprint's `json`)."""
    key = (id(tool), encoding)
    n = _counts.get(key)
    if n is None:
        n = _count(compact(JSON.json_object(tool)), encoding)
        _counts[key] = n
        weakref.finalize(tool, _counts.pop, key, None)  # an id is reused only after its object is gone
    return n
