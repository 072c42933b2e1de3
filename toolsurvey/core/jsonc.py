"""JSON with comments and trailing commas, as VS Code and Gemini CLI read their settings files,
and where in such a text a key is written."""

from __future__ import annotations

import json
import os
import re
from typing import Any

from .files import STDIN, parse_json, read_text

# A string, a comment, or a comma that only closing brackets follow: the three things to tell apart.
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/|,(?=(?:\s|//[^\n]*|/\*.*?\*/)*[}\]])', re.S)


def strip_comments(text: str) -> str:
    """`text` with `//` and `/* */` comments and trailing commas blanked out (strings untouched);
    every newline is kept, so a line number in the result is a line number in `text`."""
    def blank(m: re.Match) -> str:
        s = m.group()
        return s if s.startswith('"') else re.sub(r"[^\n]", " ", s)

    return _TOKEN.sub(blank, text)


def read_jsonc(path: str | os.PathLike, comments: bool = True) -> tuple[Any, dict[tuple, int]]:
    """A JSON file parsed (with comments and trailing commas allowed when `comments`), and the line
    of each of its keys (see `key_lines`); raises InputError naming the file, line and column of a
    syntax error."""
    text = read_text(path)
    text = strip_comments(text) if comments else text
    return parse_json(text, "standard input" if str(path) == STDIN else os.fspath(path)), key_lines(text)


def key_lines(text: str) -> dict[tuple, int]:
    """The line of every object key in a JSON text, by its path: `{("mcpServers", "github",
    "command"): 4, ...}` (array items by their index). For messages that name a line."""
    out: dict[tuple, int] = {}
    stack: list[list] = []  # per open container: [path, next array index or None, pending key]
    pending: tuple[str, int] | None = None  # a string just read, and its line: a key if ':' follows
    for m in _STRUCTURE.finditer(text):
        tok = m.group()
        if tok == ":" and pending and stack:
            stack[-1][2] = pending[0]
            out[(*stack[-1][0], pending[0])] = pending[1]
        elif tok in "{[":
            path = stack[-1][0] + (_slot(stack[-1]),) if stack else ()
            stack.append([path, 0 if tok == "[" else None, None])
        elif tok in "}]" and stack:
            stack.pop()
        elif tok == "," and stack and stack[-1][1] is not None:
            stack[-1][1] += 1
        pending = (json.loads(tok), text.count("\n", 0, m.start()) + 1) if tok.startswith('"') else None
    return out


_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]')


def _slot(frame: list):
    """The path element of the value being read in an open container: its key, or its index."""
    return frame[1] if frame[1] is not None else frame[2]
