"""Renderings: the text a provider's model sees for a tool, split into labelled parts.

A rendering turns a Tool into *chunks*. Each chunk is a list of (text, part) segments that are
encoded together as one string, plus a few constant tokens per part (provider formatting whose
text is not public). A tool's tokens are the sum over its chunks of the exact token count of the
chunk's text, plus the constants. Each token is attributed to the part in which it starts, so
the parts of a tool always add up exactly to its total.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..core.jsontree import compact
from ..core.registry import Tool
from ..errors import InputError

PARTS = ("name", "description", "schema", "param_descriptions", "annotations",
         "output_schema", "other", "structure")

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
    return compact(key) + ":"


def _object_segments(obj: dict, out: Segments, key_part=_top_key) -> None:
    """Append the compact JSON of a tool object, byte-identical to `compact(obj)`, with each
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
            _schema_segments(compact(v), out)
        else:
            out.append((head + compact(v), part or "other"))
    out.append(("}", "structure"))


def tool_object(tool: Tool, schema_key: str) -> dict:
    """{name, description, <schema_key>: input schema}: a tool as a JSON rendering shows it."""
    obj: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        obj["description"] = tool.description
    obj[schema_key] = tool.input_schema
    return obj


def _chat_key(k: str) -> str | None:
    return None if k == "function" else "other"


def render_object(obj: dict) -> Rendered:
    """A tool object's compact JSON as one chunk, each top-level key in its part."""
    segs: Segments = []
    _object_segments(obj, segs)
    return Rendered([segs])


def render_sent(tool: Tool) -> Rendered:
    """Compact JSON of the object the source sent, every key in its order."""
    raw = tool.as_sent()
    segs: Segments = []
    wrapped = isinstance(raw.get("function"), dict)  # OpenAI Chat wraps the body
    _object_segments(raw, segs, _chat_key if wrapped else _top_key)
    return Rendered([segs])


# --- renderings as objects --------------------------------------------------------------------


@dataclass(frozen=True)
class Overhead:
    """The tokens a provider adds once to every request that carries tools, and what they are."""

    tokens: int = 0
    why: str = ""


@dataclass(frozen=True)
class Rendering:
    """One way of turning tools into the text a model sees: `name` as --render takes it, what it is,
    whose models see it (`provider`, None for a rendering of no provider's), the tool_choice values
    that change its count (empty where none does), and `documents_overhead` where the provider
    publishes its per-request overhead (then an exact count is checked against it). The generic
    renderings add no overhead and take no model; a provider's subclass overrides the methods."""

    name: str
    description: str
    provider: str | None = None
    tool_choices: tuple[str, ...] = ()
    documents_overhead: bool = False
    tool_method: str = ""  # how one tool is counted, without the per-request constants
    estimate_note: str = ""  # what an exact count corrects, where the tokenizer is not public
    json: bool = True  # the tool is the compact JSON of `json_object`
    schema_key: str = "inputSchema"  # the key of the input schema in that object

    def default_model(self) -> str | None:
        """The model its constants apply to when none is named (None: it has none)."""
        return None

    def check_tool_choice(self, tool_choice: str) -> None:
        """Raise InputError for a tool_choice the provider does not accept (where one matters)."""
        if self.tool_choices and tool_choice not in self.tool_choices:
            raise InputError(f"unknown tool_choice {tool_choice!r}; expected "
                             f"{', '.join(self.tool_choices[:-1])} or {self.tool_choices[-1]}")

    def renderer(self, model: str | None) -> Callable[[Tool], Rendered]:
        """The function turning one tool into its chunks for `model`."""
        return lambda tool: render_object(self.json_object(tool))

    def json_object(self, tool: Tool) -> dict | None:
        """The object whose compact JSON is the tool, for a JSON rendering; None for another."""
        return tool_object(tool, self.schema_key) if self.json else None

    def encoding(self, model: str | None) -> str | None:
        """The tiktoken encoding its constants are for (None: the caller's default)."""
        return None

    def overhead(self, model: str | None, tool_choice: str = "auto") -> Overhead:
        """The tokens the provider adds to a request with tools for `model` (none without a model).
        Raises InputError for a model the provider constants do not list."""
        return Overhead()

    def method(self, model: str | None, tool_choice: str = "auto") -> str:
        """What a footprint under this rendering counts, for a method line."""
        return self.description

    def per_tool_method(self) -> str:
        """How one tool's tokens are counted, leaving out the per-request constants."""
        return self.tool_method or self.description


class SentRendering(Rendering):
    """The object the source sent, every key in its order (OpenAI Chat's `function` wrapper kept)."""

    def renderer(self, model: str | None) -> Callable[[Tool], Rendered]:
        return render_sent

    def json_object(self, tool: Tool) -> dict:
        return tool.as_sent()


JSON = Rendering("json", "compact JSON of name, description and input schema (the method of “Tool Calling "
                         "in Language Model Agents”, Figure 1)")
SENT = SentRendering("sent", "compact JSON of every key the source sent for the tool, in its order")
