"""The built-in streaming reader: each file's format detected, then its records added to a Collector
by the reader of that source."""

from __future__ import annotations

import os

from ...core.tokens import DEFAULT_ENCODING
from .claude_code import claude_code
from .collector import Collector
from .files import detect, mentions_usage
from .otel import otel
from .provider_log import provider_log

PARSERS = {"claude-code": claude_code, "otel": otel, "provider-log": provider_log}


def format_of(c: Collector, file: str, format: str = "auto") -> str | None:
    """`file`'s trace format (detected when `format` is "auto"), recorded in `c`; None, with a counted
    skip, when it is none this reader knows."""
    fmt = detect(file) if format == "auto" else format
    if fmt is not None:
        c.files[file] = fmt
    elif mentions_usage(file):  # it may hold billed tokens: the totals are incomplete without it
        c.skips.add(file, 0, "not a trace file this reader knows (Claude Code JSONL, OTLP JSON, provider request "
                    "log), although it mentions token usage; file skipped", "file of unknown format",
                    lost=_size(file))
    else:
        c.not_traces[os.path.basename(file)] += 1
    return fmt


def _size(file: str) -> int:
    try:
        return max(os.path.getsize(file), 1)
    except OSError:
        return 1


def parse_file(c: Collector, file: str, fmt: str) -> None:
    """Add `file`, in format `fmt`, to `c` with the built-in reader; an unreadable file is a counted skip."""
    try:
        PARSERS[fmt](file, c)
    except OSError as e:
        c.skips.add(file, 0, f"cannot read: {e.strerror or e}", "unreadable file", lost=1)


def collect(files: list[str], format: str = "auto", *, encoding: str = DEFAULT_ENCODING,
            keep_results: bool = True, every: int = 256, progress=None) -> Collector:
    """Parse `files` (each in its detected format) into one Collector, counting result tokens
    every `every` files so that, without `keep_results`, no more than that many files' texts are held;
    `progress(total)` is called once per file."""
    c = Collector()
    for f in files:
        if progress:
            progress(len(files))
        fmt = format_of(c, f, format)
        if fmt is None:
            continue
        parse_file(c, f, fmt)
        if len(c.files) % every == 0:
            c.count_tokens(encoding, keep_results)
    c.count_tokens(encoding, keep_results)
    return c
