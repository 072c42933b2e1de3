"""Edit a JSON text (comments and trailing commas allowed) in place: set, append to or remove the
value at a key path, leaving every other byte as it was, so other keys, their order, the comments
and the indentation survive."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError

_SKIP = re.compile(r'(?:\s+|//[^\n]*|/\*.*?\*/)*', re.S)
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_SCALAR = re.compile(r'-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null')


@dataclass
class Node:
    """A value's span in the text; for an object its members (key -> Node) in order, for an array its items."""

    start: int
    end: int
    kind: str  # object, array, scalar
    members: dict[str, Node] = field(default_factory=dict)
    key_start: dict[str, int] = field(default_factory=dict)  # where each member's key begins
    items: list[Node] = field(default_factory=list)


class _Parser:
    def __init__(self, text: str, where: str):
        self.text, self.where = text, where

    def fail(self, i: int, what: str) -> InputError:
        line = self.text.count("\n", 0, i) + 1
        return InputError(f"{self.where}: line {line}: expected {what}, found {self.text[i:i + 12]!r}")

    def skip(self, i: int) -> int:
        return _SKIP.match(self.text, i).end()

    def value(self, i: int) -> Node:
        i = self.skip(i)
        c = self.text[i:i + 1]
        if c == "{":
            return self.container(i, "}", True)
        if c == "[":
            return self.container(i, "]", False)
        m = _STRING.match(self.text, i) or _SCALAR.match(self.text, i)
        if not m:
            raise self.fail(i, "a JSON value")
        return Node(i, m.end(), "scalar")

    def container(self, i: int, close: str, is_object: bool) -> Node:
        node = Node(i, i, "object" if is_object else "array")
        i = self.skip(i + 1)
        while self.text[i:i + 1] != close:
            if is_object:
                m = _STRING.match(self.text, i)
                if not m:
                    raise self.fail(i, "a key in double quotes")
                key, key_at = json.loads(m.group()), i
                i = self.skip(m.end())
                if self.text[i:i + 1] != ":":
                    raise self.fail(i, "':'")
                child = self.value(i + 1)
                node.members[key], node.key_start[key] = child, key_at
            else:
                child = self.value(i)
                node.items.append(child)
            i = self.skip(child.end)
            if self.text[i:i + 1] == ",":
                i = self.skip(i + 1)
            elif self.text[i:i + 1] != close:
                raise self.fail(i, f"',' or '{close}'")
        node.end = i + 1
        return node


def parse_spans(text: str, where: str = "the file") -> Node:
    """The spans of the JSON value `text` holds; raises InputError naming the line of a syntax error."""
    p = _Parser(text, where)
    root = p.value(0)
    rest = p.skip(root.end)
    if rest != len(text):
        raise p.fail(rest, "the end of the file")
    return root


def _what(text: str, node: Node) -> str:
    """What a value is, for messages: an object, a list, a string, a number, true, false or null."""
    if node.kind != "scalar":
        return "an object" if node.kind == "object" else "a list"
    c = text[node.start]
    return "a string" if c == '"' else text[node.start:node.end] if c in "tfn" else "a number"


def _indent_of(text: str, i: int) -> str:
    line_start = text.rfind("\n", 0, i) + 1
    return re.match(r"[ \t]*", text[line_start:]).group()


def _unit(text: str) -> str:
    """The indentation step of the text (two spaces when nothing says otherwise)."""
    m = re.search(r"\n([ \t]+)\S", text)
    return m.group(1) if m else "  "


def _dumps(value: Any, indent: str, step: str) -> str:
    out = json.dumps(value, indent=len(step) if step.strip(" ") == "" else 1, ensure_ascii=False)
    return out.replace("\n", "\n" + indent)


def _find(text: str, root: Node, path: tuple[str, ...], where: str) -> tuple[Node, int]:
    """The deepest node on `path` that exists, and how many keys of `path` it consumed."""
    node, depth = root, 0
    for key in path:
        if node.kind != "object":
            shown = ".".join(path[:depth]) or "the top level"
            raise InputError(f"{where}: expected an object at {shown}, found {_what(text, node)}")
        if key not in node.members:
            break
        node, depth = node.members[key], depth + 1
    return node, depth


def _nest(path: tuple[str, ...], value: Any) -> Any:
    for key in reversed(path):
        value = {key: value}
    return value


def set_value(text: str, path: tuple[str, ...], value: Any, where: str = "the file") -> str:
    """`text` with the value at `path` replaced by `value` (keys created as needed, at the end of their object)."""
    root = parse_spans(text, where)
    node, depth = _find(text, root, path, where)
    step = _unit(text)
    if depth == len(path):
        indent = _indent_of(text, node.start)
        return text[:node.start] + _dumps(value, indent, step) + text[node.end:]
    if node.kind != "object":
        raise InputError(f"{where}: expected an object at {'.'.join(path[:depth]) or 'the top level'}, found {_what(text, node)}")
    return _insert_member(text, node, path[depth], _nest(path[depth + 1:], value), step)


def _insert_member(text: str, obj: Node, key: str, value: Any, step: str) -> str:
    close = obj.end - 1
    if obj.members:
        last = list(obj.members.values())[-1]
        indent = _indent_of(text, obj.key_start[list(obj.members)[-1]])
        after = _SKIP.match(text, last.end).end()
        has_comma = text[after:after + 1] == ","
        member = f"\n{indent}{json.dumps(key, ensure_ascii=False)}: {_dumps(value, indent, step)}"
        at = after + 1 if has_comma else last.end
        return text[:at] + ("" if has_comma else ",") + member + text[at:]
    indent = _indent_of(text, obj.start)
    inner = indent + step
    member = f"\n{inner}{json.dumps(key, ensure_ascii=False)}: {_dumps(value, inner, step)}\n{indent}"
    return text[:obj.start + 1] + member + text[close:]


def append(text: str, path: tuple[str, ...], item: Any, where: str = "the file") -> str:
    """`text` with `item` appended to the array at `path` (created when absent)."""
    root = parse_spans(text, where)
    node, depth = _find(text, root, path, where)
    if depth < len(path):
        return set_value(text, path, [item], where)
    if node.kind != "array":
        raise InputError(f"{where}: expected a list at {'.'.join(path)}, found {_what(text, node)}")
    step = _unit(text)
    if not node.items:
        return text[:node.start] + json.dumps([item], ensure_ascii=False) + text[node.end:]
    last = node.items[-1]
    multiline = "\n" in text[node.start:node.items[0].start]
    after = _SKIP.match(text, last.end).end()
    has_comma = text[after:after + 1] == ","
    if multiline:
        indent = _indent_of(text, last.start)
        piece = f"\n{indent}{_dumps(item, indent, step)}"
    else:
        piece = f" {json.dumps(item, ensure_ascii=False)}"
    at = after + 1 if has_comma else last.end
    return text[:at] + ("" if has_comma else ",") + piece + text[at:]


def remove(text: str, path: tuple[str, ...], where: str = "the file") -> str:
    """`text` without the member at `path` (unchanged when it is absent)."""
    root = parse_spans(text, where)
    parent, depth = _find(text, root, path[:-1], where)
    if depth < len(path) - 1 or parent.kind != "object" or path[-1] not in parent.members:
        return text
    keys = list(parent.members)
    i = keys.index(path[-1])
    node = parent.members[path[-1]]
    start = parent.key_start[path[-1]]
    after = _SKIP.match(text, node.end).end()
    if text[after:after + 1] == ",":  # take the comma after it, and the space up to the next key
        end = parent.key_start[keys[i + 1]] if i + 1 < len(keys) else after + 1
        return text[:start] + text[end:]
    if i > 0:  # the last member: take the comma before it
        prev = parent.members[keys[i - 1]]
        return text[:prev.end] + text[node.end:]
    return text[:parent.start + 1] + text[_SKIP.match(text, node.end).end():]
