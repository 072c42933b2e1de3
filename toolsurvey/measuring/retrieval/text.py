"""What a search reads of a tool, and how text becomes search terms: the tool's name, description and
parameter names and descriptions (what Anthropic's tool search searches); identifiers split on `_`,
`-` and camelCase; lower case; words of two or more letters; English stop words removed."""

from __future__ import annotations

import re

from ...core.registry import Tool
from ...core.tfidf import TOKEN, stop_words

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[_\-]+")
MAX_DEPTH = 32  # schema nesting walked for parameter names (deeper levels are ignored)


def split_identifiers(text: str) -> str:
    """`text` with `_` and `-` as spaces and camelCase words apart: getApiOverview -> get Api Overview."""
    return _CAMEL.sub(" ", _SEPARATORS.sub(" ", text))


def terms(text: str) -> list[str]:
    """The search terms of `text`, in order (repeats kept)."""
    stop = stop_words()
    return [w for w in TOKEN.findall(split_identifiers(text).lower()) if w not in stop]


def parameters(schema) -> list[tuple[str, str]]:
    """(name, description) of every property in an input schema, nested ones included, in order."""
    out, stack = [], [(schema, 0)]
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, dict) or depth > MAX_DEPTH:
            continue
        props = node.get("properties")
        children = []
        if isinstance(props, dict):
            for name, sub in props.items():
                desc = sub.get("description") if isinstance(sub, dict) else None
                out.append((str(name), desc if isinstance(desc, str) else ""))
                children.append(sub)
        items = node.get("items")
        children += items if isinstance(items, list) else [items]
        stack.extend((c, depth + 1) for c in reversed(children) if isinstance(c, dict))
    return out


def tool_text(tool: Tool) -> str:
    """The text a search reads of `tool`: name, description, then each parameter's name and description."""
    parts = [tool.name, tool.description or ""]
    for name, desc in parameters(tool.input_schema):
        parts += [name, desc]
    return "\n".join(p for p in parts if p)
