"""Renderings: the text a provider's model sees for a tool, split into labelled parts.

A rendering turns a Tool into *chunks*. Each chunk is a list of (text, part) segments that are
encoded together as one string, plus a few constant tokens per part (provider formatting whose
text is not public). A tool's tokens are the sum over its chunks of the exact token count of the
chunk's text, plus the constants. Each token is attributed to the part in which it starts, so
the parts of a tool always add up exactly to its total.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..core.registry import Tool

PARTS = ("name", "description", "schema", "param_descriptions", "annotations",
         "output_schema", "other", "structure")

RENDERINGS = {
    "json": "compact JSON of name, description and input schema (the method of “Tool Calling in Language Model Agents”, Figure 1)",
    "sent": "compact JSON of every key the source sent for the tool, in its order",
    "openai": "OpenAI's function-definition token count (cookbook method and constants)",
    "anthropic": "Anthropic tool JSON plus the documented tool-use system prompt, "
                 "estimated with a tiktoken encoding (Claude's tokenizer is not public)",
}

# Which part each top-level key of a tool object belongs to, in every source format.
_KEY_PART = {
    "name": "name", "description": "description",
    "inputSchema": "schema", "input_schema": "schema", "parameters": "schema",
    "parametersJsonSchema": "schema",
    "outputSchema": "output_schema", "response": "output_schema",
    "responseJsonSchema": "output_schema",
    "annotations": "annotations",
}

Segments = list[tuple[str, str]]

# Compact JSON as in the method of “Tool Calling in Language Model Agents”, Figure 1; one reusable encoder (json.dumps with options builds one per call).
compact_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

# A `"description": "<string>"` pair (with the comma before it) inside compact JSON. Outside strings a
# quote followed by `description":"` can only open that key, so the match is exact.
_DESCRIPTION_PAIR = re.compile(r',?"description":"[^"\\]*(?:\\.[^"\\]*)*"')


@dataclass
class Rendered:
    """A tool under one rendering: chunks encoded separately, and constant tokens per part."""

    chunks: list[Segments] = field(default_factory=list)
    constants: dict[str, int] = field(default_factory=dict)


def _top_key(k: str) -> str:
    return _KEY_PART.get(k, "other")


def _schema_segments(text: str, out: Segments) -> None:
    """Split a schema's compact JSON into schema structure and its `description` strings."""
    pos = 0
    for m in _DESCRIPTION_PAIR.finditer(text):
        if m.start() > pos:
            out.append((text[pos:m.start()], "schema"))
        out.append((m.group(), "param_descriptions"))
        pos = m.end()
    if pos < len(text):
        out.append((text[pos:], "schema"))


@lru_cache(maxsize=4096)
def _key_json(key: str) -> str:
    """`"key":` as compact JSON; tools repeat the same few keys, so this is cached."""
    return compact_json(key) + ":"


def _object_segments(obj: dict, out: Segments, key_part=_top_key) -> None:
    """Append the compact JSON of a tool object, byte-identical to `compact_json(obj)`, with each
    top-level key (and the comma before it) in its part; `key_part` returning None marks a wrapper
    object whose own keys are tool keys (OpenAI Chat's `function`)."""
    out.append(("{", "structure"))
    for i, (k, v) in enumerate(obj.items()):
        head = ("," if i else "") + _key_json(str(k))
        part = key_part(k)
        if part is None and isinstance(v, dict):
            out.append((head, "structure"))
            _object_segments(v, out)
        elif part == "schema":
            out.append((head, part))
            _schema_segments(compact_json(v), out)
        else:
            out.append((head + compact_json(v), part or "other"))
    out.append(("}", "structure"))


def json_object(tool: Tool, render: str) -> dict:
    """The object whose compact JSON is the tool under a JSON rendering (json, sent, anthropic)."""
    if render == "sent":
        return tool.as_sent()
    obj: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        obj["description"] = tool.description
    obj["input_schema" if render == "anthropic" else "inputSchema"] = tool.input_schema
    return obj


def _chat_key(k: str) -> str | None:
    return None if k == "function" else "other"


def render_json(tool: Tool) -> Rendered:
    """Compact JSON of name, description and input schema (the method of “Tool Calling in Language Model Agents”, Figure 1)."""
    segs: Segments = []
    _object_segments(json_object(tool, "json"), segs)
    return Rendered([segs])


def render_sent(tool: Tool) -> Rendered:
    """Compact JSON of the object the source sent, every key in its order."""
    raw = tool.as_sent()
    segs: Segments = []
    wrapped = isinstance(raw.get("function"), dict)  # OpenAI Chat wraps the body
    _object_segments(raw, segs, _chat_key if wrapped else _top_key)
    return Rendered([segs])


def render_anthropic(tool: Tool) -> Rendered:
    """The tool as Anthropic's API takes it: name, description, input_schema."""
    segs: Segments = []
    _object_segments(json_object(tool, "anthropic"), segs)
    return Rendered([segs])


def _strip_period(s: str) -> str:
    return s[:-1] if s.endswith(".") else s


def render_openai(tool: Tool, c: dict[str, int]) -> Rendered:
    """The cookbook's count: `name:description`, one `key:type:description` line per property,
    enum items, and per-function/per-property constants. A property with nested structure (an
    object with properties, an array of such, a `$ref` or an `anyOf`), which the cookbook leaves
    out, has as its type the TypeScript text openai-chat-tokens documents (toolsurvey.providers.typescript)."""
    r = Rendered(constants={"structure": c["func_init"]})
    desc = _strip_period(tool.description or "")
    r.chunks.append([(f"{tool.name}:", "name"), (desc, "description")])
    _openai_properties(tool.input_schema, c, r)
    return r


def _nested(prop: dict, root: Any) -> bool:
    """Whether a property's type needs more than the cookbook's one-word type."""
    from .typescript import resolve_ref

    if "$ref" in prop or isinstance(prop.get("anyOf"), list):
        return True
    if prop.get("type") == "object" and isinstance(prop.get("properties"), dict) and prop["properties"]:
        return True
    items = prop.get("items") if prop.get("type") == "array" else None
    return isinstance(items, dict) and (_nested(items, root) or resolve_ref(items, root)[0] is not items)


def _openai_properties(schema: Any, c: dict[str, int], r: Rendered) -> None:
    from .typescript import type_segments

    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict) or not props:
        return
    r.constants["structure"] += c["prop_init"]
    for key, prop in props.items():
        r.constants["structure"] += c["prop_key"]
        prop = prop if isinstance(prop, dict) else {}
        pdesc = prop.get("description")
        pdesc = _strip_period(pdesc) if isinstance(pdesc, str) else ""
        if _nested(prop, schema):
            r.chunks.append([(f"{key}:", "schema"), *type_segments(prop, 0, schema), (":", "schema"),
                             (pdesc, "param_descriptions")])
            continue
        ptype = prop.get("type", "")
        ptype = "|".join(map(str, ptype)) if isinstance(ptype, list) else str(ptype)
        enum = prop.get("enum")
        if isinstance(enum, list):
            r.constants["structure"] += c["enum_init"] + c["enum_item"] * len(enum)
            r.chunks.extend([[(str(item), "schema")] for item in enum])
        r.chunks.append([(f"{key}:{ptype}:", "schema"), (pdesc, "param_descriptions")])


# --- provider constants (data, not code) --------------------------------------------------------


