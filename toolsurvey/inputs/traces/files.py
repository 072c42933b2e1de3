"""Which files are traces: a source (file, folder, glob, list) expanded into files, and each file's
trace format detected from its first bytes."""

from __future__ import annotations

import glob
import json
import os
import re
from pathlib import Path
from typing import Any

from ...core.jsonlines import head
from ...errors import InputError
from .claude_code import CLAUDE_OTHER

SUFFIXES = (".jsonl", ".json", ".jsonl.gz", ".json.gz", ".ndjson", ".ndjson.gz")
_CLAUDE_KEYS = re.compile(rb'"(sessionId|parentUuid|requestId|isSidechain)"')
_CLAUDE_TYPE = re.compile(rb'"type": ?"(assistant|user)"')
_PROVIDER_KEYS = re.compile(rb'^\{\s*("timestamp"[^{]*?,\s*|"session"[^{]*?,\s*)*"(request|response)"\s*:\s*\{')


def source_files(source: Any) -> list[str]:
    """Trace files from a path, folder (walked), glob, or a list of those; raises InputError if none."""
    items = [source] if isinstance(source, (str, os.PathLike)) else list(source)
    out: list[str] = []
    for item in items:
        s = os.fspath(item)
        p = Path(s).expanduser()
        if p.is_dir():
            out += sorted(str(f) for f in p.rglob("*") if f.is_file() and f.name.endswith(SUFFIXES))
        elif p.is_file():
            out.append(str(p))
        elif glob.has_magic(s):
            out += sorted(f for f in glob.glob(os.path.expanduser(s), recursive=True) if os.path.isfile(f))
        else:
            raise InputError(f"{s}: no such file or folder; expected trace files (.jsonl, .json, .gz), "
                             "a folder of them or a glob")
    if not out:
        raise InputError(f"{source}: no trace files found (expected {', '.join(SUFFIXES)})")
    return list(dict.fromkeys(out))


def detect(path: str | os.PathLike) -> str | None:
    """The trace format of a file from its first bytes, or None when it is none of TRACE_FORMATS."""
    start = head(path, 16384)  # the first line, or enough of it: detection reads every file once more
    if b'"resourceSpans"' in start:
        return "otel"
    first = start.lstrip().split(b"\n", 1)[0]
    try:
        rec = json.loads(first)
    except (ValueError, RecursionError):  # bad JSON or UTF-8, or an integer past Python's digit limit
        rec = None
    if isinstance(rec, dict) and "response" in rec and "request" in rec:
        return "provider-log"
    if isinstance(rec, dict) and rec.get("type") in CLAUDE_OTHER | {"user", "assistant"}:
        return "claude-code"
    if _CLAUDE_KEYS.search(start) and _CLAUDE_TYPE.search(start):  # a first line cut off or unusual
        return "claude-code"
    if rec is None and _PROVIDER_KEYS.search(first):  # a request body longer than the bytes read
        return "provider-log"
    return None


def trace_files(path: str | os.PathLike) -> list[str]:
    """The files at `path` (a file, or a folder walked) that are in one of the trace formats."""
    p = Path(path)
    if p.is_dir():
        return [f for f in source_files(p) if detect(f)]
    return [str(p)] if p.is_file() and detect(p) else []


def is_trace_file(path: str | os.PathLike) -> bool:
    """True when `path` is a trace file, or a folder holding only trace files."""
    p = Path(path)
    if p.is_dir():
        found = [f for f in p.rglob("*") if f.is_file() and f.name.endswith(SUFFIXES)]
        return bool(found) and all(detect(f) for f in found)
    return p.is_file() and detect(p) is not None
