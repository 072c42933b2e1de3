"""Usage inputs resolved once, at the edge: a tool-call log, agent traces or records become one Usage
(and, for a report, the Traces they came from), passed down from here and never tested again."""

from __future__ import annotations

import os
from typing import Any

from ..core.tokens import DEFAULT_ENCODING
from .traces.files import is_trace_file
from .traces.load import load_traces
from .traces.tables import Traces
from .usage import Usage, read_log


def load_usage(source: str | os.PathLike | list[dict], *, encoding: str = DEFAULT_ENCODING,
               bytes_per_token: float = 4.0) -> Usage:
    """Read a CSV or JSONL tool-call log (or a list of dicts); broken lines are reported, not fatal.
    Agent traces (Claude Code, OTel GenAI, provider logs) carry the tool calls too: a trace file or
    folder gives its tool calls.

    Raises InputError for a missing or unreadable file, or one with no readable call at all.
    """
    if isinstance(source, (str, os.PathLike)) and is_trace_file(source):
        return load_traces(source, encoding=encoding).to_usage()
    return read_log(source, encoding=encoding, bytes_per_token=bytes_per_token)


def usage_and_traces(usage: Any, traces: Any) -> tuple[Traces | None, Usage | None]:
    """(Traces or None, Usage or None) from a report's inputs: `traces` a Traces or what `load_traces`
    reads, `usage` a Usage or what `load_usage` reads. A trace path given as `usage`, with no `traces`,
    is loaded once and gives both: the usage is the traces' tool calls.

    Raises InputError as `load_traces` and `load_usage` do (traces first).
    """
    if traces is None and isinstance(usage, (str, os.PathLike)) and is_trace_file(usage):
        tr = load_traces(usage)
        return tr, tr.to_usage()
    tr = traces if traces is None or isinstance(traces, Traces) else load_traces(traces)
    if usage is None or isinstance(usage, Usage):
        return tr, usage
    return tr, load_usage(usage)
