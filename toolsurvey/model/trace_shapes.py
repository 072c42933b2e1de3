"""What each traced session did, without its sizes: its threads (the main agent, subagents, compaction
requests), their billed requests in order, the turns the user's prompts start, the time before each
request and each request's model. `fit` measures sizes on it; `compare` prices it."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import InputError
from ..inputs.traces.events import COMPACTION as COMPACTED
from ..inputs.traces.events import ENVIRONMENT
from ..inputs.traces.tables import Traces
from .session_shape import TTLS, Thread, drops_reasoning_of, increment_of, lifetimes_of

MAIN, SUBAGENT, COMPACTION = "main", "subagent", "compaction"
COMPACTION_AGENT = "acompact"  # Claude Code names the thread that writes a compaction summary agent-acompact-*


def requests_table(tr: Traces) -> pd.DataFrame:
    """One row per billed request (requests with no billed tokens, such as Claude Code's synthetic error
    messages, left out) in thread order, with its thread's role, turn, step, gap and total input."""
    if tr.requests.empty:
        raise InputError("the traces have no requests with usage, so there is nothing to fit")
    r = tr.requests.copy()
    r["total"] = (r["input_tokens"] + r["cache_write"] + r["cache_read"]).astype(float)
    r = r[(r["total"] + r["output_tokens"]) > 0]
    r = r.sort_values(["session", "agent", "timestamp", "request_id"], kind="stable").reset_index(drop=True)
    agent = r["agent"].astype(str)
    r["role"] = np.where(agent.str.startswith(COMPACTION_AGENT), COMPACTION,
                         np.where(r["subagent"] | (agent != ""), SUBAGENT, MAIN))
    r["turn"] = _turns(r, tr.events)
    keys = [r["session"], r["agent"]]
    r["step"] = r.groupby([*keys, r["turn"]]).cumcount() + 1
    r["final"] = r.groupby([*keys, r["turn"]])["step"].transform("max") == r["step"]
    r["index"] = r.groupby(keys).cumcount()  # the request's place in its thread, from 0
    r["first"] = r["index"] == 0
    r["gap"] = r.groupby(keys)["timestamp"].diff().dt.total_seconds()
    for c in ("total", "output_tokens", "cache_read"):
        r[f"prev_{c}"] = r.groupby(keys)[c].shift(1)
    r["prev_model"] = r.groupby(keys)["model"].shift(1)
    r["calls"] = _calls(r, tr.calls)
    r["prev_calls"] = r.groupby(keys)["calls"].shift(1)
    r["compacted"] = _compacted(r, tr.events)
    # the environment the prompt describes changed since the previous request: its cache is not found
    r["env_changed"] = ~r["first"].to_numpy() & (_since_previous(r, tr.events, ENVIRONMENT) > 0)
    # the context the previous request's turn started from (its first request, or the first after a
    # compaction): what a new prompt finds cached where the model strips earlier turns' reasoning
    start = r["total"].where((r["step"] == 1) | r["compacted"] | r["first"]).groupby([*keys]).ffill()
    r["prev_base"] = start.groupby([*keys]).shift(1)
    models = r["model"].astype(str)
    r["drops_reasoning"] = models.map(drops_reasoning_of).astype(bool)
    for ttl in TTLS:  # how long the request's cache lives unused, as its model's provider documents it
        r[f"lifetime_{ttl}"] = models.map(lambda m, t=ttl: lifetimes_of(m)[t]).astype(float)
    r["increment"] = models.map(increment_of).astype(float)  # the step a hit reads in, as documented
    return r


def _compacted(r: pd.DataFrame, events: pd.DataFrame) -> np.ndarray:
    """Whether the thread's history was compacted just before each request: a recorded compaction
    since the previous request, or (a thread with none recorded) the input falling below half of it."""
    out = (~r["first"] & (r["total"] < 0.5 * r["prev_total"])).to_numpy().copy()
    seen = _since_previous(r, events, COMPACTED)
    recorded = _threads_with(r, events, COMPACTED)
    return np.where(recorded, ~r["first"].to_numpy() & (seen > 0), out)


def _threads_with(r: pd.DataFrame, events: pd.DataFrame, kind: str) -> np.ndarray:
    """Whether each request's thread recorded an event of `kind`."""
    ev = events[events["kind"] == kind] if len(events) else events
    if not len(ev):
        return np.zeros(len(r), dtype=bool)
    keys = set(zip(ev["session"], ev["agent"], strict=True))
    return np.fromiter(((s, a) in keys for s, a in zip(r["session"], r["agent"], strict=True)), dtype=bool, count=len(r))


def _since_previous(r: pd.DataFrame, events: pd.DataFrame, kind: str) -> np.ndarray:
    """How many events of `kind` each request's thread recorded after its previous request, up to it."""
    out = np.zeros(len(r), dtype=int)
    ev = events[events["kind"] == kind] if len(events) else events
    if not len(ev):
        return out
    prev_ts = _ns(r.groupby([r["session"], r["agent"]])["timestamp"].shift(1))
    at = {k: np.sort(_ns(g["timestamp"].dropna())) for k, g in ev.groupby(["session", "agent"])}
    for k, idx in r.groupby(["session", "agent"]).indices.items():
        times = at.get(k)
        if times is None:
            continue
        ts, before = _ns(r["timestamp"])[idx], prev_ts[idx]
        out[idx] = np.searchsorted(times, ts, side="right") - np.searchsorted(times, before, side="right")
    return out


def _calls(r: pd.DataFrame, calls: pd.DataFrame) -> np.ndarray:
    """The tool calls each request made (parallel calls: several), at least 1 on a request that did not
    end its turn (it went on, so it called a tool, recorded or not). A call belongs to a request of its
    thread by time: the latest at or before it, or, in a thread whose first call comes before its first
    request (an agent that records usage after the response, as Codex does), the earliest at or after it."""
    out = np.zeros(len(r), dtype=float)
    if len(calls):
        by = {k: np.sort(_ns(g["timestamp"].dropna())) for k, g in calls.groupby(["session", calls["agent"].astype(str)])}
        for (s, a), idx in r.groupby(["session", r["agent"].astype(str)]).indices.items():
            at = by.get((s, a))
            if at is None or not len(at):
                continue
            ts = _ns(r["timestamp"])[idx]
            pos = np.searchsorted(ts, at, side="left") if at[0] < ts[0] else np.searchsorted(ts, at, side="right") - 1
            pos = pos[(pos >= 0) & (pos < len(idx))]
            out[idx] = np.bincount(pos, minlength=len(idx))
    return np.where(r["final"].to_numpy(), out, np.maximum(out, 1.0))


def _ns(t: pd.Series) -> np.ndarray:
    """UTC timestamps as integer nanoseconds (a missing time sorts first)."""
    return t.astype("int64").to_numpy() if len(t) else np.zeros(0, dtype="int64")


def _turns(r: pd.DataFrame, events: pd.DataFrame) -> np.ndarray:
    """Each request's turn: the prompts of its thread at or before it (at least 1; a thread with no
    recorded prompt is one turn)."""
    out = np.ones(len(r), dtype=int)
    prompts = events[events["kind"] == "prompt"] if len(events) else events
    if not len(prompts):
        return out
    at = {k: np.sort(_ns(g["timestamp"].dropna())) for k, g in prompts.groupby(["session", "agent"])}
    for k, idx in r.groupby(["session", "agent"]).indices.items():
        times = at.get(k)
        if times is not None and len(times):
            ts = _ns(r["timestamp"])[idx]
            out[idx] = np.maximum(np.searchsorted(times, ts, side="right"), 1)
    # prompts with no request between them (a command and its output, then the next prompt) open one turn
    keys = r["session"] + "\x00" + r["agent"].astype(str)
    return pd.Series(out).groupby(keys.to_numpy()).transform(lambda t: t.rank(method="dense")).astype(int).to_numpy()


def expired(g: pd.DataFrame, ttl: str) -> np.ndarray:
    """1 where the thread's cache was not found before the request under lifetime `ttl`, else 0: its first
    request has no cache of its own; past the lifetime it expired; after a change to the environment the
    prompt describes (`env_changed`) the agent's prompt no longer starts as the cached one did."""
    return (g["first"] | (g["gap"] > g[f"lifetime_{ttl}"]) | g["env_changed"]).to_numpy(dtype=float)


def trace_threads(rows: pd.DataFrame) -> list[Thread]:
    """The threads of one session's rows of `requests_table` as shapes (compaction requests left out:
    the model predicts them), each named by its role and carrying its requests' models."""
    out = []
    for (_agent, role), g in rows[rows["role"] != COMPACTION].groupby(["agent", "role"], sort=False):
        out.append(Thread(role, g["turn"].to_numpy(), g["step"].to_numpy(), g["final"].to_numpy(dtype=float),
                          np.ones(len(g)), {ttl: expired(g, ttl) for ttl in TTLS},
                          tuple(g["model"].astype(str)), 1.0, g["calls"].to_numpy(dtype=float)))
    return out
