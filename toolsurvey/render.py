"""Renderings: the text a provider's model sees for a tool, split into labelled parts.

A rendering turns a Tool into *chunks*. Each chunk is a list of (text, part) segments that are
encoded together as one string, plus a few constant tokens per part (provider formatting whose
text is not public). A tool's tokens are the sum over its chunks of the exact token count of the
chunk's text, plus the constants. Each token is attributed to the part in which it starts, so
the parts of a tool always add up exactly to its total.
"""

from __future__ import annotations

import fnmatch
import json
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from .errors import InputError
from .registry import Tool

PARTS = ("name", "description", "schema", "param_descriptions", "annotations",
         "output_schema", "other", "structure")

RENDERINGS = {
    "json": "compact JSON of name, description and input schema (the seeds' method)",
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


@dataclass
class Rendered:
    """A tool under one rendering: chunks encoded separately, and constant tokens per part."""

    chunks: list[Segments] = field(default_factory=list)
    constants: dict[str, int] = field(default_factory=dict)


def _dumps(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def _json_segments(value: Any, part: str, out: Segments, key_part=None) -> None:
    """Append the compact JSON of `value` to `out`, byte-identical to `_dumps(value)`.

    Inside schemas, every `"description": "..."` pair is tagged `param_descriptions`;
    `key_part` maps the top-level keys of a tool object to their parts.
    """
    if isinstance(value, dict):
        out.append(("{", "structure" if key_part else part))
        for i, (k, v) in enumerate(value.items()):
            sep = "," if i else ""
            if key_part is not None:
                p = key_part(k)
            elif k == "description" and isinstance(v, str) and part == "schema":
                p = "param_descriptions"
            else:
                p = part
            out.append((f"{sep}{_dumps(str(k))}:", p))
            _json_segments(v, p, out)
        out.append(("}", "structure" if key_part else part))
    elif isinstance(value, list):
        out.append(("[", part))
        for i, v in enumerate(value):
            if i:
                out.append((",", part))
            _json_segments(v, part, out)
        out.append(("]", part))
    else:
        out.append((_dumps(value), part))


def _top_key(k: str) -> str:
    return _KEY_PART.get(k, "other")


def render_json(tool: Tool) -> Rendered:
    obj: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        obj["description"] = tool.description
    obj["inputSchema"] = tool.input_schema
    segs: Segments = []
    _json_segments(obj, "structure", segs, key_part=_top_key)
    return Rendered([segs])


def render_sent(tool: Tool) -> Rendered:
    raw = tool.as_sent()
    if "function" in raw and isinstance(raw["function"], dict):  # OpenAI Chat wraps the body
        segs: Segments = [("{", "structure")]
        for i, (k, v) in enumerate(raw.items()):
            sep = "," if i else ""
            if k == "function":
                segs.append((f'{sep}"function":', "structure"))
                _json_segments(v, "structure", segs, key_part=_top_key)
            else:
                segs.append((f"{sep}{_dumps(k)}:", "other"))
                _json_segments(v, "other", segs)
        segs.append(("}", "structure"))
        return Rendered([segs])
    segs = []
    _json_segments(raw, "structure", segs, key_part=_top_key)
    return Rendered([segs])


def render_anthropic(tool: Tool) -> Rendered:
    obj: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        obj["description"] = tool.description
    obj["input_schema"] = tool.input_schema
    segs: Segments = []
    _json_segments(obj, "structure", segs, key_part=_top_key)
    return Rendered([segs])


def _strip_period(s: str) -> str:
    return s[:-1] if s.endswith(".") else s


def render_openai(tool: Tool, c: dict[str, int]) -> Rendered:
    """The cookbook's count: `name:description`, one `key:type:description` line per property,
    enum items, and per-function/per-property constants. Nested object properties (which the
    cookbook leaves out) are counted with the same per-property rule."""
    r = Rendered(constants={"structure": c["func_init"]})
    desc = _strip_period(tool.description or "")
    r.chunks.append([(f"{tool.name}:", "name"), (desc, "description")])
    _openai_properties(tool.input_schema, c, r)
    return r


def _openai_properties(schema: Any, c: dict[str, int], r: Rendered) -> None:
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict) or not props:
        return
    r.constants["structure"] += c["prop_init"]
    for key, prop in props.items():
        r.constants["structure"] += c["prop_key"]
        prop = prop if isinstance(prop, dict) else {}
        ptype = prop.get("type", "")
        ptype = "|".join(map(str, ptype)) if isinstance(ptype, list) else str(ptype)
        enum = prop.get("enum")
        if isinstance(enum, list):
            r.constants["structure"] += c["enum_init"] + c["enum_item"] * len(enum)
            r.chunks.extend([[(str(item), "schema")] for item in enum])
        pdesc = prop.get("description")
        pdesc = _strip_period(pdesc) if isinstance(pdesc, str) else ""
        r.chunks.append([(f"{key}:{ptype}:", "schema"), (pdesc, "param_descriptions")])
        _openai_properties(prop, c, r)
        _openai_properties(prop.get("items"), c, r)


# --- provider constants (data, not code) --------------------------------------------------------


@lru_cache(maxsize=None)
def provider_constants() -> dict[str, Any]:
    """The bundled provider constants file (sources and dates inside)."""
    text = resources.files("toolsurvey").joinpath("assumptions/providers.toml").read_text("utf-8")
    return tomllib.loads(text)


def _match_family(families: dict[str, Any], model: str, provider: str) -> tuple[str, dict]:
    for fam, spec in families.items():
        if any(fnmatch.fnmatchcase(model, pat) for pat in spec["models"]):
            return fam, spec
    known = ", ".join(p for spec in families.values() for p in spec["models"])
    raise InputError(f"no {provider} constants for model {model!r}; known model patterns: {known}. "
                     f"Add a family to providers.toml or pass another --model")


def openai_family(model: str) -> tuple[str, dict]:
    """The cookbook constants that apply to `model`; raises InputError for an unknown model."""
    return _match_family(provider_constants()["openai"]["families"], model, "OpenAI")


def anthropic_family(model: str) -> tuple[str, dict]:
    """The tool-use system prompt sizes that apply to `model`; raises InputError if unknown."""
    return _match_family(provider_constants()["anthropic"]["families"], model, "Anthropic")
