"""Billed totals of traces grouped by session, day, week, month, 5-hour block, model or project, with a
Total and an optional per-model breakdown, in plain Python (no pandas: the CLI's summary views start
fast and the library's `Traces.totals` gives the same numbers from the same code).

Times are read as UTC instants and grouped in a time zone (the system's by default, as ccusage
does); `Window` keeps the requests between --since and --until.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta, tzinfo
from functools import reduce
from operator import add, itemgetter
from typing import Any

from ...core.choices import TRACE_BY, WEEKDAYS
from ...errors import InputError
from .collector import AT, USAGE_FIELDS

VIEWS = tuple(b for b in TRACE_BY if b != "tool")
BLOCK = timedelta(hours=5)  # Claude's usage windows: five hours from the first request (hour-aligned, as ccusage)
NO_TIME = "(no time)"
NUMBERS = ("requests", *USAGE_FIELDS, "cache_write", "cost")
_USAGE_AT = [AT[f] for f in USAGE_FIELDS]


# ---------------------------------------------------------------- time zones and windows

@dataclass(frozen=True)
class Zone:
    """Where days start: a named IANA zone, UTC, or the system's local time (None)."""

    name: str
    tz: tzinfo | None

    def local(self, t: datetime) -> datetime:
        return t.astimezone(self.tz)  # None: the system's zone, with its daylight saving at that instant


def zone(name: str | None) -> Zone:
    """The Zone named `name` ('local' or None for the system's, 'UTC', or an IANA name such as
    'Europe/Paris'); raises InputError for an unknown name, with close matches."""
    if name is None or name.lower() == "local":
        return Zone("local", None)
    if name.upper() in ("UTC", "Z", "GMT"):
        return Zone("UTC", UTC)
    import zoneinfo

    try:
        return Zone(name, zoneinfo.ZoneInfo(name))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        import difflib

        close = difflib.get_close_matches(name, sorted(zoneinfo.available_timezones()), n=4, cutoff=0.5)
        raise InputError(f"unknown time zone {name!r}; expected 'local', 'UTC' or an IANA name such as "
                         f"'America/New_York'" + (f" (close: {', '.join(close)})" if close else "")) from None


def instant(v: Any) -> datetime | None:
    """A trace's time as an aware UTC datetime: ISO text (no zone: UTC), Unix nanoseconds (OTLP) or a
    datetime; None when there is none or it does not parse."""
    if v.__class__ is str:  # the usual case first
        try:
            t = datetime.fromisoformat(v)
        except ValueError:
            return None
        tz = t.tzinfo
        return t if tz is UTC else t.replace(tzinfo=UTC) if tz is None else t.astimezone(UTC)
    if isinstance(v, datetime):
        if v != v:  # pandas' NaT
            return None
        return v.replace(tzinfo=UTC) if v.tzinfo is None else v.astimezone(UTC)
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return datetime.fromtimestamp(v / 1e9, UTC)
    if isinstance(v, str):
        return instant(str(v))  # a str subclass
    return None


@dataclass(frozen=True)
class Window:
    """Requests from `since` (inclusive) to `until` (exclusive); None is open."""

    since: datetime | None = None
    until: datetime | None = None

    def __bool__(self) -> bool:
        return self.since is not None or self.until is not None

    def holds(self, t: datetime | None) -> bool:
        if t is None:
            return not self
        return (self.since is None or t >= self.since) and (self.until is None or t < self.until)


def window(since: str | None, until: str | None, z: Zone) -> Window:
    """The Window of --since/--until: a date (2026-02-11 or 20260211) is a whole day in `z` (--until
    includes its day), a time must say its zone (2026-02-11T09:00Z, ...+01:00). Raises InputError
    for a bound that is neither, or since after until."""
    lo = _bound(since, z, "--since", end=False) if since else None
    hi = _bound(until, z, "--until", end=True) if until else None
    if lo is not None and hi is not None and lo >= hi:
        raise InputError(f"--since {since} is not before --until {until}: expected since <= until")
    return Window(lo, hi)


def _bound(text: str, z: Zone, flag: str, end: bool) -> datetime:
    t = text.strip()
    day = None
    if len(t) == 8 and t.isdigit():
        t = f"{t[:4]}-{t[4:6]}-{t[6:]}"
    if len(t) == 10:
        try:
            day = date.fromisoformat(t)
        except ValueError:
            pass
    if day is not None:
        start = datetime.combine(day + timedelta(days=1) if end else day, datetime.min.time())
        return (start.replace(tzinfo=z.tz) if z.tz else start.astimezone()).astimezone(UTC)
    try:
        moment = datetime.fromisoformat(t)
    except ValueError:
        raise InputError(f"{flag} {text!r}: expected a date (2026-02-11 or 20260211) or an ISO time with its zone "
                         "(2026-02-11T09:00Z)") from None
    if moment.tzinfo is None:
        raise InputError(f"{flag} {text!r} is a time with no zone: expected one such as {t}Z or {t}+01:00 "
                         "(or a date, read in --timezone)")
    return moment.astimezone(UTC)


# ---------------------------------------------------------------- grouping

_ROW, _COST, _TIME = itemgetter(0), itemgetter(1), itemgetter(2)
_MODEL_OF = itemgetter(AT["model"])


@dataclass
class _Sum:
    requests: int = 0
    tokens: list[int] = field(default_factory=lambda: [0] * len(USAGE_FIELDS))
    cost: float = 0.0
    priced: int = 0
    first: datetime | None = None
    last: datetime | None = None
    models: dict[str, _Sum] | None = None

    @classmethod
    def of(cls, picked: list[tuple], breakdown: bool = False) -> _Sum:
        """The sums of (row, cost, time) triples, column by column; the cost added in order, as a
        running total would be (sum() compensates from Python 3.12)."""
        rows = list(map(_ROW, picked))
        costs = [c for c in map(_COST, picked) if c == c]  # not NaN
        times = [t for t in map(_TIME, picked) if t is not None]
        s = cls(len(rows), [sum(map(itemgetter(i), rows)) for i in _USAGE_AT], reduce(add, costs, 0.0), len(costs),
                min(times) if times else None, max(times) if times else None)
        if breakdown:
            s.models = {m: cls.of(p) for m, p in _bucket(picked, [_MODEL_OF(r) or "(none)" for r in rows]).items()}
        return s

    def numbers(self) -> dict[str, Any]:
        out: dict[str, Any] = {"requests": self.requests, **dict(zip(USAGE_FIELDS, self.tokens, strict=True))}
        out["cache_write"] = out["cache_write_5m"] + out["cache_write_1h"]
        out["cost"] = self.cost if self.priced else (0.0 if not self.requests else None)
        return out


@dataclass
class View:
    """One view of billed traces: a row per group (dicts, key column first), the Total, and the
    columns in order. `breakdown` rows carry a "models" list of the same numbers per model."""

    by: str
    columns: list[str]
    rows: list[dict[str, Any]]
    totals: dict[str, Any]
    zone: str
    left_out: int = 0  # requests outside the window

    def as_json(self) -> dict[str, Any]:
        return {"totals": self.totals, "rows": self.rows}


def _fmt(t: datetime | None, z: Zone, seconds: bool = False) -> str | None:
    return None if t is None else z.local(t).strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")


def view(rows: list[list], costs: list[float], by: str = "session", *, z: Zone | None = None,
         win: Window = Window(), breakdown: bool = False, week_start: str = "sunday") -> View:
    """Totals of request rows (REQUEST_FIELDS order, billed `costs`) grouped `by` one of VIEWS.

    Day, week and month are calendar periods in `z`; a week starts on `week_start`; a block is five
    hours from its first request's hour (UTC), a new one starting after five hours or a five-hour
    gap. Raises InputError for an unknown `by` or weekday.
    """
    if by not in VIEWS:
        raise InputError(f"cannot total by {by!r}; expected one of {', '.join(VIEWS)}, or tool")
    if week_start not in WEEKDAYS:
        raise InputError(f"unknown start of week {week_start!r}; expected one of {', '.join(WEEKDAYS)}")
    z = z or zone(None)
    picked = list(zip(rows, costs, map(instant, map(itemgetter(AT["timestamp"]), rows)), strict=True))
    if win:
        picked = [p for p in picked if win.holds(p[2])]
    members = _bucket(picked, _keys(picked, by, z, WEEKDAYS.index(week_start)))
    groups = {key: _Sum.of(p, breakdown) for key, p in members.items()}
    extra = {key: {"project": p[0][0][AT["project"]]} for key, p in members.items()} if by == "session" else {}
    total = _Sum.of(picked)  # the cost added request by request in order, as one sum of every row
    out = []
    for key in sorted(groups, key=lambda k: (k == NO_TIME, _order(k))):
        g = groups[key]
        row = {by: _label(key, by, z), **_extra(by, g, extra.get(key), z), **g.numbers()}
        if breakdown:
            row["models"] = [{"model": m, **s.numbers()} for m, s in
                             sorted((g.models or {}).items(), key=lambda kv: -(kv[1].cost or 0))]
        out.append(row)
    cols = [by, *([c for c in out[0] if c not in NUMBERS and c not in (by, "models")] if out else []), *NUMBERS]
    return View(by, cols, out, total.numbers(), z.name, len(rows) - len(picked))


def _bucket(picked: list[tuple], keys: list[Any]) -> dict[Any, list[tuple]]:
    """`picked` split by `keys` (one per item), each part in order; the keys in order of first appearance."""
    out: dict[Any, list[tuple]] = {}
    for p, key in zip(picked, keys, strict=True):
        part = out.get(key)
        if part is None:
            out[key] = [p]
        else:
            part.append(p)
    return out


def _order(key: Any) -> Any:
    return str(key) if not isinstance(key, datetime) else key.isoformat()


def _keys(picked: list[tuple], by: str, z: Zone, week_start: int) -> list[Any]:
    if by in ("session", "model", "project"):
        at = AT[by]
        return [r[at] or "(none)" for r, _, _ in picked]
    if by == "block":
        return _blocks([t for _, _, t in picked])
    utc = z.tz is UTC
    days = [None if t is None else t.date() if utc else z.local(t).date() for t in map(_TIME, picked)]
    if by == "day":
        return [NO_TIME if d is None else d.isoformat() for d in days]
    if by == "month":
        return [NO_TIME if d is None else d.isoformat()[:7] for d in days]
    return [NO_TIME if d is None else (d - timedelta(days=(d.weekday() - week_start) % 7)).isoformat() for d in days]


def _blocks(times: list[datetime | None]) -> list[Any]:
    """Each time's 5-hour block, named by its start (an aware UTC datetime)."""
    order = sorted((t, i) for i, t in enumerate(times) if t is not None)
    out: list[Any] = [NO_TIME] * len(times)
    start = last = None
    for t, i in order:
        if start is None or t - start > BLOCK or t - last > BLOCK:
            start = t.replace(minute=0, second=0, microsecond=0)
        last = t
        out[i] = start
    return out


def _label(key: Any, by: str, z: Zone) -> str:
    return _fmt(key, z) if isinstance(key, datetime) else str(key)


def _extra(by: str, g: _Sum, seen: dict | None, z: Zone) -> dict[str, Any]:
    if by == "block":
        return {"last": _fmt(g.last, z), "end": _fmt(g.first.replace(minute=0, second=0, microsecond=0) + BLOCK, z)
                if g.first else None}
    if by == "session":
        return {"project": (seen or {}).get("project") or "", "first": _fmt(g.first, z), "last": _fmt(g.last, z)}
    return {}


def _short(row: dict, col: str) -> Any:
    """A block's last request as its time of day when on the block's first day (the table stays narrow)."""
    v = row.get(col)
    if col == "last" and isinstance(v, str) and v[:10] == str(row.get("block", ""))[:10]:
        return v[11:]
    return v


def table_rows(v: View, columns: Iterable[str]) -> list[list]:
    """The rows of a view as lists in `columns` order for a text table: each group, its models
    indented under it when broken down, then the Total."""
    cols = list(columns)
    out = []
    for row in v.rows:
        out.append([_short(row, c) for c in cols])
        models = row.get("models", ())
        for k, m in enumerate(models, 1):
            mark = "└" if k == len(models) else "├"
            out.append([f" {mark} {m['model']}" if c == cols[0] else m.get(c) for c in cols])
    out.append(["Total" if c == cols[0] else v.totals.get(c) for c in cols])
    return out
