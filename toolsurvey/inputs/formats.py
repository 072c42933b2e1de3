"""Read every tool format into a Registry and write a Registry back out in any of them."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.files import STDIN, read_json
from ..core.jsontree import compact
from ..core.registry import Registry, Server, Tool
from ..core.text import invisible_in
from ..errors import InputError

FORMATS = ("mcp", "openai-chat", "openai-responses", "anthropic", "gemini", "registry")

_DESCRIBE = {
    "mcp": "MCP tools/list result ({'tools': [{'name', 'inputSchema'}]}, a JSON-RPC response, or a list)",
    "openai-chat": "OpenAI Chat Completions tools ([{'type': 'function', 'function': {...}}])",
    "openai-responses": "OpenAI Responses tools ([{'type': 'function', 'name', 'parameters'}])",
    "anthropic": "Anthropic tools ([{'name', 'description', 'input_schema'}])",
    "gemini": "Gemini function declarations ({'functionDeclarations': [...]})",
    "registry": "toolsurvey registry or snapshot ({'servers': {name: {'tools': [...]}}})",
}


# Limits on what a hostile or broken tool definition can make toolsurvey hold (docs/security.md).
# A real description is under 10,000 characters; these stop a hostile one costing minutes and gigabytes.
MAX_DESCRIPTION_CHARS = 10_000_000  # one tool description
MAX_SCHEMA_CHARS = 10_000_000  # one tool's input or output schema, as compact JSON


# --- reading -----------------------------------------------------------------------------------


def load(*sources: Any, format: str | None = None, server: str | None = None) -> Registry:
    """Load files, folders, JSON values or Registries into one Registry.

    Raises InputError for a missing file, invalid JSON or an unrecognized format.
    """
    if not sources:
        raise InputError("nothing to load: expected at least one file, folder or JSON value")
    reg = Registry()
    for src in sources:
        reg = reg.merge(_load_one(src, format, server))
    return reg


def _load_one(src: Any, format: str | None, server: str | None) -> Registry:
    if isinstance(src, Registry):
        return src
    if isinstance(src, (str, os.PathLike)):
        p = Path(src)
        if "\0" in str(p):
            raise InputError(f"{str(p)!r}: a file name cannot contain a NUL character")
        if str(src) != STDIN and p.is_dir():
            files = sorted(p.glob("*.json"))
            if not files:
                raise InputError(f"{p}: folder has no *.json files")
            return load(*files, format=format)
        value = read_json(p)
        stdin = str(src) == STDIN
        return from_json(value, source="standard input" if stdin else str(p),
                         server=server or ("stdin" if stdin else p.stem), format=format, base=p.parent)
    return from_json(src, source="<value>", server=server or "default", format=format)


def from_json(value: Any, *, source: str = "<value>", server: str = "default",
              format: str | None = None, base: Path | None = None) -> Registry:
    """Convert a parsed JSON value to a Registry; raises InputError if no format fits."""
    if format is not None and format not in FORMATS:
        raise InputError(f"unknown format {format!r}; expected one of: {', '.join(FORMATS)}")
    value = _unwrap(value, source)
    if format == "registry" or (format is None and _is_registry(value)):
        return _load_registry(value, source, base or Path("."))
    items = _tool_items(value)
    if items is None:
        raise InputError(_unrecognized(value, source))
    warnings: list[str] = []
    tools = []
    for i, item in enumerate(items):
        where = f"{source}: tool #{i + 1}"
        fmt = format or _detect_item(item)
        if fmt is None:
            warnings.append(f"{where}: {_found(item)} is not a tool in any known format; skipped")
            continue
        tool = _convert(item, fmt, server, where, warnings)
        if tool is not None:
            tools.append(tool)
    if not tools and items:
        raise InputError(_unrecognized(value, source))
    s = Server(server, tuple(tools))
    _check_duplicates(s, source, warnings)
    return Registry({server: s}, warnings, [source])


def _unwrap(value: Any, source: str) -> Any:
    if isinstance(value, dict) and "jsonrpc" in value:
        if "error" in value:
            err = value["error"] if isinstance(value["error"], dict) else {}
            raise InputError(f"{source}: a JSON-RPC error response ({err.get('message', value['error'])!r}), not a tool list")
        if "result" in value:
            return value["result"]
    return value


def _is_registry(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("servers"), dict)


def _tool_items(value: Any) -> list | None:
    """The list of tool-like objects inside any of the supported containers."""
    if isinstance(value, list):
        items: list = []
        for v in value:  # Gemini's tools array: [{"functionDeclarations": [...]}, ...]
            decls = _gemini_decls(v)
            items.extend(decls if decls is not None else [v])
        return items
    if not isinstance(value, dict):
        return None
    decls = _gemini_decls(value)
    if decls is not None:
        return decls
    if isinstance(value.get("tools"), list):
        return _tool_items(value["tools"])
    if isinstance(value.get("name"), str):
        return [value]
    return None


def _gemini_decls(v: Any) -> list | None:
    if isinstance(v, dict):
        for key in ("functionDeclarations", "function_declarations"):
            if isinstance(v.get(key), list):
                return v[key]
    return None


def _detect_item(item: Any) -> str | None:
    if not isinstance(item, dict):
        return None
    if item.get("type") == "function" and isinstance(item.get("function"), dict):
        return "openai-chat"
    if item.get("type") == "function":
        return "openai-responses"
    if "inputSchema" in item:
        return "mcp"
    if "input_schema" in item:
        return "anthropic"
    if "parameters" in item or "parametersJsonSchema" in item:
        return "gemini"
    if "name" in item:
        return "mcp"  # an MCP tool that omitted inputSchema; _convert warns about it
    return None


# For each format: the keys that hold the input and output schemas in one tool object (name,
# description, title and annotations have the same keys in every format: _COMMON).
_LAYOUT: dict[str, dict[str, tuple[str, ...]]] = {
    "mcp": {"input": ("inputSchema",), "output": ("outputSchema",)},
    "openai-chat": {"input": ("parameters",), "output": ()},
    "openai-responses": {"input": ("parameters",), "output": ()},
    "anthropic": {"input": ("input_schema",), "output": ()},
    "gemini": {"input": ("parameters", "parametersJsonSchema"),
               "output": ("response", "responseJsonSchema")},
}
_COMMON = ("name", "description", "title", "annotations")


def _convert(item: dict, fmt: str, server: str, where: str, warnings: list[str]) -> Tool | None:
    body = item["function"] if fmt == "openai-chat" else item
    if fmt == "openai-chat" and not isinstance(body, dict):
        warnings.append(f"{where}: 'function' is {_found(body)}, expected an object; skipped")
        return None
    name = body.get("name")
    if not isinstance(name, str) or not name:
        warnings.append(f"{where}: no name (found {_found(name)}); skipped")
        return None
    where = f"{where} {name!r}"
    layout = _LAYOUT[fmt]
    input_keys, output_keys = layout["input"], layout["output"]
    schema = next((body[k] for k in input_keys if k in body), None)
    if schema is None:
        warnings.append(f"{where}: no input schema ({'/'.join(input_keys)}); counted as empty")
        schema = {}
    elif not isinstance(schema, dict):
        warnings.append(f"{where}: input schema is {_found(schema)}, expected a JSON object; counted as empty")
        schema = {}
    elif not schema:
        warnings.append(f"{where}: input schema is an empty object; providers expect at least "
                        "{'type': 'object'}")
    else:
        cycle = _ref_cycle(schema)
        if cycle:
            warnings.append(f"{where}: input schema has a $ref cycle ({' -> '.join(cycle)}); "
                            "counted as sent, never expanded")
    output = next((body[k] for k in output_keys if k in body), None)
    desc = body.get("description")
    if desc is not None and not isinstance(desc, str):
        warnings.append(f"{where}: description is {_found(desc)}, expected a string; counted as its JSON text")
        desc = json.dumps(desc, ensure_ascii=False)
    _check_size(where, desc, schema, output)
    for field, text in (("name", name), ("description", desc)):
        odd = invisible_in(text)
        if odd:
            warnings.append(f"{where}: {field} contains invisible or direction-changing characters "
                            f"({', '.join(odd)}); they cost tokens and can hide text from reviewers")
    annotations = body.get("annotations")
    used = set(_COMMON) | set(input_keys) | set(output_keys) | {"type"}
    extra = {k: v for k, v in body.items() if k not in used}
    if fmt == "openai-chat":
        extra.update({k: v for k, v in item.items() if k not in ("type", "function")})
    title = body.get("title") if isinstance(body.get("title"), str) else None
    return Tool(
        name=name, description=desc, input_schema=schema,
        output_schema=output if isinstance(output, dict) else None,
        annotations=annotations if isinstance(annotations, dict) else None,
        title=title, server=server, extra=extra, raw=item, source_format=fmt,
    )


def _check_size(where: str, desc: str | None, *schemas: Any) -> None:
    """Refuse a description or schema too big to be a real tool definition (it would only cost time)."""
    if desc is not None and len(desc) > MAX_DESCRIPTION_CHARS:
        raise InputError(f"{where}: description is {len(desc):,} characters, over the "
                         f"{MAX_DESCRIPTION_CHARS:,} a tool definition may have")
    for schema in schemas:
        if isinstance(schema, dict) and (size := len(compact(schema))) > MAX_SCHEMA_CHARS:
            raise InputError(f"{where}: schema is {size:,} characters of JSON, over the "
                             f"{MAX_SCHEMA_CHARS:,} a tool definition may have")


# Zero-width, bidirectional and other format characters (Unicode category Cf) that render as nothing.
def _ref_cycle(schema: dict) -> list[str] | None:
    """A chain of local `$ref`s (root, `$defs`, `definitions`) that leads back to itself, or None."""
    targets = {"#": schema}
    for key in ("$defs", "definitions"):
        if isinstance(schema.get(key), dict):
            targets.update({f"#/{key}/{n}": sub for n, sub in schema[key].items()})
    graph = {ptr: [r for r in _refs(sub) if r in targets] for ptr, sub in targets.items()}
    done: set[str] = set()
    for start in graph:
        path, todo = [start], [iter(graph[start])]
        while todo:  # depth-first without recursion: a schema may hold thousands of definitions
            nxt = next(todo[-1], None)
            if nxt is None:
                done.add(path.pop())
                todo.pop()
            elif nxt in path:
                return path[path.index(nxt):] + [nxt]
            elif nxt not in done:
                path.append(nxt)
                todo.append(iter(graph[nxt]))
    return None


def _refs(node: Any) -> set[str]:
    """Every `$ref` string anywhere inside a JSON value."""
    out, stack = set(), [node]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            if isinstance(v.get("$ref"), str):
                out.add(v["$ref"])
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return out


def _check_duplicates(server: Server, source: str, warnings: list[str]) -> None:
    seen: set[str] = set()
    for t in server.tools:
        if t.name in seen:
            warnings.append(f"{source}: server {server.name!r} defines {t.name!r} more than once; "
                            "both are counted, and providers reject duplicate names")
        seen.add(t.name)


def _load_registry(value: dict, source: str, base: Path) -> Registry:
    reg = Registry(sources=[source])
    for name, entry in value["servers"].items():
        where = f"{source}: server {name!r}"
        if isinstance(entry, list):
            entry = {"tools": entry}
        if not isinstance(entry, dict):
            raise InputError(f"{where}: expected a list of tools or an object with 'tools' or 'path', found {_found(entry)}")
        if "path" in entry:
            if not isinstance(entry["path"], str):
                raise InputError(f"{where}: 'path' is {_found(entry['path'])}, expected a file name "
                                 "relative to the registry file")
            where = str(base / entry["path"])
            tools_value = read_json(base / entry["path"])
        elif "tools" in entry:
            tools_value = entry["tools"]
        else:
            raise InputError(f"{where}: has neither 'tools' nor 'path'")
        if _is_registry(_unwrap(tools_value, where)):
            raise InputError(f"{where}: holds another registry ('servers'); expected a list of tools")
        part = (from_json(tools_value, source=where, server=name, base=base)
                if tools_value != [] else Registry({name: Server(name)}))
        tags = entry.get("tags") or {}
        if not isinstance(tags, dict):
            reg.warnings.append(f"{where}: tags is {_found(tags)}, expected {{tool name: {{tag: value}}}}; ignored")
            tags = {}
        tools = tuple(replace(t, tags={**t.tags, **_tags(tags.get(t.name))}) for t in part.servers[name].tools)
        info = {k: v for k, v in entry.items() if k not in ("tools", "path", "instructions", "tags")}
        instructions = entry.get("instructions")
        if instructions is not None and not isinstance(instructions, str):
            reg.warnings.append(f"{where}: instructions is {_found(instructions)}, expected a string; ignored")
            instructions = None
        if isinstance(entry.get("error"), str):  # a discovery snapshot's server that could not be read
            reg.warnings.append(f"{where}: was not read when the snapshot was taken ({entry['error']}); "
                                "it counts as no tools")
        reg = reg.merge(Registry({name: Server(name, tools, instructions, info)}, part.warnings))
    return reg


def _tags(value: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def _found(v: Any) -> str:
    if v is None:
        return "nothing"
    if v == "":
        return "an empty string"
    kind = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            int: "a number", float: "a number"}.get(type(v), type(v).__name__)
    if isinstance(v, dict):
        keys = ", ".join(list(v)[:6])
        return f"{kind} with keys {keys}" if keys else "an empty object"
    return kind


def _unrecognized(value: Any, source: str) -> str:
    tried = "; ".join(_DESCRIBE[f] for f in FORMATS)
    return f"{source}: not a tool list in any known format (found {_found(value)}). Tried: {tried}"


# --- writing -----------------------------------------------------------------------------------


def _named(t: Tool) -> dict[str, Any]:
    """The name, and the description when there is one: how every provider format starts a tool."""
    return {"name": t.name} if t.description is None else {"name": t.name, "description": t.description}


def _openai_function(t: Tool) -> dict:
    out = _named(t)
    out["parameters"] = t.input_schema
    if "strict" in t.extra:
        out["strict"] = t.extra["strict"]
    return out


def _anthropic(t: Tool) -> dict:
    out = _named(t)
    out["input_schema"] = t.input_schema
    return out


def _gemini(t: Tool) -> dict:
    out = _named(t)
    out["parametersJsonSchema"] = t.input_schema
    if t.output_schema is not None:
        out["responseJsonSchema"] = t.output_schema
    return out


_WRITERS: dict[str, Callable[[list[Tool]], Any]] = {
    "mcp": lambda ts: {"tools": [t.to_mcp() for t in ts]},
    "openai-chat": lambda ts: [{"type": "function", "function": _openai_function(t)} for t in ts],
    "openai-responses": lambda ts: [{"type": "function", **_openai_function(t)} for t in ts],
    "anthropic": lambda ts: [_anthropic(t) for t in ts],
    "gemini": lambda ts: {"functionDeclarations": [_gemini(t) for t in ts]},
}


def dump(reg: Registry, format: str = "registry") -> Any:
    """The registry as a JSON value in `format`; raises InputError for an unknown format."""
    if format == "registry":
        servers = {}
        for s in reg.servers.values():
            entry: dict[str, Any] = dict(s.info)
            if s.instructions is not None:
                entry["instructions"] = s.instructions
            entry["tools"] = [t.to_mcp() for t in s.tools]
            tags = {t.name: t.tags for t in s.tools if t.tags}
            if tags:
                entry["tags"] = tags
            servers[s.name] = entry
        return {"servers": servers}
    if format not in _WRITERS:
        raise InputError(f"unknown format {format!r}; expected one of: {', '.join(FORMATS)}")
    return _WRITERS[format](reg.tools)
