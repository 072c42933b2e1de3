"""A Scenario fitted to what traces show: the sessions' structure (turns, think time, steps per turn,
subagents, compactions) and sizes (the fixed prefix, what each step adds to the history, outputs),
and how their caches behaved (expiry, the 1-hour share, misses, a prefix kept warm elsewhere).

Every figure is measured on the traces given (docs/traces.md, "A session model"); none is a constant.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from ..inputs.traces.billing import price_of
from ..inputs.traces.events import COMPACT_LIMIT, WINDOW
from ..inputs.traces.tables import Traces
from ..providers.prices import bundled_prices
from .scenario import BY_MODEL_FIELDS, Scenario
from .session_shape import caching_rule_of
from .subagents import Subagent
from .trace_shapes import COMPACTION, MAIN, SUBAGENT, expired, requests_table

# Sizes measured on one session are that session's; on two sessions of at least this many main requests
# each (not scripted captures or one-prompt runs), they are their model's.
MODEL_SESSIONS, MODEL_SESSION_REQUESTS = 2, 10


def fit_scenario(tr: Traces, *, name: str = "fitted to traces", **changes) -> Scenario:
    """A session Scenario from the traces (see `fit_details` for each figure and how it is measured).

    The measured steps already include wrong calls and retries, so the accuracy model is off; the
    rates seen (errors, repeated identical calls) are in the description. `changes` replace fields
    of the result. Raises InputError when the traces have no requests or name no model.
    """
    return _scenario(fit_details(tr), name).changed(**changes)


def _main_fields(m: dict[str, Any], tool_tokens: float) -> dict[str, Any]:
    """The Scenario fields (BY_MODEL_FIELDS) of a main agent's measured sizes (`_sizes`)."""
    return {"system_prompt_tokens": max(m["prefix"] - m["user_message_tokens"] - tool_tokens, 0.0),
            **{k: m[k] for k in BY_MODEL_FIELDS if k != "system_prompt_tokens"}}


def _scenario(d: dict[str, Any], name: str = "fitted to traces") -> Scenario:
    return Scenario(
        model=d["model"], steps=d["steps"], turns=d["turns"], think_time=d["think_time"],
        **_main_fields(d["main"], d["tool_tokens"]), tool_tokens=d["tool_tokens"],
        by_model={k: _main_fields(v, d["tool_tokens"]) for k, v in d["by_model"].items()},
        registry_size=1 if d["tool_tokens"] else 0, overhead_tokens=0, caching=d["caching"],
        uncached_share=d["uncached_share"], compaction_at=d["compaction_at"], compaction_tokens=d["compaction_tokens"],
        compaction_output_tokens=d["compaction_output_tokens"], subagents=d["subagents"], accuracy=False,
        name=name, description=(f"fitted to {d['sessions']} session(s) of traces: {d['error_share']:.1%} of tool "
                                f"calls failed, {d['repeated_share']:.1%} repeated an identical call, cache hit "
                                f"share {d['cache_hit_share']:.1%}; fixed prefix {d['prefix_source']}"
                                + "".join(f"; {m}: {what}" for m, what in d["fitted_rules"].items())))


def fit_details(tr: Traces) -> dict[str, Any]:
    """The figures `fit_scenario` uses: per role (the main agent, subagents) the sizes and cache
    behaviour, the sessions' structure, compactions, per-tool result sizes and how the prefix was found."""
    r = requests_table(tr)
    c = tr.calls
    named = r.loc[r["model"] != "", "model"]
    if named.empty:
        raise InputError("the traces name no model, so no price applies; give model= to fit_scenario")
    main = r[r["role"] == MAIN] if (r["role"] == MAIN).any() else r[r["role"] != COMPACTION]
    model = price_of(str(main.loc[main["model"] != "", "model"].mode().iloc[0] if (main["model"] != "").any()
                         else named.mode().iloc[0]), bundled_prices()).model
    caching = _caching(r)
    defs = r["tool_definition_tokens"].dropna()
    tool_tokens = float(defs.median()) if len(defs) else 0.0
    sizes = _sizes(main, caching)
    models = main["model"].astype(str)
    long = main.groupby([models, main["session"]]).size().ge(MODEL_SESSION_REQUESTS).groupby(level=0).sum()
    by_model = {m: _sizes(main[models == m], caching) for m in long.index[long >= MODEL_SESSIONS]} \
        if models.nunique() > 1 else {}
    turns = main.groupby("session")["turn"].max().astype(float)
    per_turn = main.groupby(["session", "agent", "turn"]).size().astype(float)
    think = main.loc[(main["step"] == 1) & ~main["first"], "gap"].dropna()
    total_in = r["total"]
    return {
        "model": model, "sessions": int(r["session"].nunique()), "threads": int(r.groupby(["session", "agent"]).ngroups),
        "main": sizes, "by_model": by_model, "turns": _dist(turns, 1.0), "steps": _dist(per_turn, 1.0), "think_time": _dist(think, 0.0),
        "tool_tokens": tool_tokens,
        "prefix_source": (f"measured: tool definitions in the trace ({tool_tokens:,.0f} tokens)" if len(defs) else
                          "from the first requests' input (cache writes included); no tool definitions"),
        "caching": caching, "uncached_share": _uncached_share(r), "fitted_rules": fitted_rules(r),
        **_compactions(r, tr.events, sizes["prefix"] - sizes["user_message_tokens"]),
        "subagents": _subagents(r, caching),
        "result_tokens_by_tool": c.groupby(c["server"].fillna("(built-in)") + "/" + c["tool"])["result_tokens"]
        .mean().sort_values(ascending=False).to_dict(),
        "cache_hit_share": float(r["cache_read"].sum() / total_in.sum()) if total_in.sum() else 0.0,
        "error_share": float(c["error"].mean()) if len(c) else 0.0,
        "repeated_share": float(c["repeated"].mean()) if len(c) else 0.0,
    }


def fitted_rules(r: pd.DataFrame) -> dict[str, str]:
    """Per model of `requests_table` rows whose provider leaves part of its caching rule undocumented (its
    rules' `undocumented`), what is measured on the traces instead."""
    out = {}
    for model in sorted(set(r["model"].astype(str)) - {""}):
        what = caching_rule_of(model).get("undocumented")
        if what:
            out[model] = (f"{what} is not documented; the share of the cached context a request reads is fitted "
                          "from the traces (cache_miss, prompt_cache_miss)")
    return out


def _dist(x: pd.Series, empty: float) -> Any:
    """Measured values as samples (one number when they are all the same, `empty` when there are none)."""
    if not len(x):
        return empty
    return float(x.iloc[0]) if x.nunique() == 1 else tuple(float(v) for v in x)


def _caching(r: pd.DataFrame) -> str:
    """"incremental" when later requests read their history from the cache (more than half of what
    their threads' contexts grew by since the first request), "prefix" when only a fixed prefix is read,
    "none" when nothing is. Reads, not writes, tell: OpenAI bills what it does not read as input."""
    if r["cache_read"].sum() == 0:
        return "none"
    first = r.groupby(["session", "agent"])["total"].transform("first")
    later = ~r["first"] & ~r["compacted"]
    grown = (r["prev_total"] - first)[later].clip(lower=0).sum()
    read = (r["cache_read"] - first)[later].clip(lower=0).sum()
    return "incremental" if later.any() and read > 0.5 * grown else "prefix"


def _uncached_share(r: pd.DataFrame) -> float | None:
    """The share of the input not read from the cache that the traces bill as plain input rather than
    as cache writes (None when every input token was read)."""
    missed = float(r["input_tokens"].sum() + r["cache_write"].sum())
    return float(r["input_tokens"].sum()) / missed if missed else None


def _sizes(g: pd.DataFrame, caching: str) -> dict[str, float]:
    """One role's sizes and cache behaviour, measured on its requests (see docs/traces.md)."""
    prefix = float(g.loc[g["first"], "total"].median())
    pair = ~g["first"] & ~g["compacted"]  # consecutive requests, no compaction between
    added = g["total"] - g["prev_total"] - g["prev_output_tokens"]
    within, prompt = pair & (g["step"] > 1), pair & (g["step"] == 1)
    user = max(float(added[prompt].mean()), 0.0) if prompt.any() else 0.0
    fixed = max(prefix - user, 0.0)
    ttl = g.groupby(["session", "agent"])[["cache_write", "cache_write_1h"]].transform("sum").pipe(
        lambda s: np.where(s["cache_write_1h"] * 2 >= s["cache_write"], "1h", "5m"))
    cold = g["first"] | (g["prev_model"] != g["model"]) | ((ttl == "5m") & expired(g, "5m").astype(bool)) \
        | ((ttl == "1h") & expired(g, "1h").astype(bool))
    warm = pair & ~cold
    # The share of the cached history a warm request did not find, as the model has it: it reads
    # (1 - miss) x the context it can find + miss x the fixed prefix. The context it can find is the
    # previous one, but at a new prompt of a model that strips earlier turns' reasoning, the context the
    # turn before started from (providers.toml, reasoning_dropped_at_prompt).
    reach = g["prev_total"].where(~(g["drops_reasoning"] & (g["step"] == 1)),
                                  np.minimum(g["prev_base"], g["prev_total"]))
    history = (reach - fixed).clip(lower=0)
    # what the model reads of a warm cache comes in the documented increments: a miss is what is lost beyond them
    kept = np.floor(reach / g["increment"]) * g["increment"]
    lost = (kept - g["cache_read"]).clip(lower=0).clip(upper=history)
    rate = lambda m: float(lost[m].sum() / history[m].sum()) if caching == "incremental" and history[m].sum() else 0.0
    written = g["cache_write"].sum()
    # what a step adds is the results of the calls the request before it made (parallel calls: several)
    calls = g["prev_calls"][within]
    per_call = max(float(added[within].sum() / calls.sum()), 0.0) if within.any() else 0.0
    return {
        "prefix": prefix, "user_message_tokens": user, "response_tokens": per_call,
        "calls_per_step": float(calls.mean()) if within.any() else 1.0,
        "growth_by_step": _profile(added[within], calls, g.loc[within, "index"], per_call),
        "call_tokens": float(g.loc[~g["final"], "output_tokens"].mean()) if (~g["final"]).any() else 0.0,
        "answer_tokens": float(g.loc[g["final"], "output_tokens"].mean()),
        "cache_1h_share": float(g["cache_write_1h"].sum() / written) if written else 0.0,
        "prefix_hit": float(g.loc[cold, "cache_read"].clip(upper=fixed).sum() / (fixed * cold.sum()))
        if fixed and cold.any() else 0.0,
        "cache_miss": rate(warm & (g["step"] > 1)), "prompt_cache_miss": rate(warm & (g["step"] == 1)),
    }


def _profile(added: pd.Series, calls: pd.Series, index: pd.Series, per_call: float) -> tuple[float, ...]:
    """The growth per call into a thread's request by its place (spans 1, 2-3, 4-7, ... as
    session_context.step_factor reads them) relative to the overall one; a span with no step holds
    the one before."""
    if not len(added) or per_call <= 0:
        return ()
    span = np.floor(np.log2(index.clip(lower=1).to_numpy())).astype(int)
    sums = pd.DataFrame({"added": added.to_numpy(), "calls": calls.to_numpy()}).groupby(span).sum()
    out, last = [], 1.0
    for b in range(int(span.max()) + 1):
        last = max(float(sums.loc[b, "added"] / sums.loc[b, "calls"]), 0.0) / per_call if b in sums.index else last
        out.append(last)
    return tuple(out)


def _compactions(r: pd.DataFrame, events: pd.DataFrame, fixed: float) -> dict[str, Any]:
    """Where the main agent's history was compacted (the recorded automatic compactions' sizes, else
    the context before each collapse of the input; with neither, the size the agent compacts at by its
    documented rule, else the context window it records, which it must compact within), what it left,
    and the compaction requests' output."""
    main = r[r["role"] == MAIN]
    after = main[main["compacted"]]
    kind = events["kind"] if len(events) else pd.Series(dtype=object)
    ev = events[kind == "compaction"]
    auto = ev.loc[ev["detail"] != "manual", "tokens"].dropna()
    windows = events.loc[kind == WINDOW, "tokens"].dropna()
    limits = events.loc[kind == COMPACT_LIMIT, "tokens"].dropna()
    at, source = (float(auto.median()), "the recorded automatic compactions") if len(auto) else \
        (float(after["prev_total"].median()), "the context before each collapse of the input") \
        if len(after) and not len(ev) else \
        (float(limits.median()), "none recorded: the size the agent compacts at, by its documented rule") \
        if len(limits) else \
        (float(windows.median()), "none recorded: the context window the agent records") if len(windows) else \
        (None, "none recorded")  # compacted by hand only, or never: no size is known to trigger it
    requests = r.loc[r["role"] == COMPACTION, "output_tokens"]
    return {"compaction_at": at, "compaction_source": source, "compactions": int(max(len(after), len(ev))),
            "compaction_tokens": max(float((after["total"] - fixed).mean()), 0.0) if len(after) else 0.0,
            "compaction_output_tokens": float(requests.mean()) if len(requests) else None}


def _subagents(r: pd.DataFrame, caching: str) -> tuple[Subagent, ...]:
    """One Subagent per model the subagent threads ran on: threads per session and requests per thread
    from that model's threads; sizes and cache behaviour from every subagent thread (they depend on the
    task more than the model, and subagent threads are few)."""
    g = r[r["role"] == SUBAGENT]
    if g.empty:
        return ()
    s = _sizes(g, caching)
    sessions = r["session"].nunique()
    out = []
    for model, m in g.groupby(g.groupby(["session", "agent"])["model"].transform("first"), sort=True):
        steps = m.groupby(["session", "agent"]).size().astype(float)
        out.append(Subagent(name=str(model), count=m.groupby(["session", "agent"]).ngroups / sessions,
                            model=str(model) or None, steps=_dist(steps, 1.0), system_prompt_tokens=s["prefix"],
                            response_tokens=s["response_tokens"], calls_per_step=s["calls_per_step"],
                            call_tokens=s["call_tokens"],
                            answer_tokens=s["answer_tokens"], cache_1h_share=s["cache_1h_share"],
                            prefix_hit=s["prefix_hit"], cache_miss=s["cache_miss"], growth_by_step=s["growth_by_step"]))
    return tuple(out)


def input_split(tr: Traces) -> pd.DataFrame:
    """Each request's billed input split into the fixed prefix (the thread's first request: system
    prompt, tool definitions, first message), the new text since the previous request (the latest
    call and result) and the history in between."""
    r = requests_table(tr)
    total = r["total"]
    keys = [r["session"], r["agent"]]
    prefix = total.groupby(keys).transform("first")
    new = (total - r["prev_total"]).fillna(0).clip(lower=0)
    prefix = prefix.where(~r["first"], total)
    history = (total - prefix - new).clip(lower=0)
    new = total - prefix.clip(upper=total) - history
    step = r.groupby(keys).cumcount() + 1
    return pd.DataFrame({"session": r["session"], "agent": r["agent"], "step": step,
                         "timestamp": r["timestamp"], "prefix": prefix.clip(upper=total),
                         "history": history, "new": new.clip(lower=0), "total": total}).reset_index(drop=True)
