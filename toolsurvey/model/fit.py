"""A Scenario fitted to what traces show, and the simulation checked against what was billed.

A task is one thread of a session: the main agent, or one subagent (each has its own history).
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from ..inputs.traces.billing import HOUR_WRITE_FACTOR, price_of
from ..inputs.traces.tables import Traces
from ..providers.prices import load_prices
from .scenario import Scenario
from .simulate import simulate

TOLERANCE = 0.10  # a simulation further than this from the bill says so
# Which scenario input a billed component depends on most, to name the input driving a gap.
DRIVERS = {"uncached": "response_tokens and system_prompt_tokens (the uncached input)",
           "cache_write": "caching and the fixed prefix (system_prompt_tokens, tool_tokens)",
           "cache_read": "caching (cache hit share) and the history (response_tokens x steps)",
           "output": "call_tokens and answer_tokens (the output)"}


def _threads(tr: Traces) -> pd.DataFrame:
    """One row per (session, agent) thread: its requests in order, numbered 1.."""
    if tr.requests.empty:
        raise InputError("the traces have no requests with usage, so there is nothing to fit")
    r = tr.requests.sort_values(["session", "agent", "timestamp", "request_id"], kind="stable").copy()
    r["step"] = r.groupby(["session", "agent"]).cumcount() + 1
    r["steps"] = r.groupby(["session", "agent"])["step"].transform("max")
    return r


def fit_scenario(tr: Traces, *, name: str = "fitted to traces", **changes) -> Scenario:
    """A Scenario from the traces: steps per task, result tokens, the fixed prefix, output sizes and caching.

    The measured steps already include wrong calls and retries, so the accuracy model is off; the
    rates seen (errors, repeated identical calls) are in `fit_details(tr)` and the description.
    `changes` replace fields of the result. Raises InputError when the traces have no requests.
    """
    d = fit_details(tr)
    sc = Scenario(
        model=d["model"], steps=d["steps"], response_tokens=d["response_tokens"],
        system_prompt_tokens=d["system_prompt_tokens"], user_message_tokens=0, tool_tokens=d["tool_tokens"],
        registry_size=1 if d["tool_tokens"] else 0, overhead_tokens=0,
        call_tokens=d["call_tokens"], answer_tokens=d["answer_tokens"], caching=d["caching"], accuracy=False,
        name=name, description=(f"fitted to {d['threads']} task(s) of traces: {d['error_share']:.1%} of tool calls "
                                f"failed, {d['repeated_share']:.1%} repeated an identical call, cache hit share "
                                f"{d['cache_hit_share']:.1%}; fixed prefix {d['prefix_source']}"))
    return dataclasses.replace(sc, **changes)


def fit_details(tr: Traces) -> dict[str, Any]:
    """The figures `fit_scenario` uses, with the per-tool result sizes and how the prefix was found."""
    r = _threads(tr)
    c = tr.calls
    models = r["model"][r["model"] != ""].value_counts()
    if models.empty:
        raise InputError("the traces name no model, so no price applies; give model= to fit_scenario")
    model = price_of(str(models.index[0]), load_prices()).model
    steps = r.groupby(["session", "agent"])["steps"].first().astype(float)
    results = c["result_tokens"].dropna()
    first = r[r["step"] == 1]
    total_in = r["input_tokens"] + r["cache_write"] + r["cache_read"]
    defs = r["tool_definition_tokens"].dropna()
    if len(defs):
        tool_tokens = float(defs.median())
        prefix_source = f"measured: tool definitions in the trace ({tool_tokens:,.0f} tokens)"
    else:
        tool_tokens = 0.0
        prefix_source = "estimated from the first requests' input (cache writes included); no tool definitions"
    prefix = float(total_in[first.index].median())
    last = r["step"] == r["steps"]
    reads = r["cache_read"].sum()
    later = r[r["step"] > 1]
    # With only the prefix cached, the history of later requests is paid as uncached input; with
    # incremental caching it is read from (and written to) the cache, and uncached input stays small.
    history = (total_in[later.index] - prefix).clip(lower=0).sum()
    incremental = bool(len(later)) and later["input_tokens"].sum() < 0.5 * history
    caching = "none" if reads == 0 else "incremental" if incremental else "prefix"
    per_tool = c.groupby(c["server"].fillna("(built-in)") + "/" + c["tool"])["result_tokens"].mean()
    return {
        "model": model, "threads": int(len(steps)),
        "steps": tuple(steps) if steps.nunique() > 1 else float(steps.iloc[0]),
        "response_tokens": tuple(results) if results.nunique() > 1 else float(results.iloc[0]) if len(results) else 0.0,
        "result_tokens_by_tool": per_tool.sort_values(ascending=False).to_dict(),
        "system_prompt_tokens": max(prefix - tool_tokens, 0.0), "tool_tokens": tool_tokens,
        "prefix_source": prefix_source,
        "call_tokens": float(r.loc[~last, "output_tokens"].mean()) if (~last).any() else 0.0,
        "answer_tokens": float(r.loc[last, "output_tokens"].mean()),
        "caching": caching,
        "cache_hit_share": float(reads / total_in.sum()) if total_in.sum() else 0.0,
        "error_share": float(c["error"].mean()) if len(c) else 0.0,
        "repeated_share": float(c["repeated"].mean()) if len(c) else 0.0,
    }


def _own_model(sc: Scenario, models: pd.Series, prices) -> Scenario:
    """`sc` priced with the thread's own model when the trace names a priced one (sessions may mix models)."""
    named = models[models != ""]
    try:
        model = price_of(str(named.mode().iloc[0]), prices).model if len(named) else sc.model
    except InputError:
        return sc
    return sc if model == sc.model else dataclasses.replace(sc, model=model)


def _simulated(scenario: Scenario, steps: int, cache: dict) -> dict[str, float]:
    """Cost and its parts for one task of `steps` requests under `scenario`."""
    key = (scenario.model, steps)
    if key not in cache:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run = simulate(None, scenario, steps=steps, samples=0)
        s = run.steps
        pr = price_of(scenario.model, load_prices(scenario.price_file, overrides=scenario.prices))
        w = s["weight"]
        cache[key] = {"cost": float((s["cost"] * w).sum()),
                        "uncached": float((s["uncached"] * w).sum() * pr.input / 1e6),
                        "cache_write": float((s["cache_write"] * w).sum() * pr.cache_write / 1e6),
                        "cache_read": float((s["cache_read"] * w).sum() * pr.cache_read / 1e6),
                        "output": float((s["output"] * w).sum() * pr.output / 1e6)}
    return cache[key]


def compare(tr: Traces, scenario: Scenario | None = None) -> pd.DataFrame:
    """Per session and in total: billed cost next to the simulated cost of the same number of steps.

    `scenario` defaults to `fit_scenario(tr)`. Each thread (main agent, subagent) is simulated as a
    task of its own length. `.attrs["verdict"]` says whether the total is within 10%, and if not,
    which input drives the gap (the billed part furthest from its simulated counterpart).
    """
    sc = scenario if scenario is not None else fit_scenario(tr)
    if sc.registry_size is None or sc.tool_tokens is None:
        sc = dataclasses.replace(sc, registry_size=0, tool_tokens=0.0)  # compare in average-size mode
    r = _threads(tr)
    prices = load_prices()
    billed_parts = pd.DataFrame(np.nan, columns=list(DRIVERS), index=r.index)
    for model, g in r.groupby("model", sort=False):  # the parts of `bill`'s cost, per model
        try:
            p = price_of(str(model), prices)
        except InputError:
            continue
        hour = getattr(p, "cache_write_1h", None) or HOUR_WRITE_FACTOR * p.input
        billed_parts.loc[g.index, "uncached"] = g["input_tokens"] * p.input / 1e6
        billed_parts.loc[g.index, "cache_write"] = (g["cache_write_5m"] * p.cache_write
                                                    + g["cache_write_1h"] * hour) / 1e6
        billed_parts.loc[g.index, "cache_read"] = g["cache_read"] * p.cache_read / 1e6
        billed_parts.loc[g.index, "output"] = g["output_tokens"] * p.output / 1e6
    cache: dict = {}
    rows = []
    for (session, _agent), g in r.groupby(["session", "agent"], sort=True):
        sim = _simulated(_own_model(sc, g["model"], prices), int(len(g)), cache)
        rows.append({"session": session, "requests": len(g), "billed": g["cost"].sum(min_count=1),
                     "simulated": sim["cost"],
                     **{f"billed_{k}": billed_parts.loc[g.index, k].sum() for k in DRIVERS},
                     **{f"simulated_{k}": sim[k] for k in DRIVERS}})
    per = pd.DataFrame(rows).groupby("session", sort=True).sum(min_count=1).reset_index()
    total = per.drop(columns="session").sum(min_count=1)
    per = pd.concat([per, pd.DataFrame([{"session": "(total)", **total}])], ignore_index=True)
    per["requests"] = per["requests"].astype("int64")
    per["error"] = (per["simulated"] - per["billed"]) / per["billed"]
    per["within_10pct"] = per["error"].abs() <= TOLERANCE
    per.attrs["verdict"] = _verdict(per.iloc[-1])
    per.attrs["scenario"] = sc
    return per


def _verdict(total: pd.Series) -> str:
    err = total["error"]
    if pd.isna(err):
        return "no billed cost to compare with (unpriced models?)"
    if abs(err) <= TOLERANCE:
        return f"the simulation is within {abs(err):.1%} of the billed cost: its what-ifs can be trusted for this agent"
    gaps = {k: total[f"simulated_{k}"] - total[f"billed_{k}"] for k in DRIVERS}
    part = max(gaps, key=lambda k: abs(gaps[k]))
    side = "over" if err > 0 else "under"
    return (f"the simulation is {abs(err):.1%} {side} the billed cost (more than {TOLERANCE:.0%}); the largest gap is "
            f"in {part.replace('_', ' ')} (${gaps[part]:+,.4f}), so check {DRIVERS[part]}")


def input_split(tr: Traces) -> pd.DataFrame:
    """Each request's billed input split into the fixed prefix (the thread's first request: system
    prompt, tool definitions, first message), the new text since the previous request (the latest
    call and result) and the history in between."""
    r = _threads(tr)
    total = (r["input_tokens"] + r["cache_write"] + r["cache_read"]).astype(float)
    keys = [r["session"], r["agent"]]
    prefix = total.groupby(keys).transform("first")
    new = (total - total.groupby(keys).shift(1)).fillna(0).clip(lower=0)
    prefix = prefix.where(r["step"] > 1, total)
    history = (total - prefix - new).clip(lower=0)
    new = total - prefix.clip(upper=total) - history
    return pd.DataFrame({"session": r["session"], "agent": r["agent"], "step": r["step"],
                         "timestamp": r["timestamp"], "prefix": prefix.clip(upper=total),
                         "history": history, "new": new.clip(lower=0), "total": total}).reset_index(drop=True)
