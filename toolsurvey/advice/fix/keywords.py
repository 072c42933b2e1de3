"""The JSON Schema vocabulary the rewrite rules need: which keywords hold subschemas (so a rule only
ever touches a schema, never a property that happens to be named `title`), which are annotations
(they never change what validates), and which constrain one type only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MAX_DEPTH = 64  # deeper schemas are left as they are (a rule refuses them)

ONE_SCHEMA = frozenset({"additionalProperties", "additionalItems", "contains", "not", "if", "then", "else",
                        "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema", "items"})
SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas",
                         "dependencies"})
SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
# Keywords that never decide whether an instance is valid (JSON Schema 2020-12 Meta-Data vocabulary,
# plus $comment): removing or moving one cannot change a validation result.
ANNOTATIONS = frozenset({"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
                         "$comment"})
# Keywords that constrain instances of one type and let every other type through (2020-12 Validation
# and Applicator vocabularies, with draft-07's additionalItems and dependencies).
TYPE_SPECIFIC = {
    "string": frozenset({"minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType",
                         "contentSchema"}),
    "number": frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "format"}),
    "array": frozenset({"items", "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems",
                        "contains", "minContains", "maxContains", "unevaluatedItems"}),
    "object": frozenset({"properties", "required", "additionalProperties", "patternProperties", "minProperties",
                         "maxProperties", "propertyNames", "dependentRequired", "dependentSchemas",
                         "unevaluatedProperties", "dependencies"}),
    "boolean": frozenset(),
}
TYPE_SPECIFIC["integer"] = TYPE_SPECIFIC["number"]
# Keywords whose meaning differs between the draft a `$schema` names (04 to 2019-09) and 2020-12, the
# dialect a schema without `$schema` is read in: new keywords the older drafts ignore, old ones 2020-12
# ignores, and ids and anchors that change what a reference resolves to.
DIALECT_SENSITIVE = frozenset({"additionalItems", "dependencies", "prefixItems", "dependentRequired",
                               "dependentSchemas", "unevaluatedItems", "unevaluatedProperties", "minContains",
                               "maxContains", "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef",
                               "$recursiveAnchor", "$id", "id", "$vocabulary"})
DEFAULT_DIALECT = "https://json-schema.org/draft/2020-12/schema"

Rewrite = Callable[[dict, str], dict]  # (schema node, its path) -> the node, changed or not


def transform(node: Any, change: Rewrite, path: str = "", depth: int = 0) -> Any:
    """`node` with `change` applied to every subschema, the innermost first (a keyword's value that is
    data, such as `enum`, `default` or a property's name, is never visited). Raises RecursionError
    past MAX_DEPTH (a rule refuses such a schema)."""
    if not isinstance(node, dict):
        return node
    if depth > MAX_DEPTH:
        raise RecursionError(f"nested more than {MAX_DEPTH} levels at {path or '/'}")
    out = {}
    for k, v in node.items():
        where = f"{path}/{k}"
        if k in SCHEMA_MAPS and isinstance(v, dict):
            v = {name: transform(s, change, f"{where}/{name}", depth + 1) for name, s in v.items()}
        elif k in SCHEMA_LISTS and isinstance(v, list):
            v = [transform(s, change, f"{where}/{i}", depth + 1) for i, s in enumerate(v)]
        elif k in ONE_SCHEMA and isinstance(v, dict):
            v = transform(v, change, where, depth + 1)
        out[k] = v
    return change(out, path)


def subschemas(node: Any, path: str = "", depth: int = 0):
    """(path, subschema) of `node` and of every schema inside it, outermost first."""
    if not isinstance(node, dict) or depth > MAX_DEPTH:
        return
    yield path, node
    for k, v in node.items():
        where = f"{path}/{k}"
        if k in SCHEMA_MAPS and isinstance(v, dict):
            for name, s in v.items():
                yield from subschemas(s, f"{where}/{name}", depth + 1)
        elif k in SCHEMA_LISTS and isinstance(v, list):
            for i, s in enumerate(v):
                yield from subschemas(s, f"{where}/{i}", depth + 1)
        elif k in ONE_SCHEMA and isinstance(v, dict):
            yield from subschemas(v, where, depth + 1)


def dialect(schema: Any) -> str:
    """The dialect a schema is read in: its root `$schema`, else 2020-12."""
    s = schema.get("$schema") if isinstance(schema, dict) else None
    return s.rstrip("#") if isinstance(s, str) else DEFAULT_DIALECT


def is_2020_12(uri: str) -> bool:
    return uri.rstrip("#").rstrip("/") in {DEFAULT_DIALECT, "http://json-schema.org/draft/2020-12/schema"}
