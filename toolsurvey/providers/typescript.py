"""JSON schemas as the TypeScript type text OpenAI's prompt shows for function parameters.

The layout is the one the npm package `openai-chat-tokens` (0.2.8) documents in `functions.ts`:
a `namespace functions {` block, one `type NAME = (_: {...}) => any;` per function, `// description`
comment lines, `name?:` for optional properties, nested objects as indented `{ ... }` blocks, arrays
as `T[]`, enums and `anyOf` as unions. Beyond it, local `$ref`s are inlined (a recursive one is `any`),
a list of types is a union, and, with `deep=True`, descriptions below the first level are kept.
Each piece is a (text, part) segment so that descriptions count as `param_descriptions`.
"""

from __future__ import annotations

from typing import Any

Segments = list[tuple[str, str]]


def _number(v: Any) -> str:
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


def resolve_ref(schema: Any, root: Any, seen: frozenset = frozenset()) -> tuple[Any, frozenset]:
    """`schema` with a local `$ref` (#/$defs/X, #/definitions/X, any #/ pointer) replaced by its
    target; None for an unresolvable or recursive one. Returns the schema and the refs followed."""
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        if ref in seen or not ref.startswith("#/"):
            return None, seen
        seen = seen | {ref}
        node: Any = root
        for key in ref[2:].split("/"):
            key = key.replace("~1", "/").replace("~0", "~")
            node = node.get(key) if isinstance(node, dict) else None
        schema = node
    return schema, seen


def type_segments(p: Any, indent: int, root: Any, *, deep: bool = True, seen: frozenset = frozenset()) -> Segments:
    """The TypeScript type of one property schema, as segments."""
    p, seen = resolve_ref(p, root, seen)
    if not isinstance(p, dict):
        return [("any", "schema")]
    if isinstance(p.get("anyOf"), list):
        out: Segments = []
        for i, v in enumerate(p["anyOf"]):
            out += ([(" | ", "schema")] if i else []) + type_segments(v, indent, root, deep=deep, seen=seen)
        return out
    t = p.get("type")
    if isinstance(t, list):
        return [(" | ".join(_simple(x) for x in t), "schema")]
    enum = p.get("enum")
    if t == "string" and isinstance(enum, list):
        return [(" | ".join(f'"{v}"' for v in enum), "schema")]
    if t in ("number", "integer") and isinstance(enum, list):
        return [(" | ".join(_number(v) for v in enum), "schema")]
    if t == "object":
        return [("{\n", "schema"), *property_segments(p, indent + 2, root, deep=deep, seen=seen), ("\n}", "schema")]
    if t == "array":
        items = p.get("items")
        if isinstance(items, dict):
            return [*type_segments(items, indent, root, deep=deep, seen=seen), ("[]", "schema")]
        return [("any[]", "schema")]
    return [(_simple(t), "schema")]


def _simple(t: Any) -> str:
    return {"string": "string", "number": "number", "integer": "number", "boolean": "boolean",
            "null": "null", "object": "object", "array": "any[]"}.get(t, "any")


def property_segments(obj: dict, indent: int, root: Any, *, deep: bool = True, seen: frozenset = frozenset()) -> Segments:
    """An object's properties, one `// description` and one `name?: type,` line each, indented."""
    props = obj.get("properties") if isinstance(obj.get("properties"), dict) else {}
    required = obj.get("required") if isinstance(obj.get("required"), list) else []
    pad = " " * indent
    lines: list[Segments] = []
    for name, param in props.items():
        desc = param.get("description") if isinstance(param, dict) else None
        if isinstance(desc, str) and desc and (deep or indent < 2):
            lines.append([(pad + "// ", "schema"), (desc, "param_descriptions")])
        opt = "" if name in required else "?"
        lines.append([(f"{pad}{name}{opt}: ", "schema"), *type_segments(param, indent, root, deep=deep, seen=seen),
                      (",", "schema")])
    out: Segments = []
    for i, line in enumerate(lines):
        out += ([("\n", "schema")] if i else []) + line
    return out


def function_definitions(functions: list[dict], *, deep: bool = False) -> str:
    """The `namespace functions { ... }` text for OpenAI function objects (name, description,
    parameters), as openai-chat-tokens' formatFunctionDefinitions builds it (deep=False)."""
    lines = ["namespace functions {", ""]
    for f in functions:
        if f.get("description"):
            lines.append(f"// {f['description']}")
        params = f.get("parameters") or {}
        if params.get("properties"):
            body = "".join(t for t, _ in property_segments(params, 0, params, deep=deep))
            lines += [f"type {f['name']} = (_: {{", body, "}) => any;"]
        else:
            lines.append(f"type {f['name']} = () => any;")
        lines.append("")
    lines.append("} // namespace functions")
    return "\n".join(lines)
