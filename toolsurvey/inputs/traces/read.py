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
            keep_results: bool = True, every: int = 256, progress=None, lean: bool = False,
            into: Collector | None = None) -> Collector:
    """Parse `files` (each in its detected format) into one Collector (`into`, when given, as if they
    followed its files), counting result tokens every `every` files so that, without `keep_results`,
    no more than that many files' texts are held; `progress(total)` is called once per file. `lean`
    reads totals only: no tool arguments or results, no tokens counted, lines without usage not parsed."""
    c = Collector(lean=lean) if into is None else into
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
def no_gc():
    """The cyclic garbage collector paused: reading builds only trees (parsed JSON) and lists, no
    cycles, and every collection of a large read walks all its rows again (about a tenth of its time)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


CHUNK_BYTES = 4 << 20  # a share of work the processes claim one at a time: small enough to finish together


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


def _claim(ends, first: bool) -> int:
    """The next chunk no process has claimed, or -1: from the front (this process) or the back (a worker)."""
    with ends.get_lock():
        lo, hi = ends[0], ends[1]
        if lo >= hi:
            return -1
        if first:
            ends[0] = lo + 1
            return lo
        ends[1] = hi - 1
        return hi - 1


def _runs(read: dict[int, Collector]) -> list[list]:
    """Chunks read by one process as runs of consecutive chunks, each merged in order: [first, end, Collector]."""
    out: list[list] = []
    for i in sorted(read):
        if out and out[-1][1] == i:
            out[-1][2].merge(read[i])
            out[-1][1] = i + 1
        else:
            out.append([i, i + 1, read[i]])
    return out


def _worker(chunks: list[list[str]], format: str, ends, conn) -> None:
    """Read chunks from the back until the processes meet; send the runs read, marshalled. On any
    error (or Ctrl-C) it sends nothing: the parent reads the chunks again, and words the error."""
    try:
        with no_gc():
            read: dict[int, Collector] = {}
            while (i := _claim(ends, False)) >= 0:
                read[i] = collect(chunks[i], format, lean=True)
            conn.send_bytes(marshal.dumps([(a, b, c.plain()) for a, b, c in _runs(read)]))  # marshal: fast to load
    except BaseException:  # noqa: BLE001, S110 - said once, by the parent
        pass
    finally:
        conn.close()


def _received(proc, conn) -> list[list]:
    """A worker's runs; none when it died before sending them (its chunks are then read again here)."""
    try:
        return [[a, b, Collector.from_plain(plain)] for a, b, plain in marshal.loads(conn.recv_bytes())]
    except EOFError:
        return []
    finally:
        conn.close()
        proc.join()


def collect_lean(files: list[str], format: str = "auto", *, workers: int = 1, progress=None,
                 meanwhile=None) -> Collector:
    """A lean Collector (see `collect`) of `files`, read by `workers` processes when more than one.

    The files are cut into chunks of neighbouring files; this process claims them from the front and
    the workers from the back until they meet, so all finish together whatever each one's speed, and
    the chunks are merged in file order. `meanwhile()` runs once this process has read its share,
    while the workers finish. Chunks of a worker that died are read again here."""
    n = min(len(files), sum(map(_size, files)) // CHUNK_BYTES) if workers > 1 else 1
    if n < 2:
        with no_gc():
            c = collect(files, format, progress=progress, lean=True)
        if meanwhile:
            meanwhile()
        return c
    import multiprocessing

    chunks = parts(files, n)
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else methods[0])
    ends = ctx.Array("l", [0, len(chunks)])
    procs = []
    for _ in range(min(workers, len(chunks)) - 1):
        r, w = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_worker, args=(chunks, format, ends, w), daemon=True)
        proc.start()
        w.close()  # the worker holds the only writing end now: if it dies, reading ends (EOFError)
        procs.append((proc, r))
    with no_gc():
        c, mine = Collector(lean=True), 0  # this process's chunks follow each other from the first
        while (i := _claim(ends, True)) >= 0:
            collect(chunks[i], format, progress=progress, lean=True, into=c)
            mine = i + 1
        if meanwhile:
            meanwhile()
        runs = [[0, mine, c]]
        for proc, r in procs:
            for run in _received(proc, r):
                runs.append(run)
                for _ in range(sum(len(chunks[k]) for k in range(run[0], run[1])) if progress else 0):
                    progress(len(files))
        covered = {k for a, b, _ in runs for k in range(a, b)}
        runs += [[k, k + 1, collect(chunks[k], format, progress=progress, lean=True)]
                 for k in range(len(chunks)) if k not in covered]
        runs.sort(key=lambda run: run[0])
        c = runs[0][2]
        for _, _, later in runs[1:]:
            c.merge(later)
    return c
