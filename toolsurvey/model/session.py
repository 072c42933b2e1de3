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
from ..providers.caching import cache_write_price, caching_rules
from ..providers.prices import PER_MILLION, load_prices
from .context import Context
from .cost import row_parameters
from .dist import Dist
from .scenario import Scenario
from .session_shape import Thread, expected_thread
from .subagents import SHARES, Subagent

SESSION_RULES = (
    "a session is `turns` tasks of the scenario in one conversation: each turn's history stays (its calls, "
    "results and answer, then the next prompt); a thread's cache expires when the time before a request exceeds "
    "its lifetime (5 minutes or 1 hour; the share of 1-hour threads is cache_1h_share), and a request finding it "
    "expired reads prefix_hit x the fixed prefix and writes the rest; cache_miss / prompt_cache_miss of requests "
    "find only the prefix; at compaction_at tokens the history becomes compaction_tokens; subagents are threads "
    "of their own, `count` per session")
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
        user_message_tokens=0, response_tokens=sub.response_tokens, call_tokens=sub.call_tokens,
        answer_tokens=sub.answer_tokens, tool_tokens=0.0, registry_size=0, overhead_tokens=0.0, strategy="all",
        visible=None, tools=(), phases=None, core=(), calibration=None, accuracy=False, turns=1, think_time=0,
        compaction_at=None, subagents=(), prompt_cache_miss=0.0, **own)


def hour_share(sc: Scenario) -> float:
    """The share of threads cached for one hour: `cache_1h_share`, else all or none by `cache_ttl`."""
    return float(sc.cache_1h_share) if sc.cache_1h_share is not None else float(sc.cache_ttl == "1h")


class _Prices:
    """The price of each model a session's requests name, looked up once (dated ids resolve)."""

    def __init__(self, sc: Scenario):
        self.table = load_prices(sc.price_file, overrides=sc.prices)
        self.seen: dict = {}

    def of(self, model: str):
        if model not in self.seen:
            self.seen[model] = price_of(model, self.table)
        return self.seen[model]


class _Pricer:
    """Prices one thread's requests under one cache lifetime; `rows` are the thread scenario's
    `row_parameters` (the fixed prefix, tools and result of each position in a turn)."""

    def __init__(self, th: Thread, sc: Scenario, rows: dict, prices: _Prices):
        self.th, self.sc, self.prices = th, sc, prices
        prm = rows["params"]
        # The stable prefix (overhead, tools block, system prompt); tools loaded by a search sit after it.
        self.fixed = prm["overhead"][0, 0] * (rows["visible"][0] > 0) + rows["prefix"][0] + prm["system"][0, 0]
        self.loaded = rows["loaded"][0]
        self.tools, self.block, self.results = rows["prefix"][0] + rows["loaded"][0], rows["block"][0], rows["results"][0]
        self.overhead = prm["overhead"][0, 0] * (rows["visible"][0] > 0)
        self.call, self.user, self.answer = prm["call"][0, 0], prm["user"][0, 0], rows["money"]["answer"][0, 0]
        self.mode = str(rows["modes"][0])
        if self.mode == "explicit":
            raise InputError("caching 'explicit' (a stored cache) is not modelled for sessions (turns, subagents, "
                             "compaction); use 'prefix' or 'incremental'")
        if len(th) and int(th.step.max()) > len(self.fixed):
            raise InputError(f"thread {th.name!r}: a turn of {int(th.step.max())} requests is longer than the "
                             f"scenario's {len(self.fixed)}")

    def price(self, model: str):
        return self.prices.of(model)

    def cache(self, inp, fixed, prev, same_block, after, p, q, price) -> tuple[float, float, float]:
        """(cache read, cache write, uncached) of one request whose cache expired with probability `p`."""
        low = price.min_cache_tokens
        step = float(caching_rules(price.provider).get("cache_increment", 1))
        hits = lambda x: math.floor(x / step) * step  # each outcome's read, in the provider's increments
        pre = fixed if fixed >= low else 0.0
        if self.mode == "none" or (self.mode == "prefix" and not pre) or (self.mode == "incremental" and inp < low):
            return 0.0, 0.0, inp
        cold = hits(self.sc.prefix_hit * pre)
        if self.mode == "prefix":  # the stable prefix alone: read when the previous request sent the same one
            read = (1 - p) * (hits(pre) if same_block and prev is not None else 0.0) + p * cold
            return read, pre - read, inp - pre
        if after:  # just compacted: only the prefix is cached, the summary is new
            warm = hits(pre)
        elif same_block and prev is not None and prev >= low:
            warm = (1 - q) * hits(prev) + q * hits(min(pre, prev))  # a miss finds the prefix, not the history
        else:
            warm = 0.0
        read = min((1 - p) * warm + p * cold, inp)
        return read, inp - read, 0.0

    def run(self, ttl: str) -> list[dict]:
        th, sc = self.th, self.sc
        out: list[dict] = []
        hist = within = 0.0
        prev = prev_block = prev_model = last = None
        for r in range(len(th)):
            k = int(th.step[r])
            grow = self.call + self.results[k - 2] if k > 1 else 0.0
            within = within + grow if k > 1 else 0.0
            inp = self.fixed[k - 1] + self.loaded[k - 1] + self.user + hist + within
            model = th.models[r] if th.models is not None else sc.model
            p = 1.0 if r == 0 or model != prev_model else float(th.expired[ttl][r])
            same = r > 0 and self.block[k - 1] == prev_block
            after = False
            if sc.compaction_at is not None and r > 0 and inp > sc.compaction_at:
                if sc.compaction_output_tokens is not None:  # the request that writes the summary
                    out.append(self.row(r, "compaction", inp, self.cache(inp, self.fixed[k - 1], prev, same, False, p,
                                                                        0.0, self.price(model)),
                                        sc.compaction_output_tokens, model, ttl, p, hist + within))
                    p = 0.0
                hist = sc.compaction_tokens - self.user - within
                inp = self.fixed[k - 1] + self.loaded[k - 1] + sc.compaction_tokens
                after = True
            q = sc.prompt_cache_miss if k == 1 else sc.cache_miss
            parts = self.cache(inp, self.fixed[k - 1], prev, same, after, p, q, self.price(model))
            a = float(th.answer[r])
            kind = "answer" if a == 1 else "call" if a == 0 else "call or answer"
            out.append(self.row(r, kind, inp, parts, a * self.answer + (1 - a) * self.call, model, ttl, p,
                                hist + within))
            prev, prev_block, prev_model = inp, self.block[k - 1], model
            if r == len(th) - 1 or th.turn[r + 1] != th.turn[r]:  # the turn ends: its history stays
                f = th.weight[r] / th.weight[r - 1] if k > 1 and th.weight[r] < th.weight[r - 1] else 1.0
                hist += within - (1 - f) * grow + self.answer + self.user
                prev = inp if f == 1 else (1 - f) * last + f * inp
            last = inp
        return out

    def row(self, r, kind, inp, parts, output, model, ttl, p, history) -> dict:
        read, write, uncached = parts
        pr = self.price(model)
        k = int(self.th.step[r])
        dollars = {"uncached": uncached * pr.input, "cache_write": write * cache_write_price(pr, ttl, model),
                   "cache_read": read * pr.cache_read, "output": output * pr.output}
        return {"thread": self.th.name, "count": self.th.count, "turn": int(self.th.turn[r]), "step": k,
                "kind": kind, "weight": float(self.th.weight[r]), "model": model, "tools": self.tools[k - 1],
                "overhead": self.overhead[k - 1],
                "history": history, "input": inp, "uncached": uncached, "cache_write": write, "cache_read": read,
                "output": output, "expired": p, "fits": inp <= pr.context_window,
                "cost": sum(dollars.values()) / PER_MILLION, **{f"cost_{k}": v / PER_MILLION for k, v in dollars.items()}}


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
    out = [(expected_thread("main", float(rows["calls"][0]) + 1, sc.turns, sc.think_time), sc, rows)]
    none = Context(None)
    for sub in sc.subagents:
        sub_sc = thread_scenario(sc, sub)
        sub_rows = row_parameters(none, [sub_sc])
        out.append((expected_thread(sub.name, float(sub_rows["calls"][0]) + 1, Dist(value=1.0), Dist(value=0.0),
                                    sub.count), sub_sc, sub_rows))
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
    out = (table[cols].mul(w, axis=0)).sum()
    out["requests"] = float(w.sum())
    out["fits"] = bool(table.loc[w > 0, "fits"].all()) if len(table) else True
    return out


def steps_for_run(table: pd.DataFrame) -> pd.DataFrame:
    """The per-request table of a session run: one row per request in thread order, numbered from 1."""
    out = table.drop(columns="count").copy()
    out.insert(0, "request", np.arange(1, len(out) + 1))
    out.loc[~out["fits"], "cost"] = np.nan
    return out
