"""Which files are traces: a source (file, folder, glob, list) expanded into files, and each file's
trace format detected from its first lines that identify one."""

from __future__ import annotations

import glob
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...core.jsonlines import Unreadable, blocks, head
from ...errors import InputError
from .claude_code import CLAUDE_OTHER, CLAUDE_TYPES
from .codex import CODEX_TYPES

SUFFIXES = (".jsonl", ".json", ".jsonl.gz", ".json.gz", ".ndjson", ".ndjson.gz")
_CLAUDE_KEYS = re.compile(rb'"(sessionId|parentUuid|requestId|isSidechain)"')
_CLAUDE_TYPE = re.compile(rb'"type": ?"(assistant|user)"')
_PROVIDER_KEYS = re.compile(rb'^\{\s*("timestamp"[^{]*?,\s*|"session"[^{]*?,\s*)*"(request|response)"\s*:\s*\{')


def default_sources(env: Mapping[str, str] | None = None) -> list[str]:
    """Where agents keep their sessions, as they do: Claude Code's `projects` folder in each
    $CLAUDE_CONFIG_DIR (comma-separated), else `~/.config/claude/projects` and `~/.claude/projects`,
    and Codex's `sessions` folder in $CODEX_HOME, else `~/.codex/sessions`; the ones that exist.
    Raises InputError naming where it looked when none does."""
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or Path.home())
    claude = [Path(d.strip()).expanduser() / "projects" for d in env.get("CLAUDE_CONFIG_DIR", "").split(",") if d.strip()]
    claude = claude or [home / ".config" / "claude" / "projects", home / ".claude" / "projects"]
    codex = Path(env["CODEX_HOME"]).expanduser() if env.get("CODEX_HOME") else home / ".codex"
    looked = [*claude, codex / "sessions"]
    found = [str(p) for p in looked if p.is_dir()]
    if not found:
        raise InputError("no trace folder given, and none where Claude Code and Codex keep sessions (looked in "
                         f"{', '.join(map(str, looked))}); give a PATH, or set CLAUDE_CONFIG_DIR or CODEX_HOME")
    return found


def _walk(folder: str) -> list[str]:
    """The trace files under a folder, sorted (symlinked folders not followed, unreadable ones passed
    over, as Path.rglob does, at a fraction of its cost on thousands of files)."""
    out: list[str] = []
    for root, _, names in os.walk(folder):
        out += [f for n in names if n.endswith(SUFFIXES) and os.path.isfile(f := os.path.join(root, n))]
    return sorted(out)


def source_files(source: Any) -> list[str]:
    """Trace files from a path, folder (walked), glob, or a list of those; raises InputError if none."""
    items = [source] if isinstance(source, (str, os.PathLike)) else list(source)
    out: list[str] = []
    for item in items:
        s = os.fspath(item)
        p = Path(s).expanduser()
        if p.is_dir():
            out += _walk(str(p))
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


# What a file must mention to hold billed usage in any format: a file without them is not a trace.
USAGE_WORDS = re.compile(rb'"usage"|input_tokens|prompt_tokens|token_count|gen_ai\.usage|inputTokens')
_HEAD, _LONG_HEAD = 1 << 16, 1 << 20


def detect(path: str | os.PathLike) -> str | None:
    """The trace format of a file from the first lines that identify it (Claude Code files may open
    with any number of metadata lines), or None when it is none of TRACE_FORMATS."""
    start = head(path, _HEAD)
    fmt, sure = _detect(start)
    if not sure and len(start) == _HEAD:  # long metadata lines first: look further
        start = head(path, _LONG_HEAD)
        fmt, _ = _detect(start)
    return fmt


def _kind(rec: Any) -> tuple[str | None, bool]:
    """(format, whether the line settles it) for one parsed line."""
    if not isinstance(rec, dict):
        return None, False
    kind = rec.get("type")
    if isinstance(rec.get("response"), dict) and "request" in rec:
        return "provider-log", True
    if kind in CODEX_TYPES and "payload" in rec:
        return "codex", True
    if kind in CLAUDE_TYPES:
        return "claude-code", True
    if kind in CLAUDE_OTHER or (isinstance(kind, str) and ("sessionId" in rec or "parentUuid" in rec)):
        return "claude-code", False  # a metadata line (or a new type of one): keep looking
    return None, False


def _detect(start: bytes) -> tuple[str | None, bool]:
    if b'"resourceSpans"' in start:
        return "otel", True
    weak = first = None
    for line in _lines(start):  # one at a time: the first line or two decide, most often
        if not line.strip():
            continue
        first = line if first is None else first
        try:
            rec = json.loads(line)
        except (ValueError, RecursionError):  # bad JSON or UTF-8, a line cut by the head, a huge integer
            continue
        fmt, sure = _kind(rec)
        if sure:
            return fmt, True
        weak = weak or fmt
    if weak:
        return weak, False
    if _CLAUDE_KEYS.search(start) and _CLAUDE_TYPE.search(start):  # a first line cut off or unusual
        return "claude-code", False
    if first is not None and _PROVIDER_KEYS.search(first):  # a request body longer than the bytes read
        return "provider-log", False
    return None, False


def _lines(data: bytes):
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        yield data[start:end]
        start = end + 1


def mentions_usage(path: str | os.PathLike) -> bool:
    """Whether a file names billed usage anywhere (so skipping it could leave tokens out)."""
    tail = b""
    try:
        for block in blocks(path):
            if USAGE_WORDS.search(tail + block[:64]) or USAGE_WORDS.search(block):
                return True
            tail = block[-64:]
    except (OSError, Unreadable):
        return True  # unreadable: it might have
    return False


def trace_files(path: str | os.PathLike) -> list[str]:
    """The files at `path` (a file, or a folder walked) that are in one of the trace formats."""
    p = Path(path)
    if p.is_dir():
        return [f for f in source_files(p) if detect(f)]
    return [str(p)] if p.is_file() and detect(p) else []


def is_trace_file(path: str | os.PathLike) -> bool:
    """True when `path` is a trace file, or a folder holding trace files and no other file that
    mentions usage (a `metadata.json` beside each session is fine)."""
    p = Path(path)
    if p.is_dir():
        found = [f for f in p.rglob("*") if f.is_file() and f.name.endswith(SUFFIXES)]
        kinds = [detect(f) for f in found]
        return any(kinds) and all(k or not mentions_usage(f) for k, f in zip(kinds, found, strict=True))
    return p.is_file() and detect(p) is not None
