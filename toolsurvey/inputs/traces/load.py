"""Real agent traces: what agents did and paid, from Claude Code sessions, OpenTelemetry GenAI spans
(OTLP JSON) and provider request logs, as three tidy tables (requests, tool calls, sessions).

Formats are detected per file, folders are walked (Claude Code subagents in
`<session>/subagents/agent-*.jsonl` are tagged), and `.gz` files are read directly. Nothing is
dropped silently: every unreadable or unused line is a counted warning with its file and line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.choices import TRACE_ENGINES, TRACE_FORMATS
from ...core.tokens import DEFAULT_ENCODING
from ...errors import InputError
from . import engines
from .files import source_files
from .read import collect
from .tables import Traces, build

FORMATS, ENGINES = TRACE_FORMATS, TRACE_ENGINES


def load_traces(source: Any, format: str = "auto", *, prices: Mapping | str | None = None,
                encoding: str = DEFAULT_ENCODING, engine: str = "auto", scheduler: str | None = None,
                keep_results: bool = True, progress=None) -> Traces:
    """Read Claude Code JSONL, OTLP JSON (GenAI spans) or provider request logs into a Traces.

    `source` is a file, folder, glob or list of them; `format` one of FORMATS or "auto" (per file).
    Costs use `prices` (a price table, a price file, or the bundled prices). `engine` reads with the
    built-in streaming reader ("python", also "auto"), DuckDB ("duckdb"), or a Dask cluster ("dask"). `keep_results=False` keeps only the result token counts, not their text
    (bounded memory for large folders). `progress(total)`, if given, is called once per file read
    (the CLI's progress bar; not with Dask). Raises InputError for no files, an unknown format or a
    missing extra.
    """
    if format != "auto" and format not in FORMATS:
        raise InputError(f"unknown trace format {format!r}; expected auto or one of {', '.join(FORMATS)}")
    if engine not in ENGINES:
        raise InputError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
    files = source_files(source)
    if engine == "auto":  # the streaming reader measured fastest on one machine (bench/traces.py)
        engine = "python"
    if engine == "python":
        c = collect(files, format, encoding=encoding, keep_results=keep_results, progress=progress)
    else:
        c = engines.collect(files, format, engine=engine, scheduler=scheduler, encoding=encoding,
                            keep_results=keep_results, progress=progress)
    return build(c, prices=prices, encoding=encoding, source=str(source))
