"""Streaming JSON Lines (plain or .gz), read in large blocks, with every unreadable line counted.

A file still being written ends in a truncated line; a gzip can be cut short; a line can be bad
UTF-8; two writers racing can leave two JSON objects on one line. None of these stops the read:
an unreadable line becomes a `Skipped` entry (file, line, reason) in the `Skips` the caller passes
in, a line of several objects gives each of them (and is noted), and the summary says how many
lines were skipped and why.

`markers` is a cheap pre-filter: only lines containing one of the byte strings are parsed (the
others are counted, not read), so a reader that needs only a few kinds of line skips the rest at
the speed of a byte search.
"""

from __future__ import annotations

import json
import os
import re
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

BLOCK = 1 << 23  # bytes decompressed and split into lines at a time
_GZIP = b"\x1f\x8b"
_DECODER = json.JSONDecoder()
_SPACE = " \t\r\n"


@dataclass(frozen=True)
class Skipped:
    """One line not used (or, in `Skips.joined`, read in parts): where it is and why."""

    file: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.reason}"


@dataclass
class Skips:
    """What a read left out: skipped lines and a count per reason (kept whole, so no skip is lost to a
    cap), lines that held several JSON objects, lines the pre-filter passed over, and how much of
    what was skipped could have held data (`lost` and `lost_bytes`, per kind: unreadable lines and files)."""

    items: list[Skipped] = field(default_factory=list)
    reasons: Counter = field(default_factory=Counter)
    joined: list[Skipped] = field(default_factory=list)
    unparsed: int = 0
    lost: Counter = field(default_factory=Counter)
    lost_bytes: Counter = field(default_factory=Counter)

    def add(self, file: str, line: int, reason: str, kind: str | None = None, *, lost: int = 0) -> None:
        """Count a skipped line; `lost` > 0 (its size in bytes) when it could have held data."""
        self.items.append(Skipped(file, line, reason))
        self.reasons[kind or reason] += 1
        if lost:
            self.lost[kind or reason] += 1
            self.lost_bytes[kind or reason] += lost

    def merge(self, other: Skips) -> None:
        """Add the counts of a read of other files."""
        self.items += other.items
        self.reasons.update(other.reasons)
        self.joined += other.joined
        self.unparsed += other.unparsed
        self.lost.update(other.lost)
        self.lost_bytes.update(other.lost_bytes)

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
    import gzip

    f = open(path, "rb")
    if f.peek(2)[:2] == _GZIP:
        return gzip.GzipFile(fileobj=f, mode="rb")  # type: ignore[return-value]
    return f


class Unreadable(Exception):
    """The rest of a file cannot be read (a corrupt or cut-short gzip, an I/O error); `kind` names which."""

    def __init__(self, reason: str, kind: str):
        super().__init__(reason)
        self.kind = kind


def blocks(path: str | os.PathLike, size: int = BLOCK) -> Iterator[bytes]:
    """The file's bytes in blocks of about `size`, gunzipped (every member) when it is gzip.

    Everything decompressed before a fault is given first; then Unreadable is raised. OSError
    opening the file is raised as it is.
    """
    with open(path, "rb") as f:
        if f.read(2) != _GZIP:
            f.seek(0)
            try:
                while b := f.read(size):
                    yield b
            except OSError as e:
                raise Unreadable(f"read error: {e.strerror or e}", "read error") from None
            return
        f.seek(0)
        yield from _gunzip(f, size)


def _gunzip(f: IO[bytes], size: int) -> Iterator[bytes]:
    d: Any = None  # the decompressor of the current member, None between members
    try:
        while raw := f.read(1 << 20):
            while raw:
                if d is None:
                    d = zlib.decompressobj(31)
                out = d.decompress(raw, size)
                if out:
                    yield out
                while d.unconsumed_tail:  # a highly compressed stretch: never more than `size` at once
                    out = d.decompress(d.unconsumed_tail, size)
                    if out:
                        yield out
                raw = b""
                if d.eof:
                    raw, d = d.unused_data.lstrip(b"\0"), None  # the next member, if any (zero padding ignored)
        if d is not None and (tail := d.flush()):
            yield tail
    except (zlib.error, OSError) as e:
        raise Unreadable(f"corrupt gzip ({e})", "corrupt gzip") from None
    if d is not None and not d.eof:
        raise Unreadable("corrupt gzip (the file ends before the end of its compressed stream)", "corrupt gzip")


def raw_lines(path: str | os.PathLike, skips: Skips, markers: Iterable[bytes] = ()
              ) -> Iterator[tuple[int, bytes, bool]]:
    """(line number, bytes without the newline, whether it is a last line with no newline) for each
    non-blank line; with `markers`, only the lines holding one of them, plus a last line cut short
    (the others count in `skips.unparsed`). A fault mid-file ends it with one skip entry."""
    name = os.fspath(path)
    find = _finder(tuple(markers))
    before = 0          # lines in the blocks already split
    pending: list[bytes] = []  # the start of a line that runs past the block
    try:
        for block in blocks(path, BLOCK):  # BLOCK read here, so a test can make it small
            first = block.find(b"\n")
            if first < 0:
                pending.append(block)
                continue
            start = 0
            if pending:  # the line that began in earlier blocks
                head = b"".join((*pending, block[:first + 1]))
                pending = []
                before += yield from _lines(head, 0, len(head), before, find, skips)
                start = first + 1
            end = block.rfind(b"\n") + 1
            if start < end:
                before += yield from _lines(block, start, end, before, find, skips)
            if end < len(block):
                pending.append(block[end:])
    except Unreadable as e:
        skips.add(name, before + 1, f"{e}; the rest of the file is unreadable", e.kind, lost=1)
        return
    last = b"".join(pending)
    if last.strip():
        yield before + 1, last, True


def _finder(markers: tuple[bytes, ...]):
    """find(body, start, end) -> where the first marker is in body[start:end], or -1."""
    if not markers:
        return None
    if len(markers) == 1:
        m = markers[0]
        return lambda body, start, end: body.find(m, start, end)
    search = re.compile(b"|".join(re.escape(m) for m in markers)).search

    def find(body: bytes, start: int, end: int) -> int:
        hit = search(body, start, end)
        return -1 if hit is None else hit.start()

    return find


def _newlines(body: bytes, start: int, end: int) -> int:
    """`body.count(b"\\n", start, end)`, faster on long spans: bytes.count tests byte by byte, while
    replace finds newlines with memchr (about 4x faster on trace files, even with the copies)."""
    if end - start < 4096:
        return body.count(b"\n", start, end)
    part = body[start:end]
    return len(part) - len(part.replace(b"\n", b""))


def _lines(body: bytes, start: int, end: int, before: int, find, skips: Skips):
    """The lines of body[start:end] (which ends in a newline), numbered after `before`: all non-blank
    ones, or those holding a marker (the others counted in `skips.unparsed`); returns how many lines
    there were."""
    if find is None:
        lines = body[start:end].split(b"\n")
        for i, line in enumerate(lines[:-1], before + 1):
            if line and not line.isspace():
                yield i, line, False
        return len(lines) - 1
    seen = 0  # newlines before `start`
    found = 0
    hit = find(body, start, end)
    while hit >= 0:
        s = body.rfind(b"\n", start, hit) + 1 or start
        e = body.find(b"\n", hit, end)
        seen += _newlines(body, start, s)
        yield before + seen + 1, body[s:e], False
        seen += 1
        found += 1
        start = e + 1
        hit = find(body, start, end)
    seen += _newlines(body, start, end)
    skips.unparsed += seen - found  # blank lines too: cheaper than telling them apart
    return seen


_orjson: Any = None


def _fast_loads():
    """orjson's parser when installed, else json's; both give the same values."""
    global _orjson
    if _orjson is None:
        try:
            import orjson
        except ImportError:
            _orjson = False
        else:
            _orjson = orjson
    return _orjson.loads if _orjson else None


def parse(raw: bytes, file: str, line: int, skips: Skips, cut: bool = False) -> list[Any]:
    """The JSON values on one line: one, several (objects written back to back, noted in
    `skips.joined`) or none (the reason added to `skips`). `cut` says the line is the last and has
    no newline, so a parse error means it is still being written."""
    fast = _fast_loads()
    if fast is not None:
        try:
            return [fast(raw)]
        except ValueError:
            pass  # json words the error, and reads what orjson refuses (lone surrogates)
    try:
        return [json.loads(raw.decode("utf-8").lstrip("\ufeff"))]
    except UnicodeDecodeError:
        skips.add(file, line, "not UTF-8 text", "not UTF-8", lost=len(raw))
    except RecursionError:
        skips.add(file, line, "JSON nested too deeply", "invalid JSON", lost=len(raw))
    except json.JSONDecodeError as e:
        if e.msg == "Extra data":
            return _several(raw.decode("utf-8", "surrogatepass"), file, line, skips, cut)
        _bad(raw, file, line, skips, cut, f"{e.msg} at column {e.colno}")
    except ValueError as e:  # e.g. an integer past Python's digit limit
        _bad(raw, file, line, skips, cut, str(e))
    return []


def _bad(raw: bytes, file: str, line: int, skips: Skips, cut: bool, why: str) -> None:
    if cut:
        skips.add(file, line, "truncated last line (the file may still be being written)", "truncated last line",
                  lost=len(raw))
    else:
        skips.add(file, line, f"not valid JSON ({why})", "invalid JSON", lost=len(raw))


def _several(text: str, file: str, line: int, skips: Skips, cut: bool) -> list[Any]:
    """Values written back to back on one line (a write race), each read; a broken rest is skipped."""
    out: list[Any] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in _SPACE:
            i += 1
        if i >= n:
            break
        try:
            v, i = _DECODER.raw_decode(text, i)
        except (ValueError, RecursionError) as e:
            _bad(text[i:].encode("utf-8", "surrogatepass"), file, line, skips, cut,
                 f"after {len(out)} complete value(s): {getattr(e, 'msg', e)}")
            break
        out.append(v)
    if len(out) > 1:
        skips.joined.append(Skipped(file, line, f"{len(out)} JSON values on one line (a write race); each read"))
    return out


def json_lines(path: str | os.PathLike, skips: Skips, markers: Iterable[bytes] = ()) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) for each JSON value of `path`; bad lines go to `skips`.

    With `markers`, only lines holding one of them are parsed (see `raw_lines`). A corrupt or
    cut-short gzip ends the file with one skip entry; OSError opening the file is raised to the
    caller (a missing file is the caller's error to word).
    """
    name = os.fspath(path)
    fast = _fast_loads()
    for n, raw, cut in raw_lines(path, skips, markers):
        if fast is not None:  # the usual line, parsed here (a call less per line); `parse` words errors
            try:
                yield n, fast(raw)
                continue
            except ValueError:
                pass
        for v in parse(raw, name, n, skips, cut):
            yield n, v


def documents(path: str | os.PathLike, skips: Skips, markers: Iterable[bytes] = ()) -> Iterator[tuple[int, Any]]:
    """Like `json_lines`, but a .json file holding one pretty-printed JSON document is read whole."""
    if not os.fspath(path).endswith((".json", ".json.gz")):
        yield from json_lines(path, skips, markers)
        return
    start = head(path, 1 << 16).lstrip()
    first = start.split(b"\n", 1)[0].strip()
    if start.startswith((b"{", b"[")) and first in (b"{", b"["):  # an indented document, not JSON Lines
        try:
            with open_binary(path) as f:
                yield 1, json.load(f)
        except (ValueError, EOFError, zlib.error, RecursionError) as e:
            skips.add(os.fspath(path), 1, f"not a valid JSON document ({e})", "invalid JSON", lost=1)
        return
    yield from json_lines(path, skips, markers)


def head(path: str | os.PathLike, limit: int = 65536) -> bytes:
    """The first `limit` decompressed bytes of a file (for format detection); b'' if unreadable."""
    out = b""
    try:
        for b in blocks(path, min(limit, 1 << 16)):
            out += b
            if len(out) >= limit:
                break
    except (OSError, Unreadable):
        pass  # what was read before a cut-short gzip still tells the format
    return out[:limit]
