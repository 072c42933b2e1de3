"""Traces as three tidy tables (requests, tool calls, sessions), built from a Collector and totalled."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from ...core.choices import TRACE_BY
from ...core.jsonlines import Skips
from ...core.tokens import DEFAULT_ENCODING
from ...errors import InputError
from ..payloads import Payload
from ..usage import COLUMNS, Usage
from .account import Account, account, headline, type_warnings
from .billing import bill_rows
from .collector import CALL_FIELDS, REQUEST_FIELDS, USAGE_FIELDS, Collector
from .events import EVENT_FIELDS
from .views import instant, view, window, zone

REQUEST_COLUMNS = ["session", "subagent", "agent", "timestamp", "model", "request_id", *USAGE_FIELDS,
                   "cache_write", "tool_definition_tokens", "cost", "lines", "file", "line", "source", "project"]
CALL_COLUMNS = ["session", "subagent", "agent", "timestamp", "call_id", "server", "tool", "arguments",
                "arguments_bytes", "result_tokens", "error", "repeated", "result"]
BY = TRACE_BY


@dataclass
class Traces:
    """Requests, tool calls and sessions read from traces, with the warnings met on the way."""

    requests: pd.DataFrame
    calls: pd.DataFrame
    sessions: pd.DataFrame
    files: dict[str, str] = field(default_factory=dict)   # path -> detected format
    skips: Skips = field(default_factory=Skips)
    warnings: list[str] = field(default_factory=list)     # problems that are not skipped lines
    dedup: str = ""                                       # how streamed and repeated requests were counted
    source: str = ""
    account: Account = field(default_factory=Account)     # what the read did: rules, files left out
    events: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=list(EVENT_FIELDS)))  # prompts, compactions

    def __repr__(self) -> str:
        return (f"<Traces {len(self.sessions)} sessions, {len(self.requests)} requests, "
                f"{len(self.calls)} tool calls from {len(self.files)} file(s); {len(self.skips)} lines skipped>")

    @property
    def problems(self) -> list[str]:
        """Every warning, skipped lines included, one line each."""
        return self.warnings + [str(s) for s in self.skips.items]

    def summary(self, verbose: bool = False) -> str:
        """A few lines: what was read, each counting rule and what it changed, what was skipped and why
        (`verbose`: with the files that repeat other files' requests listed)."""
        r = self.requests
        by = self.calls.groupby("tool").size().sort_values(ascending=False, kind="stable")
        tokens = {f: int(r[f].sum()) for f in ("input_tokens", "cache_write", "cache_read", "output_tokens")}
        lines = headline(self.files, len(self.sessions), len(r), len(self.calls), tokens, float(r["cost"].sum()),
                         int(r["cost"].isna().sum()), list(by.items()))
        return "\n".join(lines + self.account.lines(verbose))

    def totals(self, by: str = "session", *, timezone: str | None = None, since: str | None = None,
               until: str | None = None, breakdown: bool = False, week_start: str = "sunday") -> pd.DataFrame:
        """Billed tokens and cost per session, day, week, month, 5-hour block, model or project (see
        `views.view`; days in `timezone`, the system's by default), or per tool (calls, errors, result
        tokens). Raises InputError for an unknown `by`, zone or bound."""
        return totals(self, by, timezone=timezone, since=since, until=until, breakdown=breakdown,
                      week_start=week_start)

    def to_usage(self):
        """The tool calls as a `usage.Usage`, for audit, plan, report and responses."""
        c = self.calls
        calls = pd.DataFrame({
            "line": range(1, len(c) + 1), "timestamp": c["timestamp"],
            "session": c["session"] + c["agent"].map(lambda a: f"/{a}" if a else ""),
            "server": c["server"], "tool": c["tool"], "arguments": c["arguments"],
            "response_tokens": c["result_tokens"], "tokens_estimated": False,
            "outcome": c["error"].map({True: "error", False: "ok"}), "response": c["result"]})
        return Usage(calls[COLUMNS].reset_index(drop=True), self.problems, self.source)

    def to_payloads(self) -> list:
        """Each recorded tool result as a `payloads.Payload` (for `responses`: sizes by tool and field)."""
        c = self.calls[self.calls["result"].map(lambda r: isinstance(r, str))]
        return [Payload.from_text(r.result, r.tool, server=r.server if isinstance(r.server, str) else None,
                                  source=f"{r.session}:{r.call_id}",
                                  timestamp=None if pd.isna(r.timestamp) else r.timestamp.isoformat())
                for r in c.itertuples(index=False)]


def build(c: Collector, *, prices=None, encoding: str = DEFAULT_ENCODING, source: str = "") -> Traces:
    """Tables from a Collector: progress-only requests resolved, tokens counted, costs billed, repeats
    flagged, sessions summed."""
    c.resolve()
    c.count_tokens(encoding)  # no-op for what a partition already counted
    rows = list(c.requests.values())
    c.requests.clear()  # the table will have them: free the rows before the calls are built
    c.skips.items.sort(key=lambda k: (k.file, k.line))  # engines meet them in different orders
    costs, warns = bill_rows(rows, prices)
    acc = account(c, rows, costs)
    req = _columns(rows, REQUEST_FIELDS)
    req["cost"] = pd.Series(costs, index=req.index, dtype=float)
    req["lines"] = [n if n.__class__ is int else len(n) for n in req["lines"]]
    req["timestamp"] = _time(req["timestamp"])
    req["cache_write"] = req["cache_write_5m"] + req["cache_write_1h"]
    for f in (*USAGE_FIELDS, "cache_write"):
        req[f] = req[f].astype("int64")
    req["tool_definition_tokens"] = req["tool_definition_tokens"].astype(float)
    req["subagent"] = req["subagent"].astype(bool)
    req = req[REQUEST_COLUMNS].sort_values(["session", "timestamp", "request_id"], kind="stable")
    calls = _calls(c, encoding)
    warns += type_warnings(c.unknown_types)
    tr = Traces(req.reset_index(drop=True), calls, pd.DataFrame(), dict(c.files), c.skips, warns,
                acc.rules[0].text, source, acc, _events(c))
    tr.sessions = sessions(tr)
    return tr


def _events(c: Collector) -> pd.DataFrame:
    """Prompts and compactions, one row each, in session and time order."""
    ev = pd.DataFrame(c.events, columns=list(EVENT_FIELDS))
    c.events.clear()
    ev["timestamp"] = _time(ev["timestamp"])
    ev["tokens"] = ev["tokens"].astype(float)
    return ev.sort_values(["session", "agent", "timestamp"], kind="stable").reset_index(drop=True)


def _columns(rows: list, names) -> pd.DataFrame:
    """A DataFrame built column by column (no 2-D object array of every row at once), emptying `rows`."""
    columns = list(zip(*rows, strict=True)) or [() for _ in names]
    rows.clear()  # the values are held by `columns` now: the rows go before the columns are built
    return _frame(columns, names)


def _frame(columns: list[tuple], names) -> pd.DataFrame:
    """A DataFrame of `columns` (tuples, one per name), each typed as it is built, emptying `columns`."""
    columns.reverse()
    cols = {}
    for n in names:
        col = columns.pop()
        cols[n] = pd.Series(col, dtype=object if col else None).infer_objects()
        del col
    return pd.DataFrame(cols)


def _time(col: pd.Series) -> pd.Series:
    """UTC timestamps from ISO text or Unix nanoseconds (OTLP), both in one column when formats mix."""
    ns = col.map(lambda v: isinstance(v, int) and not isinstance(v, bool))
    out = pd.Series(pd.NaT, index=col.index, dtype="datetime64[ns, UTC]")
    if ns.any():
        out[ns] = pd.to_datetime(col[ns].astype("int64"), unit="ns", utc=True)
    if (~ns).any():
        out[~ns] = pd.to_datetime(col[~ns], utc=True, errors="coerce", format="mixed")
    return out


def _calls(c: Collector, encoding: str) -> pd.DataFrame:
    none = (None, False, math.nan)
    ids = tuple(c.calls)
    # Columns straight from the dicts (no row of every call at once besides them).
    columns = list(zip(*c.calls.values(), strict=True)) or [() for _ in CALL_FIELDS]
    c.calls.clear()
    results = c.results
    columns += [ids, *(zip(*(results.get(k, none) for k in ids), strict=True) if ids else [(), (), ()])]
    results.clear()
    df = _frame(columns, (*CALL_FIELDS, "call_id", "result", "error", "result_tokens"))
    df["result_tokens"] = df["result_tokens"].astype(float)
    df["timestamp"] = _time(df["timestamp"])
    df["arguments_bytes"] = [len(a.encode("utf-8", "replace")) for a in df["arguments"]]
    df["subagent"] = df["subagent"].astype(bool)
    df["error"] = df["error"].astype(bool)
    # usage.repeated's rule (same server, tool and arguments earlier in the task), vectorised per thread
    df["repeated"] = (df["session"] + "\x00" + df["agent"] + "\x00" + df["server"].fillna("") + "\x00"
                      + df["tool"] + "\x00" + df["arguments"]).duplicated() if len(df) else pd.Series(dtype=bool)
    return df[CALL_COLUMNS].sort_values(["session", "timestamp"], kind="stable").reset_index(drop=True)


def sessions(tr: Traces) -> pd.DataFrame:
    """One row per session: requests (subagents' too), time span, billed tokens, cost, tool calls."""
    r, c = tr.requests, tr.calls
    g = r.groupby("session", sort=True)
    out = pd.DataFrame({
        "requests": g.size(), "subagent_requests": g["subagent"].sum(),
        "start": g["timestamp"].min(), "end": g["timestamp"].max(),
        "models": g["model"].agg(lambda m: ", ".join(sorted(set(m) - {""}))),
        **{f: g[f].sum() for f in (*USAGE_FIELDS, "cache_write")},
        "cost": g["cost"].sum(min_count=1),
    })
    cg = c.groupby("session")
    out["tool_calls"] = cg.size().reindex(out.index).fillna(0).astype("int64")
    out["errors"] = cg["error"].sum().reindex(out.index).fillna(0).astype("int64")
    out["repeated"] = cg["repeated"].sum().reindex(out.index).fillna(0).astype("int64")
    out["result_tokens"] = cg["result_tokens"].sum(min_count=1).reindex(out.index)
    out["subagent_requests"] = out["subagent_requests"].astype("int64")
    return out.reset_index()


def totals(tr: Traces, by: str = "session", *, timezone: str | None = None, since: str | None = None,
           until: str | None = None, breakdown: bool = False, week_start: str = "sunday") -> pd.DataFrame:
    """`Traces.totals`: the request views computed by `views.view` (the CLI's code), the tool view here."""
    if by not in BY:
        raise InputError(f"cannot total by {by!r}; expected one of {', '.join(BY)}")
    z = zone(timezone)
    win = window(since, until, z)
    if by == "tool":
        return tool_totals(tr.calls[[win.holds(instant(t)) for t in tr.calls["timestamp"]]] if win else tr.calls)
    r = tr.requests
    cols = [r[f].tolist() if f in r.columns else [None] * len(r) for f in REQUEST_FIELDS]
    v = view([list(x) for x in zip(*cols, strict=True)], r["cost"].tolist(), by, z=z, win=win,
             breakdown=breakdown, week_start=week_start)
    return pd.DataFrame(v.rows, columns=[*v.columns, *(["models"] if breakdown else [])])


def tool_totals(calls: pd.DataFrame) -> pd.DataFrame:
    """Per tool: calls, errors, repeated identical calls, result tokens (in all and per call), argument size."""
    c = calls.assign(server=calls["server"].fillna("(built-in)"))
    g = c.groupby(["server", "tool"])
    out = pd.DataFrame({"calls": g.size(), "errors": g["error"].sum().astype("int64"),
                        "repeated": g["repeated"].sum().astype("int64"),
                        "result_tokens": g["result_tokens"].sum(min_count=1),
                        "result_tokens_mean": g["result_tokens"].mean(),
                        "arguments_bytes_mean": g["arguments_bytes"].mean()})
    return out.reset_index().sort_values(["result_tokens", "calls"], ascending=False,
                                         kind="stable").reset_index(drop=True)
