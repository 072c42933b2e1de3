"""The schema rewrite rules: one named, documented rule per row of `RULES`, each a function from a
tool to its rewritten input schema, the places it changed and the places it refused (its
precondition, the cheap run-time form of the equivalence the property tests prove: every instance
valid under the old schema is valid under the new one, and the other way round)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...core.registry import Tool
from .keywords import (
    ANNOTATIONS,
    DIALECT_SENSITIVE,
    MAX_DEPTH,
    ONE_SCHEMA,
    SCHEMA_LISTS,
    SCHEMA_MAPS,
    TYPE_SPECIFIC,
    dialect,
    is_2020_12,
    subschemas,
    transform,
)


@dataclass
class Change:
    """What one rule did to one schema: the new schema, where it changed it, where it refused and why."""

    schema: Any
    sites: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SchemaRule:
    """A named rewrite: what it removes, the audit rule it answers (if any), the provider facts it
    needs (`providers.schemas`), where the defect is described, and the rewrite itself."""

    id: str
    title: str
    audit_rule: str | None
    needs: tuple[str, ...]
    source: str
    apply: Callable[[Tool], Change] = field(repr=False, compare=False)
    compat: bool = False  # it fixes a defect clients trip on, so it is applied even where it costs tokens


def _over(tool: Tool, change: Callable[[dict, str, Change], dict]) -> Change:
    """Apply `change(node, path, result)` to every subschema of the tool's input schema."""
    out = Change(tool.input_schema)
    try:
        out.schema = transform(tool.input_schema, lambda node, path: change(node, path, out))
    except RecursionError as e:
        return Change(tool.input_schema, refused=[f"schema {e}"])
    return out


def _where(path: str) -> str:
    return path or "/"


# --- drop-dollar-schema --------------------------------------------------------------------------


def drop_dollar_schema(tool: Tool) -> Change:
    """`$schema` keys go; a root `$schema` naming a draft other than 2020-12 goes only when the schema
    uses no keyword whose meaning differs between that draft and 2020-12 (the dialect a schema without
    `$schema` is read in), and when no `$ref` has siblings (draft-07 ignores them, 2020-12 applies them)."""
    schema = tool.input_schema
    if not isinstance(schema, dict):
        return Change(schema)
    where = [p for p, node in subschemas(schema) if "$schema" in node]
    if not where:
        return Change(schema)
    why = _dialect_risk(schema)
    if why:
        return Change(schema, refused=[f"{_where(where[0])}: $schema names {dialect(schema)}, and {why}, which "
                                       "2020-12 reads differently"])
    return _over(tool, lambda node, path, out: _without(node, "$schema", path, out))


def _dialect_risk(schema: dict) -> str | None:
    if is_2020_12(dialect(schema)):
        return None
    for path, node in subschemas(schema):
        used = sorted(k for k in node if k in DIALECT_SENSITIVE)
        if used:
            return f"{_where(path)} uses {', '.join(used)}"
        if "$ref" in node and set(node) - ANNOTATIONS - {"$ref", "$schema"}:
            return f"{_where(path)} has keywords beside $ref"
        for k in ("exclusiveMinimum", "exclusiveMaximum"):
            if isinstance(node.get(k), bool):
                return f"{_where(path)} has a boolean {k} (draft-04)"
        if isinstance(node.get("items"), list):
            return f"{_where(path)} has items as a list (a tuple before 2020-12)"
    return None


def _without(node: dict, key: str, path: str, out: Change) -> dict:
    if key not in node:
        return node
    out.sites.append(_where(path))
    return {k: v for k, v in node.items() if k != key}


# --- drop-title ----------------------------------------------------------------------------------


def _folded(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


_ROOT_TITLE_ENDINGS = ("", "arguments", "args", "input", "params", "parameters", "request", "schema")


def drop_restated_titles(tool: Tool) -> Change:
    """A `title` that restates the name it sits under goes: a property's (Pydantic writes `User Id` for
    `user_id`), a definition's (the class name it is filed under), the root's (FastMCP writes
    `<tool>Arguments`). A title is an annotation: no instance validates differently."""
    tool_name = _folded(tool.name)

    def change(node: dict, path: str, out: Change) -> dict:
        node = dict(node)
        for key in ("properties", "$defs", "definitions"):
            if isinstance(node.get(key), dict):
                node[key] = {name: _untitled(s, name, f"{path}/{key}/{name}", out) for name, s in node[key].items()}
        if path == "" and isinstance(node.get("title"), str) and any(
                _folded(node["title"]) == tool_name + end for end in _ROOT_TITLE_ENDINGS):
            out.sites.append("/")
            node.pop("title")
        return node

    return _over(tool, change)


def _untitled(schema: Any, name: str, path: str, out: Change) -> Any:
    if isinstance(schema, dict) and isinstance(schema.get("title"), str) and _folded(schema["title"]) == _folded(name):
        out.sites.append(path)
        return {k: v for k, v in schema.items() if k != "title"}
    return schema


# --- drop-default-null ---------------------------------------------------------------------------


def drop_default_null(tool: Tool) -> Change:
    """`"default": null` on a property the object does not require goes: omitting it already means no
    value. A default is an annotation: no instance validates differently."""
    def change(node: dict, path: str, out: Change) -> dict:
        props = node.get("properties")
        if not isinstance(props, dict):
            return node
        required = set(node["required"]) if isinstance(node.get("required"), list) else set()
        new = {}
        for name, s in props.items():
            if isinstance(s, dict) and "default" in s and s["default"] is None and name not in required:
                out.sites.append(f"{path}/properties/{name}")
                s = {k: v for k, v in s.items() if k != "default"}
            new[name] = s
        return {**node, "properties": new}

    return _over(tool, change)


# --- drop-duplicate-description ------------------------------------------------------------------


def _same_text(a: Any, b: Any) -> bool:
    return isinstance(a, str) and isinstance(b, str) and " ".join(a.split()) == " ".join(b.split())


def drop_duplicate_descriptions(tool: Tool) -> Change:
    """A description said twice goes: the root schema's when it repeats the tool's own, and a branch's
    (anyOf, oneOf, allOf) when it repeats the schema it branches from. Descriptions are annotations."""
    def change(node: dict, path: str, out: Change) -> dict:
        node = dict(node)
        if path == "" and _same_text(node.get("description"), tool.description):
            out.sites.append("/")
            node.pop("description")
        for key in ("anyOf", "oneOf", "allOf"):
            branches = node.get(key)
            if isinstance(branches, list) and "description" in node:
                node[key] = [_without(b, "description", f"{path}/{key}/{i}", out)
                             if isinstance(b, dict) and _same_text(b.get("description"), node["description"]) else b
                             for i, b in enumerate(branches)]
        return node

    return _over(tool, change)


# --- drop-additional-properties-true -------------------------------------------------------------


def drop_true_additional_properties(tool: Tool) -> Change:
    """`"additionalProperties": true` (or `{}`) goes: it is the default, allowing what absence allows.
    `false` stays (OpenAI's strict mode requires it)."""
    def change(node: dict, path: str, out: Change) -> dict:
        if node.get("additionalProperties") is True or node.get("additionalProperties") == {}:
            return _without(node, "additionalProperties", path, out)
        return node

    return _over(tool, change)


# --- collapse-nullable-anyof ---------------------------------------------------------------------


def collapse_nullable(tool: Tool) -> Change:
    """`{"anyOf": [{"type": T, ...}, {"type": "null"}]}` becomes `{"type": [T, "null"], ...}` when every
    keyword of the T branch constrains T alone (so null passes it as it passed the null branch): no
    enum, const, combinator or reference, and no keyword beside anyOf but annotations the branch lacks."""
    if tool.extra.get("strict") is True:
        return Change(tool.input_schema, refused=["/: a strict tool (its provider compiles a subset of JSON "
                                                  "Schema; the type-list form is not checked against it)"])

    def change(node: dict, path: str, out: Change) -> dict:
        branches = node.get("anyOf")
        if not (isinstance(branches, list) and len(branches) == 2 and {"type": "null"} in branches):
            return node
        other = branches[1 - branches.index({"type": "null"})]
        why = _not_collapsible(node, other)
        if why:
            out.refused.append(f"{_where(path)}: {why}")
            return node
        merged: dict = {}
        for k, v in node.items():
            if k == "anyOf":
                merged.update({bk: bv for bk, bv in other.items() if bk != "type"})
                merged["type"] = [other["type"], "null"]
            else:
                merged[k] = v
        out.sites.append(_where(path))
        return merged

    return _over(tool, change)


def _not_collapsible(node: dict, other: Any) -> str | None:
    if not isinstance(other, dict) or not isinstance(other.get("type"), str) or other["type"] == "null":
        return "the non-null branch has no single type"
    allowed = TYPE_SPECIFIC.get(other["type"], frozenset()) | ANNOTATIONS | {"type"}
    extra = sorted(set(other) - allowed)
    if extra:
        return f"the {other['type']} branch has {', '.join(extra)}, which null would have to pass too"
    beside = sorted(set(node) - ANNOTATIONS - {"anyOf"})
    if beside:
        return f"{', '.join(beside)} beside anyOf"
    clash = sorted((set(node) & set(other)) - {"type"})
    if clash:
        return f"both the schema and its branch have {', '.join(clash)}"
    return None


# --- inline-refs ---------------------------------------------------------------------------------

_REF = re.compile(r"#/(\$defs|definitions)/([^/~%]+)")
_ANCHORS = ("$id", "id", "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveRef", "$recursiveAnchor")


def inline_refs(tool: Tool, max_nodes: int = 20_000) -> Change:
    """Every `$ref` to a root definition is replaced by the definition, and `$defs`/`definitions` go:
    clients reject or drop a `$ref` (“Why Your Agent Never Calls Your MCP Tool”). Refused, leaving the
    schema as it is, for a cyclic, external or nested reference, ids and anchors, and a `$ref` with
    keywords beside it other than annotations (2020-12 applies them with the target, draft-07 ignores
    them: a merge is neither)."""
    schema = tool.input_schema
    if not isinstance(schema, dict):
        return Change(schema)
    nodes = list(subschemas(schema))
    if not any("$ref" in n or "$defs" in n or "definitions" in n for _, n in nodes):
        return Change(schema)
    why = _refs_refused(schema, nodes)
    if why:
        return Change(schema, refused=[why])
    defs = {("$defs", k): v for k, v in (schema.get("$defs") or {}).items()}
    defs |= {("definitions", k): v for k, v in (schema.get("definitions") or {}).items()}
    out = Change(schema)
    budget = [max_nodes]

    def resolve(node: Any, stack: tuple, depth: int) -> Any:
        budget[0] -= 1
        if budget[0] < 0 or depth > MAX_DEPTH:
            raise OverflowError
        if not isinstance(node, dict):
            return node
        node = {k: _map_sub(k, v, lambda s: resolve(s, stack, depth + 1)) for k, v in node.items()}
        ref = node.get("$ref")
        if not isinstance(ref, str):
            return node
        m = _REF.fullmatch(ref)
        key = (m[1], m[2])
        if key in stack:
            raise _Cyclic(ref)
        target = resolve(defs[key], stack + (key,), depth + 1)
        out.sites.append(ref)
        rest = {k: v for k, v in node.items() if k != "$ref"}
        if isinstance(target, bool):  # true with annotations is their object; false stays false
            return target if not rest else (rest if target else {**rest, "not": {}})
        return {**target, **rest}

    try:
        body = {k: v for k, v in schema.items() if k not in ("$defs", "definitions")}
        out.schema = resolve(body, (), 0)
    except _Cyclic as e:
        return Change(schema, refused=[f"{e.args[0]} refers to itself"])
    except OverflowError:
        return Change(schema, refused=[f"too large to inline (over {max_nodes:,} schema nodes)"])
    out.schema = transform(out.schema, lambda n, p: {k: v for k, v in n.items() if k not in ("$defs", "definitions")})
    out.sites = sorted(set(out.sites))
    return out


class _Cyclic(Exception):
    pass


def _map_sub(key: str, value: Any, f: Callable[[Any], Any]) -> Any:
    """`value` of keyword `key` with `f` applied to the subschemas it holds (definitions are left out)."""
    if key in SCHEMA_MAPS and key not in ("$defs", "definitions") and isinstance(value, dict):
        return {n: f(s) for n, s in value.items()}
    if key in SCHEMA_LISTS and isinstance(value, list):
        return [f(s) for s in value]
    if key in ONE_SCHEMA and isinstance(value, dict):
        return f(value)
    return value


def _refs_refused(schema: dict, nodes: list) -> str | None:
    for path, node in nodes:
        for k in _ANCHORS:
            if k in node:
                return f"{_where(path)} has {k}, which a reference may resolve to"
        ref = node.get("$ref")
        if ref is None:
            if path and any(k in node for k in ("$defs", "definitions")):
                return f"{_where(path)} has definitions below the root"
            continue
        m = _REF.fullmatch(ref) if isinstance(ref, str) else None
        if m is None or m[2] not in (schema.get(m[1]) or {}):
            return f"{_where(path)}: $ref {json.dumps(ref)} is not a definition at the root"
        beside = sorted(set(node) - ANNOTATIONS - {"$ref"})
        if beside:
            return f"{_where(path)}: $ref has {', '.join(beside)} beside it"
    return None


RULES: dict[str, SchemaRule] = {r.id: r for r in [
    SchemaRule("drop-dollar-schema", "drop `$schema` keys", "schema-dollar-schema", (),
               "MCP 2025-11-25 (Tools: inputSchema defaults to JSON Schema 2020-12 when $schema is absent); "
               "the audit's schema-dollar-schema rule", drop_dollar_schema),
    SchemaRule("drop-restated-title", "drop a `title` that restates the name it sits under", None, (),
               "Pydantic's JSON Schema generation (a field's title is its name title-cased) and FastMCP "
               "(the root title is `<tool>Arguments`)", drop_restated_titles),
    SchemaRule("drop-default-null", "drop `\"default\": null` beside an optional property", None, (),
               "Pydantic writes `default: null` for every `X | None = None` field", drop_default_null),
    SchemaRule("drop-duplicate-description", "drop a description that repeats the tool's or its parent's",
               None, (), "the tool's description is sent beside its input schema (MCP Tools)",
               drop_duplicate_descriptions),
    SchemaRule("drop-additional-properties-true", "drop `\"additionalProperties\": true`", None, (),
               "JSON Schema 2020-12 Core, 10.3.2.3: additionalProperties absent behaves as true",
               drop_true_additional_properties),
    SchemaRule("collapse-nullable-anyof", "`anyOf: [T, null]` as `type: [T, \"null\"]`", None, ("type_arrays",),
               "JSON Schema 2020-12 Validation, 6.1.1 (type as an array); Pydantic writes `X | None` as anyOf",
               collapse_nullable),
    SchemaRule("inline-refs", "inline `$ref` and drop `$defs`", "schema-ref", (),
               "“Why Your Agent Never Calls Your MCP Tool” (clients reject or drop a top-level $ref); the "
               "audit's schema-ref rule", inline_refs, compat=True),
]}
