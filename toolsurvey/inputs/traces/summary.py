"""Traces read for their totals alone: the billed tokens and cost of every request, and the summary of
the read, without pandas or a tokenizer (the CLI's views: totals and every --by but tool).

Lines that cannot carry usage are passed over unparsed; a large folder is read by every core.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from ...errors import InputError
from . import engines, read
from .account import Account, account, headline, type_warnings
from .billing import bill_rows, price_table
from .collector import AT, column_sum
from .files import source_files
from .views import View, Window, Zone, view

PARALLEL_BYTES = 32 << 20  # below this, starting worker processes costs more than it saves


@dataclass
class Summary:
    """Billed request rows (REQUEST_FIELDS order) and their costs, what the read did, and the tool calls per tool."""

    rows: list[list]
    costs: list[float]
    account: Account
    warnings: list[str] = field(default_factory=list)
    tools: Counter = field(default_factory=Counter)
    source: str = ""

    @property
    def problems(self) -> list[str]:
        """Every warning, skipped lines included, one line each."""
        return self.warnings + [str(s) for s in self.account.skips.items]

    def headline(self) -> list[str]:
        r = self.rows
        tokens = {"input_tokens": column_sum(r, "input_tokens"), "cache_read": column_sum(r, "cache_read"),
                  "output_tokens": column_sum(r, "output_tokens"),
                  "cache_write": column_sum(r, "cache_write_5m", "cache_write_1h")}
        unpriced = sum(1 for c in self.costs if c != c)
        cost = sum(c for c in self.costs if c == c)
        by_tool = sorted(self.tools.items(), key=lambda kv: (-kv[1], kv[0]))
        return headline(self.account.files, len(set(map(itemgetter(AT["session"]), r))), len(r),
                        sum(self.tools.values()), tokens, cost, unpriced, by_tool)

    def summary(self, verbose: bool = False) -> str:
        """The lines `Traces.summary` prints, for the same files."""
        return "\n".join(self.headline() + self.account.lines(verbose))

    def view(self, by: str = "session", *, z: Zone | None = None, win: Window | None = None, breakdown: bool = False,
             week_start: str = "sunday") -> View:
        """`views.view` of these requests."""
        return view(self.rows, self.costs, by, z=z, win=win or Window(), breakdown=breakdown, week_start=week_start)


def workers_for(files: list[str]) -> int:
    """Processes worth starting for `files`: every core this process may use, for a large folder."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    size = 0
    for f in files:
        try:
            size += os.path.getsize(f)
        except OSError:
            pass
        if size >= PARALLEL_BYTES:
            return cores
    return 1


def summarize(source: Any, format: str = "auto", *, prices=None, engine: str = "auto", scheduler: str | None = None,
              workers: int | None = None, progress=None) -> Summary:
    """Read `source` (as `load_traces` does) for its billed totals only. `workers` processes read a large
    folder (default: every core for 32 MB or more). Raises InputError as `load_traces` does."""
    from ...core.choices import TRACE_ENGINES, TRACE_FORMATS

    if format != "auto" and format not in TRACE_FORMATS:
        raise InputError(f"unknown trace format {format!r}; expected auto or one of {', '.join(TRACE_FORMATS)}")
    if engine not in TRACE_ENGINES:
        raise InputError(f"unknown engine {engine!r}; expected one of {', '.join(TRACE_ENGINES)}")
    files = source_files(source)
    table: list = []

    def load_prices() -> None:  # while the other processes finish reading
        table.append(price_table(prices))

    if engine in ("auto", "python"):
        c = read.collect_lean(files, format, workers=workers or workers_for(files), progress=progress,
                              meanwhile=load_prices)
    else:
        c = engines.collect(files, format, engine=engine, scheduler=scheduler, progress=progress, lean=True)
        load_prices()
    c.resolve()
    c.skips.items.sort(key=lambda k: (k.file, k.line))
    rows = list(c.requests.values())
    costs, warns = bill_rows(rows, table[0])
    acc = account(c, rows, costs)
    tools = Counter(c.calls.values())  # lean: call id -> tool
    return Summary(rows, costs, acc, warns + type_warnings(c.unknown_types), tools, str(source))
