"""What the trace readers found, keyed so that nothing counts twice: requests by their id (a request
streamed as several lines, or seen again in a resumed session's file, counts once), tool calls by call
id, and tool results by the call id they answer.

Requests seen only in a parent's `progress` lines (a subagent with no file of its own) are held apart
and counted at the end (`resolve`) only when no file had them, so a subagent's request is never
counted twice.
"""

from __future__ import annotations

import math
import re
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from operator import itemgetter
from typing import Any

from ...core.choices import DEFAULT_ENCODING
from ...core.jsonlines import Skipped, Skips
from .fields import arguments

USAGE_FIELDS = ("input_tokens", "cache_write_5m", "cache_write_1h", "cache_read", "output_tokens")
# Rows are stored as lists in these column orders (a dict per row would take several times the memory).
REQUEST_FIELDS = ("session", "subagent", "agent", "timestamp", "model", "tool_definition_tokens", *USAGE_FIELDS,
                  "request_id", "file", "line", "lines", "source", "project")
CALL_FIELDS = ("session", "subagent", "agent", "timestamp", "tool", "server", "arguments")
AT = {f: i for i, f in enumerate(REQUEST_FIELDS)}
_USAGE_AT = [AT[f] for f in USAGE_FIELDS]
_TEXT, _ERROR, _TOKENS = 0, 1, 2  # a result: [text, is_error, tokens] (a shared tuple once its text is dropped)
FILE, PROGRESS = "file", "progress"  # where a request's usage was read
_ZONED = re.compile(r"(Z|z|[+-]\d\d(:?\d\d)?)$")  # an ISO time that says its zone


_FILE, _LINE, _LINES, _MODEL = AT["file"], AT["line"], AT["lines"], AT["model"]


def line_numbers(row: list) -> range | list[int]:
    """The lines a request row was read from: its `lines` field is a count of lines from `line` on
    while they follow each other (a list takes ~100 bytes a request), else the list of them."""
    lines = row[_LINES]
    return range(row[_LINE], row[_LINE] + lines) if lines.__class__ is int else lines


def column_sum(rows: list[list], *names: str) -> int:
    """The sum over `rows` of the named fields (REQUEST_FIELDS), column by column at C speed."""
    return sum(sum(map(itemgetter(AT[n]), rows)) for n in names)


def _add_line(row: list, line: int) -> None:
    lines = row[_LINES]
    if lines.__class__ is int:
        if line == row[_LINE] + lines:
            row[_LINES] = lines + 1
            return
        row[_LINES] = lines = list(range(row[_LINE], row[_LINE] + lines))
    lines.append(line)


def _intern(v: Any) -> Any:
    return sys.intern(v) if isinstance(v, str) else v


def where(session: str, subagent: bool, agent: str, project: str) -> tuple:
    """Whose a request or call is: (session, subagent, agent, project), strings interned (rows share them)."""
    return sys.intern(session), subagent, sys.intern(agent), sys.intern(project)


@dataclass
class Collector:
    """What the parsers found across all files of one load."""

    requests: dict[str, list] = field(default_factory=dict)
    progress: dict[str, list] = field(default_factory=dict)   # requests seen in progress lines only, so far
    calls: dict[str, tuple | str] = field(default_factory=dict)
    results: dict[str, list | tuple] = field(default_factory=dict)
    skips: Skips = field(default_factory=Skips)
    usage_lines: int = 0          # lines (or spans) that carried usage
    line_tokens: int = 0          # their usage summed line by line (what counting every line would give)
    duplicate_files: int = 0      # request lines passed over because another file had the request
    repeated: set = field(default_factory=set)   # ids of requests met again in another file
    # file -> [request lines it repeats, the first one's line, the file that had it first]: said in one line
    repeated_in: dict[str, list] = field(default_factory=dict)
    other_lines: int = 0          # known records that are neither requests nor tool results
    events: list = field(default_factory=list)  # prompts and compactions (events.EVENT_FIELDS)
    unknown_types: dict[str, list] = field(default_factory=dict)  # line type -> [count, file, line, with usage]
    not_traces: Counter = field(default_factory=Counter)          # file name -> files that are not traces
    progress_only: int = -1       # after `resolve`: requests counted from progress lines alone
    progress_in_files: int = 0    # after `resolve`: requests of progress lines that files also had
    files: dict[str, str] = field(default_factory=dict)
    lean: bool = False            # totals only: no call arguments, no tool results (the summary views)
    naive_times: list = field(default_factory=lambda: [0, "", 0])  # usage lines with a time but no zone: n, first place

    def request(self, key: str, file: str, line: int, where: tuple, timestamp: Any, model: str, usage: tuple,
                source: str = FILE, definitions: str | None = None) -> None:
        """Count a request's usage (USAGE_FIELDS order) once: streamed lines of one request keep each
        field's largest value. `where` is (session, subagent, agent, project), see `where`."""
        self.usage_lines += 1
        self.line_tokens += sum(usage)
        if timestamp.__class__ is str and timestamp[-1:] != "Z" and not _ZONED.search(timestamp):
            self._naive(file, line)
        book = self.requests if source == FILE else self.progress
        old = book.get(key)
        if old is None:
            session, subagent, agent, project = where
            book[key] = [session, subagent, agent, timestamp, sys.intern(model), definitions, *usage, key, file, line,
                         1, source, project]
            return
        if old[_FILE] != file:
            if source == FILE:
                self._seen_elsewhere(key, file, line, old)
            return  # progress lines repeated in a resumed session's file: the same request
        _add_line(old, line)
        a, b, c, d, e = _USAGE_AT  # unrolled: a streamed request meets this once per line
        inp, five, hour, read, out = usage
        if inp > old[a]:
            old[a] = inp
        if five > old[b]:
            old[b] = five
        if hour > old[c]:
            old[c] = hour
        if read > old[d]:
            old[d] = read
        if out > old[e]:
            old[e] = out
        if not old[_MODEL]:
            old[_MODEL] = sys.intern(model)

    def _naive(self, file: str, line: int, n: int = 1) -> None:
        if not self.naive_times[0]:
            self.naive_times[1:] = [file, line]
        self.naive_times[0] += n

    def _seen_elsewhere(self, key: str, file: str, line: int, old: list) -> None:
        """A request line of `file` that an earlier file had (a resumed, forked or copied session): not
        counted again, and said once for all (`account`), not once per line."""
        self.duplicate_files += 1
        self.repeated.add(key)
        seen = self.repeated_in.get(file)
        if seen is None:
            self.repeated_in[file] = [1, line, old[AT["file"]]]
        else:
            seen[0] += 1

    def event(self, event: tuple | None) -> None:
        if event is not None:
            self.events.append(event)

    def unknown(self, kind: str, file: str, line: int, with_usage: bool) -> None:
        """A line of a type no reader knows: counted per type, its first place kept."""
        seen = self.unknown_types.get(kind)
        if seen is None:
            self.unknown_types[kind] = [1, file, line, with_usage]
        else:
            seen[0] += 1
            seen[3] = seen[3] or with_usage

    def call(self, call_id: str, where: tuple, timestamp: Any, tool: str, server: str | None, args: Any) -> None:
        """A tool call, once per call id (CALL_FIELDS); `args` as given (an object or JSON text)."""
        if call_id not in self.calls:  # lean: the tool's name alone (the summary counts calls per tool)
            self.calls[call_id] = sys.intern(tool) if self.lean else (
                *where[:3], timestamp, sys.intern(tool), _intern(server), arguments(args))

    def result(self, call_id: str, text: str | None, error: bool) -> None:
        if call_id not in self.results and not self.lean:
            self.results[call_id] = [text, error, None]

    def resolve(self) -> None:
        """Count the requests seen only in progress lines (once each); those a file also had are
        counted from the file. Call once every file is read; calling again does nothing."""
        if self.progress_only >= 0 and not self.progress:
            return
        self.progress_only = max(self.progress_only, 0)
        for key, row in self.progress.items():
            if key in self.requests:
                self.progress_in_files += 1
            else:
                self.requests[key] = row
                self.progress_only += 1
        self.progress.clear()

    def count_tokens(self, encoding: str, keep_text: bool = True) -> None:
        """Count result and tool-definition tokens now (in batches); drop the texts unless `keep_text`."""
        todo = [(k, r) for k, r in self.results.items() if r[_TOKENS] is None]
        shared: dict[tuple, tuple] = {}  # without the texts, most results are alike: one tuple for each kind
        for (k, r), n in zip(todo, count_chunked((r[_TEXT] for _, r in todo), encoding), strict=True):
            if keep_text:
                r[_TOKENS] = n
            else:
                self.results[k] = shared.setdefault((r[_ERROR], n), (None, r[_ERROR], n))
        at = AT["tool_definition_tokens"]
        reqs = [r for r in self.requests.values() if isinstance(r[at], str)]
        for r, n in zip(reqs, count_chunked((r[at] for r in reqs), encoding), strict=True):
            r[at] = n

    def plain(self) -> dict[str, Any]:
        """This Collector as plain values (dicts, lists, tuples, text, numbers), for `marshal`."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "skips"}
        for k in ("not_traces",):
            out[k] = dict(out[k])
        s = self.skips
        out["skips"] = {"items": [tuple(vars(x).values()) for x in s.items], "reasons": dict(s.reasons),
                        "joined": [tuple(vars(x).values()) for x in s.joined], "unparsed": s.unparsed,
                        "lost": dict(s.lost), "lost_bytes": dict(s.lost_bytes)}
        return out

    @classmethod
    def from_plain(cls, d: dict[str, Any]) -> Collector:
        """The Collector `plain` made."""
        s = d.pop("skips")
        skips = Skips([Skipped(*x) for x in s["items"]], Counter(s["reasons"]), [Skipped(*x) for x in s["joined"]],
                      s["unparsed"], Counter(s["lost"]), Counter(s["lost_bytes"]))
        return cls(**{**d, "not_traces": Counter(d["not_traces"]), "skips": skips})

    def merge(self, other: Collector) -> None:
        """Add a Collector of later files, as if their lines had been read after this one's."""
        mine = self.requests
        if mine.keys().isdisjoint(other.requests):  # the usual case, at C speed
            mine.update(other.requests)
        else:
            for key, row in other.requests.items():
                old = mine.get(key)
                if old is None:
                    mine[key] = row
                else:  # only across files: one file is read by one partition
                    for line in line_numbers(row):
                        self._seen_elsewhere(key, row[AT["file"]], line, old)
        _keep_first(self.progress, other.progress)
        _keep_first(self.calls, other.calls)
        _keep_first(self.results, other.results)
        for kind, (n, file, line, usage) in other.unknown_types.items():
            if kind in self.unknown_types:
                seen = self.unknown_types[kind]
                seen[0] += n
                seen[3] = seen[3] or usage
            else:
                self.unknown_types[kind] = [n, file, line, usage]
        self.events += other.events
        self.skips.merge(other.skips)
        self.not_traces.update(other.not_traces)
        if other.naive_times[0]:
            self._naive(other.naive_times[1], other.naive_times[2], other.naive_times[0])
        self.usage_lines += other.usage_lines
        self.line_tokens += other.line_tokens
        self.duplicate_files += other.duplicate_files
        self.repeated |= other.repeated
        for file, (n, line, first) in other.repeated_in.items():
            if file in self.repeated_in:
                self.repeated_in[file][0] += n
            else:
                self.repeated_in[file] = [n, line, first]
        self.other_lines += other.other_lines
        self.files.update(other.files)


def _keep_first(mine: dict, later: dict) -> None:
    """`later`'s items added to `mine` where `mine` has no such key (the first one met wins)."""
    if mine.keys().isdisjoint(later):
        mine.update(later)
    else:
        for k, v in later.items():
            mine.setdefault(k, v)


def count_chunked(texts: Iterable[str | None], encoding: str = DEFAULT_ENCODING, chunk: int = 2048) -> list[float]:
    """Tokens of each text (NaN for None), encoded in batches so memory stays bounded."""
    from ...core.tokens import (
        get_encoding,  # tiktoken only where tokens are counted: the summary views count none
    )

    enc = get_encoding(encoding)
    out: list[float] = []
    batch: list[str] = []

    def flush():
        # One text at a time: encode_ordinary_batch's thread pool costs more than it saves on a few cores.
        out.extend(float(len(enc.encode_ordinary(t))) for t in batch)
        batch.clear()

    for t in texts:
        if not isinstance(t, str):  # None, or NaN from a DataFrame column
            flush()
            out.append(math.nan)
        else:
            # Lone surrogates (from JSON escapes) become U+FFFD, as tiktoken sees them.
            batch.append(t.encode("utf-8", "replace").decode("utf-8"))
            if len(batch) >= chunk:
                flush()
    flush()
    return out
