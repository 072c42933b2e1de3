"""A session priced request by request (docs/simulation.md, "Sessions"): each thread's context grows
with its calls, results, answers and prompts; it is cached incrementally (or its prefix only), found
expired after the cache's lifetime, missed at the measured rates and compacted at the measured size;
subagents are threads with a prefix, a model and a cache of their own."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

from ..errors import InputError
from ..inputs.traces.billing import price_of
from ..providers.caching import cache_write_price, caching_rules, drops_earlier_reasoning
from ..providers.prices import PER_MILLION
from .context import Context
from .cost import row_parameters, row_summaries
from .dist import Dist
from .scenario import Scenario
from .session_context import Sizes, path
from .session_shape import Thread, expected_thread, lifetimes_of
from .subagents import SHARES, Subagent

SESSION_RULES = (
    "a session is `turns` tasks of the scenario in one conversation: each turn's history stays (its calls, "
    "results and answer, then the next prompt); a thread's cache expires when the time before a request exceeds "
    "its lifetime (5 minutes or 1 hour; the share of 1-hour threads is cache_1h_share), and a request finding it "
    "expired reads prefix_hit x the fixed prefix and writes the rest; cache_miss / prompt_cache_miss of requests "
    "find only the prefix; a model that strips earlier turns' reasoning at a new prompt (OpenAI's before GPT-5.6) "
    "finds there only the context the turn before started from; at compaction_at tokens the history becomes "
    "compaction_tokens; subagents are threads of their own, `count` per session")
PARTS = ("uncached", "cache_write", "cache_read", "output")  # a request's billed components
# What depends on the cache's lifetime.
MIXED = ("uncached", "cache_write", "cache_read", "expired", "cost", *(f"cost_{k}" for k in PARTS))


def thread_scenario(parent: Scenario, sub: Subagent) -> Scenario:
    """The Scenario one thread of `sub` runs: one task in average-size mode with only its own prefix
    (no registry tools, no provider overhead: its tool definitions are in `system_prompt_tokens`),
    accuracy off (its steps are as given), the session's caching, prices and volume."""
    own = {k: getattr(sub, k) for k in SHARES if getattr(sub, k) is not None}
    return dataclasses.replace(
        parent, model=sub.model or parent.model, steps=sub.steps, system_prompt_tokens=sub.system_prompt_tokens,
        user_message_tokens=0, response_tokens=sub.response_tokens, calls_per_step=sub.calls_per_step,
        call_tokens=sub.call_tokens, answer_tokens=sub.answer_tokens, tool_tokens=0.0, registry_size=0, overhead_tokens=0.0, strategy="all",
        visible=None, tools=(), phases=None, core=(), calibration=None, accuracy=False, turns=1, think_time=0,
        compaction_at=None, subagents=(), prompt_cache_miss=0.0, growth_by_step=sub.growth_by_step, **own)


def hour_share(sc: Scenario) -> float:
    """The share of threads cached for one hour: `cache_1h_share`, else all or none by `cache_ttl`."""
    return float(sc.cache_1h_share) if sc.cache_1h_share is not None else float(sc.cache_ttl == "1h")


class _Prices:
    """The price of each model a session's requests name, looked up once (dated ids resolve)."""

    def __init__(self, sc: Scenario):
        self.table = sc.price_table()
        self.seen: dict = {}

    def of(self, model: str):
        if model not in self.seen:
            self.seen[model] = price_of(model, self.table)
        return self.seen[model]


class _Pricer:
    """Prices one thread's requests (its `path`) under one cache lifetime."""

    def __init__(self, th: Thread, sc: Scenario, rows: dict, prices: _Prices):
        self.th, self.sc, self.prices = th, sc, prices
        self.sz = Sizes.of(rows)
        if self.sz.mode == "explicit":
            raise InputError("caching 'explicit' (a stored cache) is not modelled for sessions (turns, subagents, "
                             "compaction); use 'prefix' or 'incremental'")
        self.path = path(th, self.sz, sc)

    def cache(self, e: dict, p: float, q: float, price) -> tuple[float, float, float]:
        """(cache read, cache write, uncached) of request `e`, whose cache expired with probability `p`:
        what is not read is written (at the write price the provider's rule gives the model: the input
        price where writes cost nothing extra), but for `uncached_share` of it, billed as plain input."""
        read, write, uncached = self._split(e, p, q, price)
        u = self.sc.uncached_share or 0.0
        return read, (1 - u) * write, uncached + u * write

    def _split(self, e: dict, p: float, q: float, price) -> tuple[float, float, float]:
        inp, prev = e["input"], e["prev"]
        low = price.min_cache_tokens
        step = float(caching_rules(price.provider, price.model).get("cache_increment") or 1)
        hits = lambda x: math.floor(x / step) * step  # each outcome's read, in the provider's increments
        fixed = self.sz.fixed[int(self.th.step[e["r"]]) - 1]
        pre = fixed if fixed >= low else 0.0
        mode = self.sz.mode
        if mode == "none" or (mode == "prefix" and not pre) or (mode == "incremental" and inp < low):
            return 0.0, 0.0, inp
        cold = hits(self.sc.prefix_hit * pre)
        if mode == "prefix":  # the stable prefix alone: read when the previous request sent the same one
            read = (1 - p) * (hits(pre) if e["same"] and prev is not None else 0.0) + p * cold
            return read, pre - read, inp - pre
        if e["after"]:  # just compacted: only the prefix is cached, the summary is new
            warm = hits(pre)
        elif e["same"] and prev is not None and (prev := self._reach(e, prev, price)) >= low:
            warm = (1 - q) * hits(prev) + q * hits(min(pre, prev))  # a miss finds the prefix, not the history
        else:
            warm = 0.0
        read = min((1 - p) * warm + p * cold, inp)
        return read, inp - read, 0.0

    @staticmethod
    def _reach(e: dict, prev: float, price) -> float:
        """The cached context request `e` can find: the previous one, but at a new prompt of a model that
        strips earlier turns' reasoning, the context the turn before started from (its prompt differs
        from that turn's first reasoning item on)."""
        if e.get("base") is not None and drops_earlier_reasoning(price.provider, price.model):
            return min(prev, e["base"])
        return prev

    def run(self, ttl: str) -> list[dict]:
        th, sc = self.th, self.sc
        out: list[dict] = []
        prev_model = None
        touched = -1  # the request a compaction request just refreshed the cache for
        for e in self.path:
            r = e["r"]
            model = th.models[r] if th.models is not None else sc.model
            # A thread's first request, and a change of model, find no cache of the thread's own.
            p = 1.0 if model != prev_model else 0.0 if touched == r else float(th.expired[ttl][r])
            q = 0.0 if e["kind"] == "compaction" else sc.prompt_cache_miss if th.step[r] == 1 else sc.cache_miss
            out.append(self.row(e, self.cache(e, p, q, self.prices.of(model)), model, ttl, p))
            touched = r if e["kind"] == "compaction" else -1
            prev_model = model
        return out

    def row(self, e: dict, parts, model: str, ttl: str, p: float) -> dict:
        read, write, uncached = parts
        pr = self.prices.of(model)
        r = e["r"]
        k = int(self.th.step[r])
        dollars = {"uncached": uncached * pr.input, "cache_write": write * cache_write_price(pr, ttl, model),
                   "cache_read": read * pr.cache_read, "output": e["output"] * pr.output}
        return {"thread": self.th.name, "count": self.th.count, "turn": int(self.th.turn[r]), "step": k,
                "kind": e["kind"], "weight": float(self.th.weight[r]), "model": model,
                "visible": self.sz.visible[k - 1], "tools": self.sz.tools[k - 1], "overhead": self.sz.overhead[k - 1],
                "system": self.sz.system, "user": self.sz.user, "history": e["history"], "input": e["input"],
                "uncached": uncached, "cache_write": write, "cache_read": read, "output": e["output"], "expired": p,
                "fits": e["input"] <= pr.context_window, "cost": sum(dollars.values()) / PER_MILLION,
                **{f"cost_{k}": v / PER_MILLION for k, v in dollars.items()}}


def price_thread(th: Thread, sc: Scenario, rows: dict, prices: _Prices) -> pd.DataFrame:
    """One row per request of `th` under `sc`: tokens and cost, mixed over the 5-minute and 1-hour
    lifetimes by the scenario's hour share."""
    pricer = _Pricer(th, sc, rows, prices)
    share = hour_share(sc)
    runs = {ttl: pd.DataFrame(pricer.run(ttl)) for ttl, w in (("5m", 1 - share), ("1h", share)) if w > 0}
    if len(runs) == 1:
        return next(iter(runs.values()))
    out = runs["5m"].copy()
    for c in MIXED:
        out[c] = (1 - share) * runs["5m"][c] + share * runs["1h"][c]
    return out


def session_threads(ctx: Context, sc: Scenario) -> list[tuple[Thread, Scenario, dict]]:
    """The expected threads of a session of `sc`: the main one (turns of the task's expected requests)
    and each subagent's, with the scenario and row parameters each runs."""
    rows = row_parameters(ctx, [sc])
    out = [(expected_thread("main", float(rows["calls"][0]) + 1, sc.turns, sc.think_time, lifetimes_of(sc.model)),
            sc, rows)]
    none = Context(None)
    for sub in sc.subagents:
        sub_sc = thread_scenario(sc, sub)
        sub_rows = row_parameters(none, [sub_sc])
        out.append((expected_thread(sub.name, float(sub_rows["calls"][0]) + 1, Dist(value=1.0), Dist(value=0.0),
                                    lifetimes_of(sub_sc.model), sub.count), sub_sc, sub_rows))
    return out


def price_session(threads: list[tuple[Thread, Scenario, dict]], sc: Scenario) -> pd.DataFrame:
    """Every request of the threads, priced (a thread's rows carry its `count` per session)."""
    prices = _Prices(sc)
    tables = [price_thread(th, th_sc, rows, prices) for th, th_sc, rows in threads if len(th)]
    if not tables:
        return pd.DataFrame(columns=["thread", "count", "weight", *PARTS, "cost"])
    return pd.concat(tables, ignore_index=True)


def totals(table: pd.DataFrame) -> pd.Series:
    """A session's expected tokens and cost: each request times its weight and its thread's count."""
    w = table["weight"] * table["count"]
    cols = ["input", "tools", "overhead", *PARTS, "cost"]
    out = (table[cols].mul(w, axis=0)).sum().astype(object)  # it holds `fits`, a bool, too
    out["requests"] = float(w.sum())
    out["fits"] = bool(table.loc[w > 0, "fits"].all()) if len(table) else True
    return out


STEP_COLUMNS = ["request", "thread", "turn", "step", "kind", "phase", "weight", "model", "visible", "tools", "overhead",
                "system", "user", "history", "input", "uncached", "cache_write", "cache_read", "output", "expired",
                "fits", "cost"]


def steps_for_run(table: pd.DataFrame) -> pd.DataFrame:
    """The per-request table of a session run, as a single task's (`weight` x `cost` adds up to the
    session's cost: a subagent's weight carries its threads per session), numbered from 1."""
    out = table.copy()
    out["weight"] = out["weight"] * out["count"]
    out["request"] = np.arange(1, len(out) + 1)
    out["phase"] = out["thread"]
    out.loc[~out["fits"], "cost"] = np.nan
    return out[STEP_COLUMNS]


def session_summary(ctx: Context, sc: Scenario) -> tuple[dict, pd.DataFrame, dict]:
    """(summary, per-request table, the main thread's row parameters) of a session of `sc`: the summary
    keys of a single task's run (`cost.row_summaries`) with the per-task figures the session's (a task is
    a session here), plus turns, threads, compactions and subagent_cost_per_task. The main thread runs
    `by_model`'s fields for the scenario's model, if any."""
    sc = sc.for_model(sc.model)
    threads = session_threads(ctx, sc)
    rows = threads[0][2]
    summary = row_summaries(rows).iloc[0].to_dict()
    table = price_session(threads, sc)
    tot = totals(table)
    main = table[table["thread"] == "main"]
    nan_unless = (lambda x: x) if tot["fits"] else (lambda x: math.nan)
    per_completed = tot["cost"] / summary["success"]
    subagents = (table["cost"] * table["weight"] * table["count"])[table["thread"] != "main"].sum()
    summary.update({
        "expected_requests": tot["requests"], "turns": sc.turns.expected(),
        "threads": 1 + sum(s.count for s in sc.subagents),
        "compactions": float((main["kind"] == "compaction").mul(main["weight"]).sum()),
        "tool_tokens_per_request": tot["tools"] / tot["requests"], "tool_tokens_per_task": tot["tools"],
        "overhead_tokens_per_task": tot["overhead"], "input_tokens_per_task": tot["input"],
        "cache_write_tokens": tot["cache_write"], "cache_read_tokens": tot["cache_read"],
        "output_tokens_per_task": tot["output"], "max_input_tokens": float(table["input"].max()), "fits": tot["fits"],
        "cost_per_request": nan_unless(tot["cost"] / tot["requests"]), "cost_per_task": nan_unless(tot["cost"]),
        "subagent_cost_per_task": nan_unless(float(subagents)), "cost_per_completed_task": nan_unless(per_completed),
        "cost_per_month": nan_unless(per_completed * summary["tasks_per_month"])})
    return summary, table, rows
