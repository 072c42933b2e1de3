"""Streaming JSON Lines (plain or .gz), one record at a time, with every unreadable line counted.

A file still being written ends in a truncated line; a gzip can be cut short; a line can be bad
UTF-8. None of these stops the read: each becomes a `Skipped` entry (file, line, reason) in the
`Skips` the caller passes in, and the summary says how many lines were skipped and why.
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any


@dataclass(frozen=True)
class Skipped:
    """One line not used: where it is and why."""

    file: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.reason}"


@dataclass
class Skips:
    """Skipped lines of a read, and a count per reason (kept whole, so no skip is lost to a cap)."""

    items: list[Skipped] = field(default_factory=list)
    reasons: Counter = field(default_factory=Counter)

    def add(self, file: str, line: int, reason: str, kind: str | None = None) -> None:
        self.items.append(Skipped(file, line, reason))
        self.reasons[kind or reason] += 1

    def __len__(self) -> int:
        return len(self.items)

    def summary(self) -> str:
        """'N lines skipped: a x reason, ...', or '' when none were."""
        if not self.items:
            return ""
        parts = ", ".join(f"{n:,} {why}" for why, n in self.reasons.most_common())
        return f"{len(self.items):,} line(s) skipped: {parts}"


def open_binary(path: str | os.PathLike) -> IO[bytes]:
    """The file's bytes, decompressed when it is gzip (by its magic number, not only its name)."""
    f = open(path, "rb")
    if f.peek(2)[:2] == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=f, mode="rb")  # type: ignore[return-value]
    return f


def _loads():
    """orjson's parser when installed (the traces extra), else json's; both give the same values."""
    try:
        import orjson
    except ImportError:
        return json.loads

    def loads(raw: bytes) -> Any:
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            return json.loads(raw)  # what orjson refuses (lone surrogates) json reads; json words real errors

    return loads


def json_lines(path: str | os.PathLike, skips: Skips) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) for each JSON line of `path`; bad lines go to `skips`.

    A corrupt or cut-short gzip ends the file with one skip entry; OSError opening the file is
    raised to the caller (a missing file is the caller's error to word).
    """
    name = os.fspath(path)
    loads = _loads()
    n = 0
    with open_binary(path) as f:
        it = iter(f)
        while True:
            try:
                raw = next(it)
            except StopIteration:
                return
            except (EOFError, gzip.BadGzipFile, zlib.error, OSError) as e:
                skips.add(name, n + 1, f"corrupt gzip ({e}); the rest of the file is unreadable", "corrupt gzip")
                return
            n += 1
            if not raw.strip():
                continue
            try:
                yield n, loads(raw)
            except UnicodeDecodeError:
                skips.add(name, n, "not UTF-8 text", "not UTF-8")
            except json.JSONDecodeError as e:
                if not raw.endswith(b"\n"):
                    skips.add(name, n, "truncated last line (the file may still be being written)",
                              "truncated last line")
                else:
                    skips.add(name, n, f"not valid JSON ({e.msg} at column {e.colno})", "invalid JSON")
            except RecursionError:
                skips.add(name, n, "JSON nested too deeply", "invalid JSON")


def documents(path: str | os.PathLike, skips: Skips) -> Iterator[tuple[int, Any]]:
    """Like `json_lines`, but a .json file holding one pretty-printed JSON document is read whole."""
    if not os.fspath(path).endswith((".json", ".json.gz")):
        yield from json_lines(path, skips)
        return
    start = head(path, 1 << 16).lstrip()
    first = start.split(b"\n", 1)[0].strip()
    if start.startswith((b"{", b"[")) and first in (b"{", b"["):  # an indented document, not JSON Lines
        try:
            with open_binary(path) as f:
                yield 1, json.load(f)
        except (ValueError, EOFError, zlib.error, RecursionError) as e:
            skips.add(os.fspath(path), 1, f"not a valid JSON document ({e})", "invalid JSON")
        return
    yield from json_lines(path, skips)


def head(path: str | os.PathLike, limit: int = 65536) -> bytes:
    """The first `limit` decompressed bytes of a file (for format detection); b'' if unreadable."""
    out = b""
    try:
        with open_binary(path) as f:
            while len(out) < limit and (chunk := f.read(min(4096, limit - len(out)))):
                out += chunk
    except (OSError, EOFError, zlib.error):
        pass  # what was read before a cut-short gzip still tells the format
    return out
