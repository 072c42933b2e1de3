"""Schema and parameter rules: the root shape, references, combinators, types, descriptions, required,
additionalProperties, $schema keys, enumerations written as prose."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache
from typing import Any

from ...core.jsontree import compact
from ...errors import InputError
from .rule import MAX_DEPTH, Ctx, Hit, params, short, walk


def check_schema_not_object(ctx: Ctx):
    s = ctx.schema
    if not isinstance(s, dict):
        yield Hit(f"input schema is a {type(s).__name__}, not an object schema")
    elif s.get("type") != "object":
        found = f"type {s['type']!r}" if "type" in s else "no type" + (" (empty schema)" if not s else "")
        yield Hit(f"root has {found}; providers require type: object")


def inline_refs(schema: Any, max_nodes: int = 20000) -> tuple[Any, list[str]]:
    """The schema with local `#/$defs/…` and `#/definitions/…` references inlined, and the ones
    that could not be (cyclic, external, missing, or too large to inline)."""
    if not isinstance(schema, dict):
        return schema, []
    defs = {**{f"#/definitions/{k}": v for k, v in (schema.get("definitions") or {}).items()},
            **{f"#/$defs/{k}": v for k, v in (schema.get("$defs") or {}).items()}}
    unresolved: list[str] = []
    budget = [max_nodes]

    def go(node: Any, stack: tuple[str, ...], depth: int) -> Any:
        budget[0] -= 1
        if budget[0] < 0 or depth > MAX_DEPTH:
            raise OverflowError
        if isinstance(node, list):
            return [go(v, stack, depth + 1) for v in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            if ref in stack:
                unresolved.append(f"{ref} (cyclic)")
                return node
            if ref not in defs:
                unresolved.append(f"{ref} (not a local definition)")
                return node
            target = go(defs[ref], stack + (ref,), depth + 1)
            rest = {k: go(v, stack, depth + 1) for k, v in node.items() if k != "$ref"}
            return {**target, **rest} if isinstance(target, dict) else target
        return {k: go(v, stack, depth + 1) for k, v in node.items() if k not in ("$defs", "definitions")}

    try:
        return go(schema, (), 0), sorted(set(unresolved))
    except OverflowError:
        return schema, ["(too large to inline automatically)"]


def check_schema_ref(ctx: Ctx):
    found = sorted({k for _, node in walk(ctx.schema) if isinstance(node, dict)
                    for k in ("$ref", "$defs", "definitions") if k in node})
    if not found:
        return
    inlined, unresolved = inline_refs(ctx.schema)
    tokens = ctx.saving(replace(ctx.tool, input_schema=inlined, raw=None)) if not unresolved else 0
    note = f"; cannot inline: {', '.join(unresolved)}" if unresolved else ""
    yield Hit(f"schema uses {', '.join(found)}{note}", tokens,
              fix=None if not unresolved else "restructure the schema without recursive references "
                                              "(e.g. a depth-limited shape or a string id)")


def check_schema_root_combinator(ctx: Ctx):
    if isinstance(ctx.schema, dict):
        found = [k for k in ("oneOf", "allOf", "anyOf") if k in ctx.schema]
        if found:
            yield Hit(f"root uses {', '.join(found)}")


def _param_hits(ctx: Ctx, missing: Callable[[dict], bool], what: str):
    bad = [name for name, prop in params(ctx.schema) if missing(prop)]
    if bad:
        yield Hit(f"{len(bad)} parameter(s) without {what}: {', '.join(bad[:8])}" + (" …" if len(bad) > 8 else ""))


_TYPED = ("type", "enum", "const", "$ref", "anyOf", "oneOf", "allOf")


def check_param_no_type(ctx: Ctx):
    yield from _param_hits(ctx, lambda p: not any(k in p for k in _TYPED), "a type")


def check_param_no_description(ctx: Ctx):
    yield from _param_hits(ctx, lambda p: not (isinstance(p.get("description"), str) and p["description"].strip()),
                           "a description")


def _has_params(schema: Any) -> bool:
    return isinstance(schema, dict) and isinstance(schema.get("properties"), dict) and bool(schema["properties"])


def check_schema_no_required(ctx: Ctx):
    s = ctx.schema
    if not isinstance(s, dict) or "required" in s:
        return
    if s.get("type") == "object" or any(k in s for k in ("oneOf", "anyOf", "allOf")):
        n = len(s["properties"]) if isinstance(s.get("properties"), dict) else 0
        where = "at the root" + (" (only inside oneOf/anyOf/allOf branches)" if n == 0 and "properties" not in s else "")
        yield Hit(f"{n} parameter(s) and no required array {where}")


def check_schema_additional_properties(ctx: Ctx):
    if _has_params(ctx.schema) and ctx.schema.get("additionalProperties") is not False:
        found = ctx.schema.get("additionalProperties", "absent")
        fixed = replace(ctx.tool, input_schema={**ctx.schema, "additionalProperties": False}, raw=None)
        yield Hit(f"additionalProperties is {compact(found) if found != 'absent' else found}", ctx.saving(fixed))


def _drop_key(node: Any, key: str, depth: int = 0) -> Any:
    if depth > MAX_DEPTH:
        return node
    if isinstance(node, dict):
        return {k: _drop_key(v, key, depth + 1) for k, v in node.items() if k != key}
    if isinstance(node, list):
        return [_drop_key(v, key, depth + 1) for v in node]
    return node


def check_schema_dollar_schema(ctx: Ctx):
    where = [p or "/" for p, node in walk(ctx.schema) if isinstance(node, dict) and "$schema" in node]
    if where:
        fixed = replace(ctx.tool, input_schema=_drop_key(ctx.schema, "$schema"), raw=None)
        yield Hit(f"$schema at {', '.join(where[:5])}", ctx.saving(fixed))


@lru_cache(maxsize=8)
def _compiled(patterns: tuple[str, ...]) -> list[re.Pattern]:
    try:
        return [re.compile(p) for p in patterns]
    except re.error as e:
        raise InputError(f"invalid regular expression in the audit config: {e}") from None


def check_param_enum_in_prose(ctx: Ctx):
    pats = _compiled(tuple(ctx.cfg["schema"]["enum_phrases"]))
    for name, prop in params(ctx.schema):
        desc = prop.get("description")
        if prop.get("type", "string") != "string" or "enum" in prop or not isinstance(desc, str):
            continue
        m = next((m for p in pats if (m := p.search(desc))), None)
        if m:
            yield Hit(f"{name}: {short(desc[max(0, m.start() - 20):m.end() + 40])}",
                      fix=f"make {name} an enum of the listed values and drop the list from its description")
