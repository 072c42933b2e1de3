"""Tool results read from where they are kept: files, folders of samples, .jsonl result logs, agent
traces, standard input and http(s) URLs."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..core import jsontree as _jsontree
from ..core.files import input_chunks, input_lines, read_bytes
from ..core.http import fetch, parse_headers, redact_url
from ..errors import InputError
from .payloads import Payload, decode, payload_from_text, payload_from_value
from .traces.files import trace_files
from .traces.load import load_traces

TRACE_SUFFIXES = (".jsonl", ".ndjson")
SAMPLE_SUFFIXES = (".json", ".txt", "") + TRACE_SUFFIXES  # what a folder is searched for
# A JSON file this large is measured as a stream (JSONFile) when it is not to be trimmed: held parsed,
# a JSON document takes about 10x its size.
STREAM_JSON_BYTES = 8 * 2**20
_EXPECTED = "a JSON or text file, a folder of samples or a .jsonl trace"


@dataclass
class JSONFile:
    """A large JSON file, measured from the stream of its compact JSON's fragments (`_jsonstream`)
    rather than held parsed; `load()` reads it whole when streaming cannot reproduce it exactly."""

    tool: str
    path: Path
    server: str | None = None
    kind: str = "json"
    timestamp: str | None = None
    image_tokens: int = 0
    notes: tuple = ()

    @property
    def source(self) -> str:
        return str(self.path)

    def load(self) -> tuple[Payload, list[str]]:
        """The Payload and warnings of the file read whole; raises InputError as `read_bytes` does."""
        return _file_payload(self.path, self.tool, self.server)


def _url_tool(url: str) -> str:
    parts = urlsplit(url)
    segs = [s for s in parts.path.split("/") if s]
    return segs[-1] if segs else (parts.hostname or "url")


def _trace_lines(path: Path, warnings: list[str]) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line of a trace file (a regular file, at most --max-input-bytes), read
    one line at a time, so a trace is never held in memory whole; invalid UTF-8 is replaced and warned
    about per line."""
    for n, raw in enumerate(input_lines(path, "file", _EXPECTED), 1):
        if n == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            yield n, raw.decode("utf-8")
        except UnicodeDecodeError as e:
            warnings.append(f"{path}:{n}: not valid UTF-8 (first bad byte at offset {e.start} of the "
                            "line); invalid bytes replaced by U+FFFD")
            yield n, raw.decode("utf-8", errors="replace")


def _trace_records(path: Path, lines, warnings: list[str], server: str | None) -> Iterator[Payload]:
    for n, line in lines:
        if not line.strip():
            continue
        where = f"{path}:{n}"
        try:
            rec = _jsontree.loads(line)
        except ValueError as e:
            warnings.append(f"{where}: not JSON ({e}); line skipped")
            continue
        if not isinstance(rec, dict) or not isinstance(rec.get("tool"), str) or "result" not in rec:
            found = f"keys {sorted(rec)[:8]}" if isinstance(rec, dict) else type(rec).__name__
            warnings.append(f"{where}: expected an object with a string 'tool' and a 'result', found {found}; "
                            "line skipped")
            continue
        srv = rec.get("server")
        kw = dict(server=sys.intern(srv) if isinstance(srv, str) else server,
                  timestamp=str(rec["timestamp"]) if rec.get("timestamp") is not None else None)
        result, name = rec["result"], sys.intern(rec["tool"])  # one string per tool, however many results
        if isinstance(result, str):
            yield Payload.from_text(result, name, source=where, **kw)
        else:
            yield payload_from_value(result, name, where, **kw)


def _file_payload(f: Path, tool: str, server: str | None) -> tuple[Payload, list[str]]:
    """A file's (or standard input's) result and warnings; raises InputError as `read_bytes` does."""
    text, warnings = decode(read_bytes(f, "file", _EXPECTED), str(f))
    stdin = str(f) == "-"
    p, w = payload_from_text(text, tool, "standard input" if stdin else str(f), f.suffix.lower() == ".json",
                             server=server)
    return p, warnings + w


def _large_json(f: Path) -> bool:
    """True for a file of at least STREAM_JSON_BYTES that starts (after a BOM and spaces) an object or list."""
    try:
        if f.stat().st_size < STREAM_JSON_BYTES:
            return False
    except OSError:
        return False  # reading it whole words the error
    chunks = input_chunks(f, "file", _EXPECTED)
    head = next(chunks, b"")
    chunks.close()
    return head.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\n\r")[:1] in (b"{", b"[")


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*")
                  if p.is_file() and p.suffix.lower() in SAMPLE_SUFFIXES
                  and not any(part.startswith(".") for part in p.relative_to(folder).parts))


def iter_payloads(*sources: Any, warnings: list[str], tool: str | None = None, server: str | None = None,
                  headers: list[str] | dict | None = None, timeout: float = 30.0, stream_json: bool = False
                  ) -> Iterator[Payload | JSONFile]:
    """`read_payloads`, one payload at a time (a .jsonl trace is read line by line), appending warnings
    to `warnings` as it goes (not the payloads' own notes); with `stream_json`, a large JSON file is a
    JSONFile, not read yet. Raises InputError as `read_payloads` does, except when nothing could be read."""
    hdrs = parse_headers(headers)
    for src in sources:
        if isinstance(src, Payload):
            yield src
        elif isinstance(src, str) and re.match(r"https?://", src, re.I):
            body, ctype = fetch(src, hdrs, timeout)
            shown = redact_url(src)
            text, w = decode(body, shown)
            p, w2 = payload_from_text(text, tool or _url_tool(src), shown, "json" in ctype, server=server)
            warnings += w + w2
            yield p
        elif isinstance(src, str | os.PathLike):
            if not str(src).strip():
                raise InputError("empty path; expected a file, a folder, a .jsonl trace or an http(s) URL")
            path = Path(src)
            traces = set()
            if str(src) == "-":  # standard input: one result
                files = [path]
            else:
                traces = trace_files(path)
                if traces:
                    tr = load_traces(traces)
                    yield from tr.to_payloads()
                    warnings += tr.problems
                files = [f for f in _files(path) if str(f) not in traces] if path.is_dir() else None
            if files is not None:
                if not files and not traces:
                    warnings.append(f"{path}: no {', '.join(s for s in SAMPLE_SUFFIXES if s)} files in this folder")
            elif path.is_file():
                files = [path]
            else:
                raise InputError(f"no such file or folder: {path} (expected a JSON or text file, a folder of "
                                 "samples, a .jsonl trace or an http(s) URL)")
            for f in (f for f in files if str(f) not in traces):
                if f.suffix.lower() in TRACE_SUFFIXES:
                    yield from _trace_records(f, _trace_lines(f, warnings), warnings, server)
                    continue
                stdin = str(f) == "-"
                name = tool or ("stdin" if stdin else f.resolve().parent.name or "(file)")
                if stream_json and not stdin and _large_json(f):
                    yield JSONFile(name, f, server=server)
                    continue
                p, w = _file_payload(f, name, server)
                warnings += w
                yield p
        else:
            yield payload_from_value(src, tool or "(value)", "(value)", server=server)


def payload_stream(sources: tuple, **kw: Any) -> tuple[Iterator[Payload | JSONFile], list[str]]:
    """The payloads of `sources` one at a time (a .jsonl trace is read line by line, so it is never
    held whole), and the list their warnings go to; it is complete once the payloads are exhausted.
    A single list of Payloads (what `read_payloads` gives) is taken as it is. `kw` are
    `iter_payloads`' options. Raises InputError as `read_payloads` does."""
    warnings: list[str] = []
    given = len(sources) == 1 and isinstance(sources[0], list | tuple) and sources[0] and all(
        isinstance(s, Payload) for s in sources[0])
    src = iter(sources[0]) if given else iter_payloads(*sources, warnings=warnings, **kw)

    def stream() -> Iterator[Payload | JSONFile]:
        notes, n = [], 0
        for p in src:
            n += 1
            notes += [f"{p.source}: {x}" for x in p.notes]
            yield p
        warnings.extend(notes)
        if not n and sources and not given:
            raise InputError("no tool results found in the inputs" + (
                f" ({len(warnings)} warnings: {warnings[0]})" if warnings else ""))

    return stream(), warnings


def read_payloads(*sources: Any, tool: str | None = None, server: str | None = None,
                  headers: list[str] | dict | None = None, timeout: float = 30.0
                  ) -> tuple[list[Payload], list[str]]:
    """Payloads and warnings from paths (files, folders, .jsonl traces), http(s) URLs, Payloads or JSON values.

    A file's tool is the name of its folder unless `tool` is given. Raises InputError for a
    missing path, an unreachable URL or when nothing at all could be read.
    """
    warnings: list[str] = []
    payloads = list(iter_payloads(*sources, tool=tool, server=server, headers=headers, timeout=timeout,
                                  warnings=warnings))
    for p in payloads:
        warnings += [f"{p.source}: {n}" for n in p.notes]
    if not payloads and sources:
        raise InputError("no tool results found in the inputs" + (f" ({len(warnings)} warnings: {warnings[0]})"
                                                                  if warnings else ""))
    return payloads, warnings
