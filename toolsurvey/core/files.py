"""Reading input files safely: regular files or standard input, within a size limit, and JSON that
is JSON (no NaN, no Infinity), with errors that name the file, line and column."""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import stat
import sys
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any, BinaryIO

from ..errors import InputError

# Limits on what a hostile or broken input can make toolsurvey hold (see docs/security.md).
MAX_INPUT_BYTES = 128 * 2**20  # one input file (registry, usage log, scenario, config); --max-input-bytes
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
