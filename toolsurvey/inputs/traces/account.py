"""What one read of traces did, in plain words: the files read and those that are not traces, each
counting rule and what it changed in the totals, and what was left out (so incomplete totals say so).

Built from the Collector and the billed request rows, without pandas, so the summary views and the
tables print the same lines.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from operator import itemgetter

from ...core.jsonlines import Skips
from ...core.text import plural
from .collector import AT, PROGRESS, USAGE_FIELDS, Collector, column_sum, line_numbers

_USAGE_AT = [AT[f] for f in USAGE_FIELDS]
REPEATED = "repeated in another file"
_WHOLE_FILE = ("corrupt gzip", "read error")  # the rest of a file: no byte count


@dataclass(frozen=True)
class Rule:
    """One counting rule and what it changed: requests, billed tokens and dollars added (or, for a
    rule that avoids a double count, what counting again would have added)."""

    name: str
    requests: int
    tokens: int
    cost: float
    text: str


@dataclass
class Account:
    """The summary of one read: files, rules, and what was not read."""

    files: dict[str, str] = field(default_factory=dict)
    not_traces: Counter = field(default_factory=Counter)
    skips: Skips = field(default_factory=Skips)
    unknown_types: dict[str, list] = field(default_factory=dict)
    naive_times: list = field(default_factory=lambda: [0, "", 0])
    rules: list[Rule] = field(default_factory=list)
    usage_lines: int = 0
    requests: int = 0
    repeated_in: dict[str, list] = field(default_factory=dict)  # file -> [lines, first line, the file first read]

    @property
    def incomplete(self) -> bool:
        """True when something skipped could have held billed usage."""
        return bool(self.skips.lost) or any(u[3] for u in self.unknown_types.values())

    def lines(self, verbose: bool = False) -> list[str]:
        """The summary lines about reading (what was read is said by the caller); `verbose` lists the
        files that repeat requests of others under the line that counts them."""
        out = []
        for r in self.rules:
            if r.text:
                out.append(r.text)
            if verbose and r.name == REPEATED:
                out += [f"  {file}: {plural(n, 'request line')} already read from {first} (the first at line {line})"
                        for file, (n, line, first) in sorted(self.repeated_in.items())]
        if self.not_traces:
            n = sum(self.not_traces.values())
            names = ", ".join(f"{name} x{k}" for name, k in self.not_traces.most_common(5))
            more = f" and {len(self.not_traces) - 5} more names" if len(self.not_traces) > 5 else ""
            out.append(f"{plural(n, 'file')} {'is not a trace' if n == 1 else 'are not traces'} ({names}{more}): "
                       "nothing in them mentions token usage")
        if self.unknown_types:
            kinds = ", ".join(f"{k!r} x{v[0]:,} (first at {v[1]}:{v[2]})" for k, v in
                              sorted(self.unknown_types.items(), key=lambda kv: -kv[1][0]))
            usage = [k for k, v in self.unknown_types.items() if v[3]]
            out.append(f"unknown line types, passed over: {kinds}; "
                       + (f"{', '.join(map(repr, usage))} carry usage that is not counted" if usage
                          else "none of them carries usage"))
        n, f, line = self.naive_times
        if n:
            out.append(f"{plural(n, 'line')} with usage {'has' if n == 1 else 'have'} a time with no zone (first at "
                       f"{f}:{line}): read as UTC")
        if self.skips.unparsed:
            out.append(f"pre-filter: {self.skips.unparsed:,} line(s) without usage were not parsed (tool results "
                       "and line types there are not checked; --by tool reads every line)")
        if self.skips:
            out.append(self.skips.summary())
        if self.incomplete:
            out.append("TOTALS ARE INCOMPLETE: " + self._lost())
        return out

    def _lost(self) -> str:
        parts = []
        for kind, n in self.skips.lost.most_common():
            size = "" if kind in _WHOLE_FILE else f", {self.skips.lost_bytes[kind]:,} bytes"
            parts.append(f"{n:,} {kind}{' (the rest of the file)' if kind in _WHOLE_FILE else ''}{size}")
        usage = sum(v[0] for v in self.unknown_types.values() if v[3])
        if usage:
            parts.append(f"{usage:,} line(s) of unknown types with usage")
        return "skipped, and could hold billed usage: " + "; ".join(parts)


def headline(files: dict[str, str], sessions: int, requests: int, calls: int, tokens: dict[str, int], cost: float,
             unpriced: int, by_tool: list[tuple[str, int]]) -> list[str]:
    """The first summary lines: what was read, the billed tokens and cost, the most called tools."""
    kinds = Counter(files.values())
    formats = ", ".join(f"{n} {f}" for f, n in kinds.most_common()) or "none"
    out = [f"{len(files)} file(s) ({formats}): {sessions} session(s), {requests:,} request(s), {calls:,} tool call(s)",
           f"billed tokens: {tokens['input_tokens']:,} input, {tokens['cache_write']:,} cache write, "
           f"{tokens['cache_read']:,} cache read, {tokens['output_tokens']:,} output; cost ${cost:,.4f}"
           + (f" ({unpriced:,} request(s) of unpriced models left out, see warnings)" if unpriced else "")]
    if by_tool:
        out.append(f"tool calls by tool: {', '.join(f'{t} {n}' for t, n in by_tool[:8])}"
                   + (f" and {len(by_tool) - 8} more tools" if len(by_tool) > 8 else ""))
    return out


def type_warnings(unknown_types: dict[str, list]) -> list[str]:
    """One warning per unknown line type: its count and first place."""
    return [f"unknown line type {k!r} x{n:,} (first at {f}:{line}), passed over"
            + ("; it carries usage, which is not counted" if usage else "")
            for k, (n, f, line, usage) in sorted(unknown_types.items())]


def _tokens(row: list) -> int:
    return sum(row[i] for i in _USAGE_AT)


_PARTS = (("input", (AT["input_tokens"],)), ("cache write", (AT["cache_write_5m"], AT["cache_write_1h"])),
          ("cache read", (AT["cache_read"],)), ("output", (AT["output_tokens"],)))


def _added(rows: list[list], idx: list[int], costs: list[float], sign: str = "+") -> str:
    """'+14,285 cache write, +12 output tokens, +$0.0375' for the rows at `idx`."""
    parts = [(name, sum(rows[i][k] for i in idx for k in at)) for name, at in _PARTS]
    words = ", ".join(f"{sign}{n:,} {name}" for name, n in parts if n)
    return f"{words or sign + '0'} tokens, {sign}{_money(math.fsum(costs[i] for i in idx))}"


def _money(cost: float) -> str:
    return "$?" if math.isnan(cost) else f"${cost:,.4f}"


def account(c: Collector, rows: list[list], costs: list[float]) -> Account:
    """The Account of a resolved Collector whose request rows are `rows`, billed `costs`."""
    a = Account(dict(c.files), Counter(c.not_traces), c.skips, dict(c.unknown_types), list(c.naive_times),
                usage_lines=c.usage_lines, requests=len(rows), repeated_in=dict(c.repeated_in))
    src, rid, file = AT["source"], AT["request_id"], AT["file"]
    total = column_sum(rows, *USAGE_FIELDS)
    a.rules.append(Rule("streamed lines", 0, c.line_tokens - total, math.nan,
                        f"deduplicated: {c.usage_lines:,} line(s) with usage -> {len(rows):,} request(s): lines sharing "
                        "a request id (Claude Code requestId, else message id; Codex running total; span id; response "
                        "id) are one streamed request, each usage field taken at its largest (summing every line would add "
                        f"{c.line_tokens - total:,} tokens)"))
    prog = [i for i, s in enumerate(map(itemgetter(src), rows)) if s == PROGRESS]
    if prog or c.progress_in_files:
        t, m = sum(_tokens(rows[i]) for i in prog), math.fsum(costs[i] for i in prog)
        text = "progress lines: "
        if prog:
            text += (f"+{plural(len(prog), 'request')} ({_added(rows, prog, costs)}) of subagents with no file of "
                     "their own, read from their parents' progress lines")
        if c.progress_in_files:
            text += ("; " if prog else "") + (f"{plural(c.progress_in_files, 'request')} also in progress lines "
                                              "counted once, from the subagent's own file")
        a.rules.append(Rule("progress lines", len(prog), t, m, text))
    rep = [i for i, k in enumerate(map(itemgetter(rid), rows)) if k in c.repeated] if c.repeated else []
    if rep:
        t, m = sum(_tokens(rows[i]) for i in rep), math.fsum(costs[i] for i in rep)
        lines, files = c.duplicate_files, len(c.repeated_in)
        a.rules.append(Rule(REPEATED, 0, -t, -m,
                            f"resumed sessions: {plural(len(rep), 'request')} repeated in {plural(files, 'file')} "
                            f"({plural(lines, 'line')}: a resumed, forked or copied session repeats earlier ones), "
                            f"counted once; counting again would add {_added(rows, rep, costs)} (-v lists the files)"))
    joined = {(s.file, s.line) for s in c.skips.joined}
    if joined:
        j = [i for i, r in enumerate(rows) if all((r[file], n) in joined for n in line_numbers(r))]
        t, m = sum(_tokens(rows[i]) for i in j), math.fsum(costs[i] for i in j)
        a.rules.append(Rule("several objects on a line", len(j), t, m,
                            f"joined lines: +{plural(len(j), 'request')} ({_added(rows, j, costs)}) read from "
                            f"{plural(len(joined), 'line')} holding several JSON objects (a write race): "
                            + ", ".join(f"{f}:{n}" for f, n in sorted(joined)[:3])
                            + (" ..." if len(joined) > 3 else "")))
    return a
