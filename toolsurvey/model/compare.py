"""The session model checked against the bill: each traced session priced from its own structure
(threads, turns, requests, timestamps, models) with sizes fitted on every session (in-sample) or on
the other sessions only (leave one session out), next to what it was billed, per component."""

from __future__ import annotations

import dataclasses
import zlib

import numpy as np
import pandas as pd

from ..errors import InputError
from ..inputs.traces.billing import price_of, rates
from ..inputs.traces.tables import Traces
from .context import Context
from .cost import row_parameters
from .fit import fit_scenario, fitted_rules
from .scenario import Scenario, read_files
from .session import PARTS, price_session, thread_scenario
from .subagents import Subagent
from .trace_shapes import MAIN, requests_table, trace_threads

TOLERANCE = 0.10  # a simulation further than this from the bill says so
# The scenario inputs each billed component rests on, in the order the verdict tries them.
INPUTS = {"uncached": ("prompt_cache_miss", "cache_miss", "prefix_hit", "uncached_share", "response_tokens",
                        "system_prompt_tokens"),
          "cache_write": ("cache_1h_share", "prompt_cache_miss", "cache_miss", "prefix_hit", "response_tokens"),
          "cache_read": ("response_tokens", "call_tokens", "compaction_at", "compaction_tokens"),
          "output": ("call_tokens", "answer_tokens")}
LOO_SESSIONS, FOLDS = 200, 20  # past 200 sessions, cv fits 20 models (each on the sessions of 19 folds)
# The per-session figure is judged on sessions of at least this many requests; shorter ones (scripted
# captures, one-prompt runs: their cost is their first request's prefix) are counted on a line of their own.
SHORT_SESSION = 10
SHARE_INPUTS = {"cache_1h_share", "prompt_cache_miss", "cache_miss", "prefix_hit", "uncached_share"}


def compare(tr: Traces, scenario: Scenario | None = None, cv: bool = False, **changes) -> pd.DataFrame:
    """Per session and in total: billed cost next to the session model's, per component.

    Each session is priced from its own structure: its threads (compaction requests left out, the
    model predicts them), their requests, turns, timestamps and models. Sizes come from `scenario`
    (default `fit_scenario(tr)`), or with `cv=True` from a scenario fitted on the other sessions (leave
    one session out; past LOO_SESSIONS sessions, out of one of FOLDS folds by a hash of its id);
    `changes` replace fields of every scenario used (e.g. price_file). `.attrs`:
    "total_error" (simulated / billed - 1), "component_errors" (the same per component), "components"
    (them in words, with each one's share of the bill), "median_abs_error" (over the sessions of at least
    SHORT_SESSION requests), "short_sessions" (the shorter ones: count and median |error|), "sessions" (both
    in words), "fitted_rules" (per model, the part of its provider's caching rule measured on the traces
    because it is not documented), "verdict"
    (past 10%, the component furthest from its bill and the input that moves it most), "scenario".
    Raises InputError for traces without requests, or `cv` with fewer than two sessions or with a
    scenario given.
    """
    if cv and scenario is not None:
        raise InputError("cv=True fits a scenario on the other sessions for each one; give a scenario or cv, not both")
    r = requests_table(tr)
    sessions = sorted(r["session"].unique())
    if cv and len(sessions) < 2:
        raise InputError(f"leaving one session out needs at least two sessions; the traces hold {len(sessions)}")
    changes = read_files(changes)  # a price file is read once, not once per fitted scenario
    sc = (scenario if scenario is not None else fit_scenario(tr)).changed(**changes)
    billed = _billed_parts(r, sc)
    priced = billed.notna().all(axis=1)
    fold = folds(sessions) if cv else {}
    fitted = {f: fit_scenario(_without(tr, {s for s in sessions if fold[s] == f}), **changes)
              for f in sorted(set(fold.values()))}
    rows = []
    for s in sessions:
        own = r["session"] == s
        sim = simulated(r[own & priced], fitted[fold[s]] if cv else sc)
        rows.append({"session": s, "requests": int(own.sum()), "simulated_requests": sim.pop("requests"),
                     "billed": float(billed[own & priced].sum().sum()) if (own & priced).any() else np.nan,
                     "simulated": sim["cost"],
                     **{f"billed_{k}": float(billed.loc[own & priced, k].sum()) for k in PARTS},
                     **{f"simulated_{k}": sim[k] for k in PARTS}})
    per = pd.DataFrame(rows)
    total = per.drop(columns="session").sum(min_count=1)
    per = pd.concat([per, pd.DataFrame([{"session": "(total)", **total}])], ignore_index=True)
    per["requests"] = per["requests"].astype("int64")
    per["error"] = np.where(per["billed"] > 0, per["simulated"] / per["billed"].where(per["billed"] > 0) - 1, np.nan)
    per["within_10pct"] = per["error"].abs() <= TOLERANCE
    last = per.iloc[-1]
    per.attrs.update(
        cv=cv, folds=len(set(fold.values())), scenario=sc, fitted_rules=fitted_rules(r),
        total_error=float(last["error"]), left_out=int((~priced).sum()),
        component_errors={k: float(last[f"simulated_{k}"] / last[f"billed_{k}"] - 1) if last[f"billed_{k}"] else np.nan
                          for k in PARTS},
        **session_errors(per.iloc[:-1]))
    per.attrs["verdict"] = _verdict(last, cv, int((~priced).sum()), lambda part, gap: _driver(r[priced], sc, part, gap))
    per.attrs["components"] = ", ".join(
        f"{k.replace('_', ' ')} {e:+.1%} ({last[f'billed_{k}'] / last['billed']:.1%} of the bill)"
        for k, e in per.attrs["component_errors"].items() if e == e and last["billed"])
    return per


def session_errors(per: pd.DataFrame) -> dict:
    """The median |error| over the sessions of at least SHORT_SESSION requests, the count and median of
    the shorter ones, and both in words."""
    long = per["requests"] >= SHORT_SESSION
    med = lambda m: float(per.loc[m, "error"].abs().median()) if m.any() else np.nan
    out = {"median_abs_error": med(long), "short_sessions": {"count": int((~long).sum()), "median_abs_error": med(~long)}}
    words = (f"median |session error| {out['median_abs_error']:.1%} over {int(long.sum())} session(s) of "
             f"{SHORT_SESSION}+ requests" if long.any() else f"no session of {SHORT_SESSION}+ requests")
    if (~long).any():
        words += (f"; {int((~long).sum())} shorter session(s) (one-prompt runs, scripted captures: their cost is "
                  f"their first request's prefix), median {med(~long):.1%}")
    return {**out, "sessions": words}


def simulated(rows: pd.DataFrame, sc: Scenario) -> dict[str, float]:
    """The session model's requests, cost and cost per component for one session's rows of `requests_table`."""
    if sc.registry_size is None or sc.tool_tokens is None:
        sc = dataclasses.replace(sc, registry_size=0, tool_tokens=0.0)  # traces carry no registry: average-size mode
    ctx = Context(None)
    items = []
    for th in trace_threads(rows):
        model = max(set(th.models), key=th.models.count)  # the model most of its requests ran on
        th_sc = sc.for_model(model) if th.name == MAIN else thread_scenario(sc, _subagent_for(sc, th.models[0]))
        items.append((th, th_sc, row_parameters(ctx, [th_sc], np.array([0]), np.array([float(th.step.max())]))))
    table = price_session(items, sc)
    w = table["weight"] * table["count"] if len(table) else pd.Series(dtype=float)
    out = {k: float((table[f"cost_{k}"] * w).sum()) if len(table) else 0.0 for k in PARTS}
    out["cost"] = sum(out.values())
    out["requests"] = float(w.sum())
    return out


def _subagent_for(sc: Scenario, model: str) -> Subagent:
    """The fitted subagent of a thread's model, else the first one, else one with the main agent's sizes."""
    for sub in sc.subagents:
        if sub.model == model:
            return sub
    if sc.subagents:
        return dataclasses.replace(sc.subagents[0], model=model)
    return Subagent(name="subagent", model=model, system_prompt_tokens=sc.system_prompt_tokens + sc.user_message_tokens
                    + (sc.tool_tokens or 0) * (sc.registry_size or 0), response_tokens=sc.response_tokens,
                    calls_per_step=sc.calls_per_step,
                    call_tokens=sc.call_tokens, answer_tokens=sc.answer_tokens)


def _billed_parts(r: pd.DataFrame, sc: Scenario) -> pd.DataFrame:
    """Each request's billed dollars per component (NaN for a model with no price), at the bill's rates
    (`billing.rates`) and the scenario's prices."""
    prices = sc.price_table()
    out = pd.DataFrame(np.nan, columns=list(PARTS), index=r.index)
    for model, g in r.groupby("model", sort=False):
        try:
            uncached, five, hour, read, output = rates(price_of(str(model), prices))
        except InputError:
            continue
        out.loc[g.index, "uncached"] = g["input_tokens"] * uncached
        out.loc[g.index, "cache_write"] = g["cache_write_5m"] * five + g["cache_write_1h"] * hour
        out.loc[g.index, "cache_read"] = g["cache_read"] * read
        out.loc[g.index, "output"] = g["output_tokens"] * output
    return out


def folds(sessions: list[str]) -> dict[str, int]:
    """Which fold each session is left out in: its own (leave one session out) up to LOO_SESSIONS
    sessions, else one of FOLDS by a hash of its id (the same every run), so that the fits stay few."""
    if len(sessions) <= LOO_SESSIONS:
        return {s: i for i, s in enumerate(sessions)}
    return {s: zlib.crc32(s.encode("utf-8")) % FOLDS for s in sessions}


def _without(tr: Traces, sessions: set[str]) -> Traces:
    """The traces with some sessions left out."""
    keep = lambda df: df[~df["session"].isin(sessions)] if len(df) else df
    return dataclasses.replace(tr, requests=keep(tr.requests), calls=keep(tr.calls), sessions=keep(tr.sessions),
                               events=keep(tr.events))


def _verdict(total: pd.Series, cv: bool, left_out: int, driver) -> str:
    err = total["error"]
    how = "leaving each session out of the fit" if cv else "fitted to these sessions"
    unpriced = f" ({left_out:,} request(s) of unpriced models left out)" if left_out else ""
    if pd.isna(err):
        return "no billed cost to compare with (unpriced models?)"
    if abs(err) <= TOLERANCE:
        return (f"the simulation, {how}, is within {abs(err):.1%} of the billed cost{unpriced}: its what-ifs can be "
                "trusted for this agent")
    gaps = {k: total[f"simulated_{k}"] - total[f"billed_{k}"] for k in PARTS}
    part = max(gaps, key=lambda k: abs(gaps[k]))
    side = "over" if err > 0 else "under"
    return (f"the simulation, {how}, is {abs(err):.1%} {side} the billed cost (more than {TOLERANCE:.0%}){unpriced}; "
            f"the largest gap is in {part.replace('_', ' ')} (${gaps[part]:+,.4f}): {driver(part, -gaps[part])}")


def _driver(rows: pd.DataFrame, sc: Scenario, part: str, gap: float) -> str:
    """The (at most two) inputs of `part` that close `gap` with the least change (a share by the least,
    a size by the least fraction of itself), at the scenario fitted to every session, and the values
    they would take; each input's effect is measured by pricing the sessions again with a tenth more of
    it (0.1 more of a share); an input the sessions' models have no price for is passed over. With none
    that can, the input that moves `part` most."""
    total = lambda s: sum(simulated(g, s)[part] for _, g in rows.groupby("session", sort=False))
    base, tried = total(sc), []
    for name in INPUTS[part]:
        v = getattr(sc, name)
        v = v.expected() if hasattr(v, "expected") else v
        share = name in SHARE_INPUTS
        if v is None or (not v and not share):
            continue
        new = min(v + 0.1, 1.0) if share else 1.1 * v
        try:
            moved = total(sc.changed(**{name: new})) - base if new != v else 0.0
        except InputError:  # not an input for these models (a 1-hour cache where none is documented)
            continue
        if moved:
            need = v + gap * (new - v) / moved
            closes = need >= -1e-9 and (not share or need <= 1 + 1e-9)  # within rounding of the range
            tried.append((not closes, abs(need - v) / (1 if share else v) if closes else -abs(moved), name, v, need))
    if not tried:
        return "no input of the scenario moves it"
    tried.sort()
    show = lambda name, x: f"{x:.2f}" if name in SHARE_INPUTS else f"{x:,.0f}"
    if tried[0][0]:
        _, _, name, v, _ = tried[0]
        return f"{name} moves it most (fitted {show(name, v)}), but no value of it alone closes the gap"
    fixes = [f"{name} (fitted {show(name, v)}; about {show(name, need)})" for cannot, _, name, v, need in tried[:2]
             if not cannot]
    return "the inputs that close it with the least change: " + ", then ".join(fixes)
