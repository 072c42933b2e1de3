"""A large JSON document as the path-tagged fragments of its compact JSON, read with an event parser
(ijson), so the parsed value is never held whole.

The fragments are exactly those `_jsontree.fragments` gives for the value `json.loads` would return,
except that an empty object or list is two fragments (its brackets, both owned by its own path) rather
than one. Where streaming could not reproduce `json.loads` exactly, `NotStreamable` is raised and the
caller reads the document whole instead: text `json.loads` refuses or reads differently (NaN, Infinity,
invalid UTF-8, form feeds as whitespace), a lone surrogate escape (the parser turns it into '?'), a key
repeated in one object (`json.loads` keeps the last value, in the first key's place), and a root object
that may be a JSON-RPC response or an MCP result (its blocks count, not its JSON).
"""

from __future__ import annotations

import itertools
import json
import os
import re
from collections.abc import Iterator
from json.encoder import encode_basestring

from ..core import jsontree as _jsontree
from ..core.files import input_chunks
from ..core.jsontree import PathTable, may_cut
from .payloads import MCP_KEYS

_CHUNK = 1 << 16
# An escape sequence: a surrogate pair, a lone surrogate (group 1), or any other escape. Outside
# strings JSON has no backslash, so scanning escape after escape from any backslash is exact.
_ESCAPE = re.compile(rb"\\(?:u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|(u[dD][89a-fA-F])|.)", re.S)
_ESCAPE_LEN = 12  # the longest: a surrogate pair
_LITERAL = {"boolean": {True: "true", False: "false"}, "null": {None: "null"}}


class NotStreamable(Exception):
    """The document must be read whole: streaming would not count it as `json.loads` reads it."""


def _checked_chunks(path: str | os.PathLike) -> Iterator[bytes]:
    """The file's bytes in chunks (see `formats.input_chunks`), a byte order mark dropped as
    `payloads.decode` does; raises NotStreamable where the parser and `json.loads` would differ."""
    carry, first = b"", True
    for chunk in itertools.chain(input_chunks(path, "file", "a JSON file", _CHUNK), [b""]):  # b"": the end
        if first and chunk.startswith(b"\xef\xbb\xbf"):
            chunk = chunk[3:]
        first = False
        if b"\x0b" in chunk or b"\x0c" in chunk:  # whitespace to the parser, an error to json.loads
            raise NotStreamable("vertical tab or form feed")
        buf = carry + chunk
        end = len(buf) - _ESCAPE_LEN if chunk else len(buf)  # escapes that may go on: with the next chunk
        pos = 0
        for m in _ESCAPE.finditer(buf):
            if m.start() >= end:
                break
            if m.group(1):
                raise NotStreamable("lone surrogate escape")
            pos = m.end()
        carry = buf[max(pos, end, 0):]
        if chunk:
            yield chunk


def _number(v) -> str:
    if type(v) is int:
        return int.__repr__(v)
    return json.dumps(float(v))  # a Decimal: the float json.loads would read, written as json.dumps does


class _Compact:
    """The compact JSON of the parser's events, cut into batches: one fragment per event, the path id it
    belongs to, and the path ids of the values begun."""

    def __init__(self, table: PathTable, max_depth: int):
        self.child, self.max_depth, self.batch_chars = table.child, max_depth, _jsontree.BATCH_CHARS
        self.stack: list[list] = []  # open containers: [path id, depth, is object, first member, keys seen]
        self.prefix = self.key = ""
        self.root_keys: set[str] = set()
        self.texts: list[str] = []
        self.pids: list[int] = []
        self.occ: list[int] = [0]
        self.size = 0

    def feed(self, events) -> Iterator[tuple[list[str], list[int], list[int]]]:
        """Add one chunk's events, yielding each batch that fills; raises NotStreamable for a repeated key."""
        stack, child, max_depth, batch_chars = self.stack, self.child, self.max_depth, self.batch_chars
        texts, pids, occ, size, prefix, key = self.texts, self.pids, self.occ, self.size, self.prefix, self.key
        for event, v in events:  # one chunk's state in locals: this loop runs once per JSON token
            if event == "map_key":
                frame = stack[-1]
                if v in frame[4]:
                    raise NotStreamable(f"key {v!r} repeated in one object")
                frame[4].add(v)
                prefix = ("" if frame[3] else ",") + encode_basestring(v) + ":"
                frame[3] = False
                key = v
                continue
            if event == "end_map" or event == "end_array":
                frame = stack.pop()
                text, pid = ("}" if event == "end_map" else "]"), frame[0]
                if not stack and frame[2]:
                    self.root_keys = frame[4]
            else:
                if stack:
                    frame = stack[-1]
                    if not frame[2]:
                        prefix, key = ("" if frame[3] else ","), "[]"
                        frame[3] = False
                    if frame[1] < max_depth:
                        pid = child(frame[0], key)
                        occ.append(pid)
                    else:
                        pid = frame[0]
                    depth = frame[1] + 1
                else:
                    prefix, pid, depth = "", 0, 0
                if event == "start_map":
                    text = prefix + "{"
                    stack.append([pid, depth, True, True, set()])
                elif event == "start_array":
                    text = prefix + "["
                    stack.append([pid, depth, False, True, None])
                elif event == "string":
                    text = prefix + encode_basestring(v)
                elif event == "number":
                    text = prefix + _number(v)
                else:
                    text = prefix + _LITERAL[event][v]
            if size >= batch_chars and may_cut(texts[-1], text):
                yield texts, pids, occ
                texts, pids, occ, size = [], [], [], 0
            texts.append(text)
            pids.append(pid)
            size += len(text)
        self.texts, self.pids, self.occ, self.size, self.prefix, self.key = texts, pids, occ, size, prefix, key

    def last(self) -> tuple[list[str], list[int], list[int]]:
        """The batch left at the end; raises NotStreamable for a root that may be an MCP or JSON-RPC result."""
        keys = self.root_keys
        if "jsonrpc" in keys or "content" in keys and keys <= MCP_KEYS:
            raise NotStreamable("maybe a JSON-RPC response or an MCP result")
        return self.texts, self.pids, self.occ


def fragments(path: str | os.PathLike, table: PathTable, max_depth: int = 32
              ) -> Iterator[tuple[list[str], list[int], list[int]]]:
    """Batches of (fragments, path id per fragment, path ids of the values begun) of the compact JSON
    of the document at `path`, cut only where `may_cut` allows once a batch holds `_jsontree.BATCH_CHARS`.

    Raises NotStreamable (see the module) possibly after some batches, InputError for an unreadable
    file or one over the input limit.
    """
    import ijson

    compact = _Compact(table, max_depth)
    events = ijson.sendable_list()
    parser = ijson.basic_parse_coro(events)
    try:
        for chunk in _checked_chunks(path):
            parser.send(chunk)
            yield from compact.feed(events)
            del events[:]
        parser.close()
    except (ijson.JSONError, ValueError, SystemError, RecursionError) as e:  # bad JSON or UTF-8, huge integers
        raise NotStreamable(f"not JSON as the parser reads it ({type(e).__name__})") from None
    yield compact.last()
