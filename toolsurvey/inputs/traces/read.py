"""The built-in streaming reader: each file's format detected, then its records added to a Collector
by the reader of that source; a large folder read for its totals alone is split over the cores."""

from __future__ import annotations

import gc
import marshal
import os
from contextlib import contextmanager

from ...core.choices import DEFAULT_ENCODING
from .claude_code import claude_code
from .codex import codex
from .collector import Collector
from .files import detect, mentions_usage
from .otel import otel
from .provider_log import provider_log

# Readers that can pass over lines without usage take `usage_only`; the others read every line.
PARSERS = {"claude-code": claude_code, "codex": codex, "otel": otel, "provider-log": provider_log}
PREFILTERED = frozenset({"claude-code", "codex"})


def format_of(c: Collector, file: str, format: str = "auto") -> str | None:
    """`file`'s trace format (detected when `format` is "auto"), recorded in `c`; None when it is none
    this reader knows: counted as not a trace, or, when it mentions usage, as a skip that leaves the
    totals incomplete."""
    fmt = detect(file) if format == "auto" else format
    if fmt is not None:
        c.files[file] = fmt
    elif mentions_usage(file):  # it may hold billed tokens: the totals are incomplete without it
        c.skips.add(file, 0, "not a trace file this reader knows (Claude Code JSONL, Codex rollout, OTLP JSON, "
                    "provider request log), although it mentions token usage; file skipped",
                    "file of unknown format", lost=_size(file))
    else:
        c.not_traces[os.path.basename(file)] += 1
    return fmt


def _size(file: str) -> int:
    try:
        return max(os.path.getsize(file), 1)
    except OSError:
        return 1


def parse_file(c: Collector, file: str, fmt: str) -> None:
    """Add `file`, in format `fmt`, to `c` with the built-in reader; an unreadable file is a counted skip.
    A lean Collector (totals only) has the lines without usage passed over where the format allows."""
    try:
        if fmt in PREFILTERED:
            PARSERS[fmt](file, c, usage_only=c.lean)
        else:
            PARSERS[fmt](file, c)
    except OSError as e:
        c.skips.add(file, 0, f"cannot read: {e.strerror or e}", "unreadable file", lost=1)


def collect(files: list[str], format: str = "auto", *, encoding: str = DEFAULT_ENCODING,
            keep_results: bool = True, every: int = 256, progress=None, lean: bool = False) -> Collector:
    """Parse `files` (each in its detected format) into one Collector, counting result tokens
    every `every` files so that, without `keep_results`, no more than that many files' texts are held;
    `progress(total)` is called once per file. `lean` reads totals only: no tool arguments or
    results, no tokens counted, lines without usage not parsed."""
    c = Collector(lean=lean)
    for f in files:
        if progress:
            progress(len(files))
        fmt = format_of(c, f, format)
        if fmt is None:
            continue
        parse_file(c, f, fmt)
        if not lean and len(c.files) % every == 0:
            c.count_tokens(encoding, keep_results)
    if not lean:
        c.count_tokens(encoding, keep_results)
    return c


@contextmanager
def _no_gc():
    """The cyclic garbage collector paused: reading builds only trees (parsed JSON) and lists, no
    cycles, and every collection of a large read walks all its rows again (about a tenth of its time)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _lean_part(job: tuple[list[str], str]) -> bytes:
    with _no_gc():
        return marshal.dumps(collect(job[0], job[1], lean=True).plain())  # marshal: several times faster to load


def parts(files: list[str], n: int) -> list[list[str]]:
    """`files` cut into at most `n` runs of neighbouring files of about equal size (so merging the
    runs in order counts as reading the files in order)."""
    sizes = [_size(f) for f in files]
    target = sum(sizes) / n
    out: list[list[str]] = [[]]
    filled = 0.0
    for f, s in zip(files, sizes, strict=True):
        if out[-1] and filled + s / 2 > target * len(out) and len(out) < n:
            out.append([])
        out[-1].append(f)
        filled += s
    return out


def collect_lean(files: list[str], format: str = "auto", *, workers: int = 1, progress=None) -> Collector:
    """A lean Collector (see `collect`) of `files`, read by `workers` processes when more than one:
    each reads a run of neighbouring files (this process the first), and the runs are merged in order."""
    runs = parts(files, workers) if workers > 1 and len(files) > 1 else [files]
    if len(runs) == 1:
        with _no_gc():
            return collect(files, format, progress=progress, lean=True)
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else methods[0])
    # this process reads the first run while the workers read the others: one process fewer to start,
    # and one run fewer to pass back
    with ctx.Pool(len(runs) - 1) as pool, _no_gc():
        later = pool.imap(_lean_part, [(r, format) for r in runs[1:]])
        c = collect(runs[0], format, progress=progress, lean=True)
        for run, part in zip(runs[1:], later, strict=True):
            c.merge(Collector.from_plain(marshal.loads(part)))
            for _ in run if progress else ():
                progress(len(files))
    return c
