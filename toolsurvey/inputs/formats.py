"""Read every tool format into a Registry and write a Registry back out in any of them."""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import stat
import sys
import unicodedata
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO

from ..core.registry import Registry, Server, Tool
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


# Limits on what a hostile or broken input can make toolsurvey hold (see docs/security.md).
MAX_INPUT_BYTES = 128 * 2**20  # one input file (registry, usage log, scenario, config); --max-input-bytes
# A real description is under 10,000 characters; these stop a hostile one costing minutes and gigabytes.
MAX_DESCRIPTION_CHARS = 10_000_000  # one tool description
MAX_SCHEMA_CHARS = 10_000_000  # one tool's input or output schema, as compact JSON
STDIN = "-"  # as an input path: standard input
_max_input = ContextVar("max_input_bytes", default=MAX_INPUT_BYTES)


@contextlib.contextmanager
def input_limit(max_bytes: int) -> Iterator[None]:
    """Within the block, refuse input files over `max_bytes` (the CLI's --max-input-bytes)."""
    token = _max_input.set(max_bytes)
    try:
        yield
    finally:
        _max_input.reset(token)


@contextlib.contextmanager
def open_input(path: str | os.PathLike, what: str = "file", expected: str = "a JSON file",
               whole: bool = True) -> Iterator[BinaryIO]:
    """A regular file or standard input (`-`), opened for binary reading; when it is to be read
    `whole`, its size must be under the input limit (read it whole with `read_bytes`, or line by line
    with `input_lines`, which limits each line instead).

    Raises InputError for a missing file, a directory, a device or FIFO (which could block or never
    end), and a file over the limit.
    """
    p = Path(path)
    if str(path) == STDIN:
        yield sys.stdin.buffer
        return
    try:  # O_NONBLOCK: opening a FIFO with no writer must not hang before we can refuse it
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError(f"{p}: no such {what}") from None
    except OSError as e:
        raise InputError(f"{p}: cannot read ({e.strerror})") from None
    st = os.fstat(fd)
    if stat.S_ISDIR(st.st_mode):  # checked before fdopen, which raises IsADirectoryError itself
        os.close(fd)
        raise InputError(f"{p}: is a directory, expected {expected}")
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(st.st_mode):
            kind = ("FIFO" if stat.S_ISFIFO(st.st_mode) else
                    "device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "special file")
            raise InputError(f"{p}: is a {kind}, not a regular file; expected {expected} "
                             "(to read a pipe, give - and redirect it to standard input)")
        if whole and st.st_size > _max_input.get():
            raise InputError(_too_big(p, f"{st.st_size:,} bytes", _max_input.get()))
        yield f


def input_lines(path: str | os.PathLike, what: str = "file", expected: str = "a JSON file") -> Iterator[bytes]:
    """The lines of `path` (see open_input), one at a time, so a long file is never held whole; raises
    InputError as open_input does, and when one line passes the input limit (only a line is held in
    memory, so the file itself may be larger)."""
    limit = _max_input.get()
    with open_input(path, what, expected, whole=False) as f:
        try:
            for n, line in enumerate(iter(lambda: f.readline(limit + 1), b""), 1):  # never more than the limit
                if len(line) > limit:
                    raise InputError(_too_big(Path(path), f"line {n:,} is over {limit:,} bytes", limit))
                yield line
        except OSError as e:
            raise InputError(f"{Path(path)}: cannot read ({e.strerror})") from None


def input_chunks(path: str | os.PathLike, what: str = "file", expected: str = "a JSON file",
                 size: int = 1 << 16) -> Iterator[bytes]:
    """The bytes of `path` (see open_input) in chunks of `size`, for a file read whole by a streaming
    parser, so it need not be held whole; raises InputError as read_bytes does."""
    limit, read = _max_input.get(), 0
    with open_input(path, what, expected) as f:
        try:
            while chunk := f.read(size):
                read += len(chunk)
                if read > limit:  # the file grew since it was opened
                    raise InputError(_too_big(Path(path), f"over {limit:,} bytes", limit))
                yield chunk
        except OSError as e:
            raise InputError(f"{Path(path)}: cannot read ({e.strerror})") from None


def read_bytes(path: str | os.PathLike, what: str = "file", expected: str = "a JSON file") -> bytes:
    """The bytes of a regular file or of standard input (`-`), at most the input limit; raises
    InputError as open_input does."""
    limit = _max_input.get()
    with open_input(path, what, expected) as f:
        try:
            data = f.read(limit + 1)
        except OSError as e:
            raise InputError(f"{Path(path)}: cannot read ({e.strerror})") from None
    if len(data) > limit:
        raise InputError(_too_big(Path(path), f"over {limit:,} bytes", limit))
    return data


def _too_big(p: Path, size: str, limit: int) -> str:
    return (f"{p}: {size}, more than the {limit:,}-byte input limit "
            "(raise it with --max-input-bytes if this file is real)")


def read_text(path: str | os.PathLike, what: str = "file", expected: str = "a JSON file") -> str:
    """The UTF-8 text of `path` or standard input (`-`), a BOM dropped; raises InputError naming the
    file and the problem (see read_bytes)."""
    data = read_bytes(path, what, expected)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"{Path(path)}: not UTF-8 text (bad byte at offset {e.start})") from None


def read_json(path: str | os.PathLike) -> Any:
    """Parse a JSON file; raises InputError naming the file, line and column of the problem."""
    return parse_json(read_text(path), "standard input" if str(path) == STDIN else str(Path(path)))


class NotJSONNumber(ValueError):
    """NaN, Infinity or a number too large for a float: Python's json accepts them, JSON does not."""

    def __init__(self, literal: str):
        super().__init__(literal)
        self.literal = literal


def _no_constant(name: str) -> float:
    raise NotJSONNumber(name)


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise NotJSONNumber(text)
    return value


def strict_loads(data: str) -> Any:
    """json.loads that refuses NaN, Infinity and numbers beyond a float (raises NotJSONNumber)."""
    return json.loads(data, parse_constant=_no_constant, parse_float=_finite)


def position(data: str, literal: str) -> str:
    """'line L column C' of the first `literal` outside a JSON string in `data`."""
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|' + re.escape(literal), data):
        if not m.group().startswith('"'):
            line, start = data.count("\n", 0, m.start()) + 1, data.rfind("\n", 0, m.start())
            return f"line {line} column {m.start() - start}"
    return "an unknown position"


def parse_json(data: str, where: str) -> Any:
    """Parse JSON text; raises InputError with what was found instead of JSON (NaN and Infinity included)."""
    try:
        return strict_loads(data)
    except json.JSONDecodeError as e:
        found = data.lstrip()[:40].splitlines()[0] if data.strip() else "an empty file"
        raise InputError(
            f"{where}: invalid JSON at line {e.lineno} column {e.colno} ({e.msg}); "
            f"the file starts with {found!r}"
        ) from None
    except NotJSONNumber as e:
        raise InputError(f"{where}: {e.literal} at {position(data, e.literal)} is not a JSON number "
                         "(JSON has no NaN or Infinity, and a float ends near 1.8e308)") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply to be a tool definition") from None
    except ValueError as e:  # e.g. an integer of more than 4,300 digits
        raise InputError(f"{where}: invalid JSON ({e})") from None


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
        odd = _invisible(text)
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
        if isinstance(schema, dict):
            size = len(json.dumps(schema, separators=(",", ":"), ensure_ascii=False, default=str))
            if size > MAX_SCHEMA_CHARS:
                raise InputError(f"{where}: schema is {size:,} characters of JSON, over the "
                                 f"{MAX_SCHEMA_CHARS:,} a tool definition may have")


# Zero-width, bidirectional and other format characters (Unicode category Cf) that render as nothing.
def _invisible(text: str | None) -> list[str]:
    if not text or text.isascii():  # no ASCII character is in category Cf; most text is ASCII
        return []
    found = sorted({c for c in text if unicodedata.category(c) == "Cf"})
    return [f"U+{ord(c):04X}" for c in found[:5]]


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
