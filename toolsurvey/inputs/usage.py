"""Tool-call logs: which tools are called, how often, how repetitively, and how big their results are.

A log is CSV or JSON Lines, one call per record: `tool` (or `name`), and optionally `timestamp`
(ISO 8601 or Unix seconds), `server`, `session` (task or conversation id), `arguments` (an object
or its JSON text), the response as `response_tokens`, `response_bytes` or the `response` itself
(text or JSON, counted with tiktoken), and `outcome` (`ok`/`error`, or `is_error`).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..core.deprecation import deprecated
from ..core.files import NotJSONNumber, position, read_text, strict_loads
from ..core.jsontree import canonical, compact
from ..core.registry import Registry
from ..core.tokens import DEFAULT_ENCODING, count
from ..errors import InputError

COLUMNS = ["line", "timestamp", "session", "server", "tool", "arguments", "response_tokens",
           "tokens_estimated", "outcome", "response"]
_ALIASES = {
    "tool": ("tool", "name", "tool_name"),
    "timestamp": ("timestamp", "ts", "time"),
    "server": ("server", "server_name"),
    "session": ("session", "session_id", "task", "task_id", "conversation_id"),
    "arguments": ("arguments", "args", "input", "params"),
    "outcome": ("outcome", "status"),
}
_ERRORS = {"error", "failed", "failure", "err", "false", "exception", "timeout"}


@dataclass
class Usage:
    """Calls from a log, one row each (see COLUMNS), and the warnings met while reading it."""

    calls: pd.DataFrame
    warnings: list[str] = field(default_factory=list)
    source: str = ""

    @property
    def problems(self) -> list[str]:
        """Deprecated name of `warnings` (kept for one release)."""
        deprecated("Usage.problems", "Usage.warnings")
        return self.warnings

    def __len__(self) -> int:
        return len(self.calls)

    def __repr__(self) -> str:
        return f"<Usage {len(self)} calls from {self.source or 'records'}, {len(self.warnings)} warnings>"


def _first(rec: dict, key: str) -> Any:
    for k in _ALIASES[key]:
        if rec.get(k) not in (None, ""):
            return rec[k]
    return None


def _timestamp(v: Any) -> pd.Timestamp | None:
    """A UTC timestamp from ISO text or Unix seconds; None when missing. Raises ValueError if unreadable."""
    if v is None or v == "":
        return None
    if isinstance(v, (int, float)) or (isinstance(v, str) and v.replace(".", "", 1).isdigit()):
        return pd.Timestamp(float(v), unit="s", tz="UTC")
    ts = pd.Timestamp(v)
    return ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")


def _response_tokens(rec: dict, encoding: str, bytes_per_token: float) -> tuple[float, bool]:
    if rec.get("response_tokens") not in (None, ""):
        return _finite(rec["response_tokens"]), False
    if rec.get("response") is not None:
        r = rec["response"]
        text = r if isinstance(r, str) else compact(r)
        return float(count(text, encoding)), False
    size = rec.get("response_bytes", rec.get("response_size"))
    if size not in (None, ""):
        return float(math.ceil(_finite(size) / bytes_per_token)), True
    return math.nan, False


def _finite(v: Any) -> float:
    """A finite number from a log field; ValueError for Infinity, NaN or 1e400 (no size is infinite)."""
    f = float(v)
    if not math.isfinite(f):
        raise ValueError(f"{v!r} is not a finite number")
    return f


def _outcome(rec: dict) -> str:
    if isinstance(rec.get("is_error"), bool) or str(rec.get("is_error", "")).lower() in ("true", "false"):
        return "error" if str(rec["is_error"]).lower() == "true" else "ok"
    v = _first(rec, "outcome")
    if v is None:
        return "ok"
    return "error" if str(v).strip().lower() in _ERRORS else "ok"


def _records(source: Any) -> tuple[list[tuple[int, Any]], list[str], str]:
    """(line number, record) pairs and the unreadable lines, from a path or a list of dicts."""
    if isinstance(source, (list, tuple)):
        return list(enumerate(source, 1)), [], "records"
    p = Path(source)
    text = read_text(p, "usage log", "a CSV or JSONL usage log")
    problems: list[str] = []
    if p.suffix.lower() == ".csv":
        rows = list(csv.DictReader(io.StringIO(text, newline=None)))  # universal newlines, as open() gives
        return [(i, r) for i, r in enumerate(rows, 2)], problems, str(p)  # line 1 is the header
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append((i, strict_loads(line)))
        except json.JSONDecodeError as e:
            problems.append(f"line {i}: not valid JSON ({e.msg} at column {e.colno}); skipped")
        except NotJSONNumber as e:
            problems.append(f"line {i}: {e.literal} at {position(line, e.literal).replace('line 1 ', '')} "
                            "is not a JSON number (JSON has no NaN or Infinity); skipped")
        except ValueError as e:
            problems.append(f"line {i}: not valid JSON ({e}); skipped")
        except RecursionError:
            problems.append(f"line {i}: JSON nested too deeply; skipped")
    return out, problems, str(p)


def read_log(source: str | os.PathLike | list[dict], *, encoding: str = DEFAULT_ENCODING,
             bytes_per_token: float = 4.0) -> Usage:
    """Read a CSV or JSONL tool-call log (or a list of dicts); broken lines are reported, not fatal.

    Raises InputError for a missing or unreadable file, or one with no readable call at all.
    """
    records, problems, where = _records(source)
    rows, no_ts = [], 0
    for line, rec in records:
        if not isinstance(rec, dict):
            problems.append(f"line {line}: expected an object with a 'tool' field, found {type(rec).__name__}; skipped")
            continue
        tool = _first(rec, "tool")
        if not isinstance(tool, str) or not tool.strip():
            problems.append(f"line {line}: no tool name (expected a 'tool' or 'name' field); skipped")
            continue
        try:
            ts = _timestamp(_first(rec, "timestamp"))
        except (ValueError, TypeError, OverflowError):
            problems.append(f"line {line}: unreadable timestamp {_first(rec, 'timestamp')!r}; kept without one")
            ts = None
        no_ts += ts is None
        try:
            tokens, estimated = _response_tokens(rec, encoding, bytes_per_token)
        except (TypeError, ValueError) as e:
            problems.append(f"line {line}: unreadable response size ({e}); kept without one")
            tokens, estimated = math.nan, False
        session = _first(rec, "session")
        server = _first(rec, "server")
        rows.append((line, ts, None if session is None else str(session), None if server is None else str(server),
                     tool.strip(), canonical(_first(rec, "arguments")), tokens, estimated, _outcome(rec),
                     rec.get("response")))  # kept so a plan can trim real payloads
    if not rows:
        found = f"{len(problems)} unreadable line(s), first {problems[0]}" if problems else "no records"
        raise InputError(f"{where}: no tool calls found ({found}); expected CSV or JSON Lines with a 'tool' field")
    if no_ts:
        problems.append(f"{no_ts} of {len(rows)} calls have no timestamp: they count in totals but not "
                        "in a time window")
    calls = pd.DataFrame(rows, columns=COLUMNS)
    calls["timestamp"] = pd.to_datetime(calls["timestamp"], utc=True)
    return Usage(calls, problems, where)


def repeated(calls: pd.DataFrame) -> pd.Series:
    """True for a call identical (server, tool, arguments) to an earlier call of the same session; in a
    log without sessions, to the call just before it (the “Tool registry design” chapter's repeated-identical-call metric)."""
    key = calls["server"].fillna("") + "\x00" + calls["tool"] + "\x00" + calls["arguments"]
    if calls["session"].notna().any():
        return key.groupby(calls["session"].fillna("(no session)")).transform(lambda k: k.duplicated())
    return key.eq(key.shift())


def resolve(usage: Usage, reg: Registry) -> tuple[pd.DataFrame, list[str]]:
    """The calls with `server` filled in from the registry where the log left it out, and problems:
    tools the registry does not have, and names that several servers define."""
    by_name: dict[str, list[str]] = {}
    keys = set()
    for t in reg:
        by_name.setdefault(t.name, []).append(t.server)
        keys.add((t.server, t.name))
    calls = usage.calls.copy()
    servers, unknown, ambiguous = [], {}, {}
    for server, tool in zip(calls["server"], calls["tool"], strict=True):
        server = server if isinstance(server, str) else None
        if server is not None and (server, tool) in keys:
            servers.append(server)
        elif server is None and len(by_name.get(tool, [])) == 1:
            servers.append(by_name[tool][0])
        elif server is None and tool in by_name:
            ambiguous[tool] = ambiguous.get(tool, 0) + 1
            servers.append(None)
        else:
            k = f"{server}/{tool}" if server else tool
            unknown[k] = unknown.get(k, 0) + 1
            servers.append(server)
    calls["server"] = servers
    calls["known"] = [(s, t) in keys for s, t in zip(servers, calls["tool"], strict=True)]
    problems = [f"{n} call(s) to {k}, which the registry does not have" for k, n in sorted(unknown.items())]
    problems += [f"{n} call(s) to {k} give no server, and {', '.join(by_name[k])} all define it"
                 for k, n in sorted(ambiguous.items())]
    return calls, problems


def summarize(usage: Usage, reg: Registry | None = None, *, window_days: float | None = 90,
              end: str | pd.Timestamp | None = None, rare: int = 3) -> pd.DataFrame:
    """One row per tool: calls in the window, share, repeated identical calls, response tokens, and
    status (`never called`, `rarely called`, `called`, or `unknown` for tools the registry lacks).

    The window is the `window_days` days up to `end` (default: the last timestamp in the log);
    `window_days=None` counts every call. Warnings go to `.attrs["warnings"]` (and, for one release,
    to `.attrs["problems"]`, the same list: its name before 0.7).
    Raises InputError for a negative window.
    """
    problems = list(usage.warnings)
    if reg is not None:
        calls, more = resolve(usage, reg)
        problems += more
    else:
        calls = usage.calls.assign(known=True)
    calls = calls.assign(repeated=repeated(calls))
    calls, note = _window(calls, window_days, end)
    if note:
        problems.append(note)
    calls = calls.assign(server=calls["server"].fillna("(unknown)"))
    g = calls.groupby(["server", "tool"], sort=False)
    out = pd.DataFrame({
        "calls": g.size(),
        "repeated": g["repeated"].sum(),
        "errors": g["outcome"].apply(lambda o: int((o == "error").sum())),
        "response_tokens_mean": g["response_tokens"].mean(),
        "response_tokens_total": g["response_tokens"].sum(min_count=1),
        "first_call": g["timestamp"].min(),
        "last_call": g["timestamp"].max(),
    })
    if reg is not None:
        keys = [(t.server, t.name) for t in reg]
        index = pd.MultiIndex.from_tuples(keys, names=["server", "tool"])
        out = out.reindex(index.append(out.index.difference(index, sort=False)))
        known = set(keys)
        out["known"] = [k in known for k in out.index]
    else:
        out["known"] = True
    out = out.reset_index()
    for c in ("calls", "repeated", "errors"):
        out[c] = out[c].fillna(0).astype("int64")
    total = int(out["calls"].sum())
    out["share"] = out["calls"] / total if total else 0.0
    out["repeated_share"] = (out["repeated"] / out["calls"]).where(out["calls"] > 0, 0.0)
    out["status"] = [("unknown" if not k else "never called" if n == 0 else "rarely called" if n <= rare
                      else "called") for k, n in zip(out["known"], out["calls"], strict=True)]
    cols = ["server", "tool", "status", "calls", "share", "repeated", "repeated_share", "errors",
            "response_tokens_mean", "response_tokens_total", "first_call", "last_call"]
    out = out[cols].sort_values(["calls", "server", "tool"], ascending=[False, True, True], kind="stable")
    out.attrs.update(warnings=problems, problems=problems, window_days=window_days, rare=rare, calls=total,
                     repeated_share=float(calls["repeated"].mean()) if len(calls) else 0.0,
                     start=calls["timestamp"].min(), end=calls["timestamp"].max())
    return out.reset_index(drop=True)


def _window(calls: pd.DataFrame, days: float | None, end) -> tuple[pd.DataFrame, str]:
    if days is None:
        return calls, ""
    if days < 0:
        raise InputError(f"window must be a positive number of days or 0, found {days}")
    stamped = calls["timestamp"].notna()
    if not stamped.any():
        return calls, f"no call has a timestamp, so the {days:g}-day window is ignored and every call counts"
    try:
        stop = _timestamp(end) if end is not None else calls["timestamp"].max()
    except (ValueError, TypeError):
        raise InputError(f"window end {end!r} is not a date or time") from None
    start = stop - pd.Timedelta(days=days)
    inside = stamped & (calls["timestamp"] > start) & (calls["timestamp"] <= stop)
    note = (f"{int((~stamped).sum())} call(s) without a timestamp left out of the {days:g}-day window"
            if (~stamped).any() else "")
    return calls[inside], note


def unused(summary: pd.DataFrame) -> list[tuple[str, str]]:
    """(server, tool) of the registry's tools never called in a `summarize` table."""
    s = summary[summary["status"] == "never called"]
    return list(zip(s["server"], s["tool"], strict=True))
