"""Per-task cost of an agent's tool surface: simulate one scenario, or sweep a grid of them.

Every request k of a task carries: provider overhead + the visible tool definitions + the system
prompt + the user message + the history (each earlier call and its result); it returns a tool call,
or the final answer on the last request. See docs/simulation.md for the model and a worked example.
The arithmetic is vectorised: one row per scenario (or Monte Carlo draw), one column per request.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import warnings as _warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..core.registry import Registry
from ..core.viewable import Viewable
from ..errors import InputError
from ..providers.caching import cache_write_price, caching_rules, resolve_caching
from ..providers.constants import fixed_overhead, rendering_for
from ..providers.limits import limit_problems
from ..providers.prices import PER_MILLION, Price, load_prices, price_for
from .accuracy import AccuracyCurve
from .scenario import Dist, Scenario, load_scenario
from .strategies import Profile, ToolTable, average_table, profile, tool_table

CACHE_MODES = {"none": 0, "prefix": 1, "incremental": 2, "explicit": 3}

__all__ = ["Run", "Scenario", "load_scenario", "simulate", "sweep"]


@dataclass(repr=False)
class Run(Viewable):
    """The result of `simulate`: per-request table, per-task summary, and the assumptions used."""

    view_name = "run"

    scenario: Scenario
    steps: pd.DataFrame
    summary: dict[str, Any]
    assumptions: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    draws: pd.DataFrame | None = None        # Monte Carlo: one row per sampled task
    percentiles: pd.DataFrame | None = None  # Monte Carlo: p50/p90/p99 of the per-task figures
    sampled: dict | None = None              # Monte Carlo: the raw draws (results per call, ...)


    def table(self) -> pd.DataFrame:
        """The summary as a one-row DataFrame carrying the assumptions in `attrs`."""
        df = pd.DataFrame([self.summary])
        df.attrs["assumptions"] = self.assumptions
        df.attrs["warnings"] = list(self.warnings)
        return df


# ---------------------------------------------------------------- the vectorised arithmetic

def _cum(x: np.ndarray) -> np.ndarray:
    """Cumulative sums along requests with a leading zero: C[:, p] = sum of the first p requests."""
    return np.concatenate([np.zeros((x.shape[0], 1)), np.cumsum(x, axis=1)], axis=1)


def _at(c: np.ndarray, p: np.ndarray) -> np.ndarray:
    """C at a (possibly fractional) request count p per row, linear between whole counts."""
    rows = np.arange(c.shape[0])
    lo = np.floor(p).astype(int)
    hi = np.minimum(lo + 1, c.shape[1] - 1)
    return c[rows, lo] + (p - lo) * (c[rows, hi] - c[rows, lo])


def requests(prefix, loaded, visible, block, *, overhead, system, user, call, results, mode, min_cache,
             increment=1.0):
    """Per-request token arrays (rows x K): input, and its split into uncached, cache write, cache read.

    `results[:, j]` is the result of the call made on request j+1; row-wise parameters are (rows, 1).
    """
    o = overhead * (visible > 0)
    hist = np.zeros_like(results)
    hist[:, 1:] = np.cumsum(call + results[:, :-1], axis=1)
    inp = o + prefix + loaded + system + user + hist
    # What can be cached: the stable prefix (tools + system), or the whole request (history too).
    cacheable = np.where((mode == 1) | (mode == 3), o + prefix + system, np.where(mode == 2, inp, 0.0))
    prev = np.zeros_like(cacheable)
    prev[:, 1:] = cacheable[:, :-1]
    same = np.zeros(inp.shape, dtype=bool)
    same[:, 1:] = block[:, 1:] == block[:, :-1]
    big = (cacheable >= min_cache) & (cacheable > 0)
    read = np.where(same & (prev >= min_cache) & (prev > 0), prev, 0.0)
    read = np.floor(read / increment) * increment  # OpenAI counts hits in 128-token steps
    write = np.where(big, cacheable - read, 0.0)
    # An explicit cache is stored across tasks: every request reads it, and no request writes it.
    read = np.where(mode == 3, np.where(big, cacheable, 0.0), read)
    write = np.where(mode == 3, 0.0, write)
    return {"input": inp, "uncached": inp - read - write, "cache_write": write, "cache_read": read,
            "tools": prefix + loaded, "overhead": o, "history": hist}


def task_totals(req: dict, calls: np.ndarray, *, call, answer, p_in, p_out, p_write, p_read, window,
                storage=None) -> dict:
    """Per-row task totals for `calls` tool calls (fractional: linear between whole counts);
    `storage` is an explicit cache's storage cost per task attempt (rows x 1), if any."""
    p = calls + 1.0  # requests: the calls, then the answer
    cost_in = (req["uncached"] * p_in + req["cache_write"] * p_write + req["cache_read"] * p_read) / PER_MILLION
    out = {k: _at(_cum(req[k]), p) for k in ("input", "uncached", "cache_write", "cache_read", "tools", "overhead")}
    out["output"] = calls * call[:, 0] + answer[:, 0]
    out["input_cost"] = _at(_cum(cost_in), p)
    out["output_cost"] = out["output"] * p_out[:, 0] / PER_MILLION
    out["storage_cost"] = np.zeros(len(p)) if storage is None else storage[:, 0]
    out["cost"] = out["input_cost"] + out["output_cost"] + out["storage_cost"]
    # The largest request of the task (the last one reached, as history only grows within a block).
    last = np.minimum(np.ceil(p).astype(int), req["input"].shape[1]) - 1
    biggest = np.maximum.accumulate(req["input"], axis=1)
    out["max_input"] = biggest[np.arange(len(p)), last]
    out["fits"] = out["max_input"] <= window[:, 0]
    return out


# ---------------------------------------------------------------- assembling rows from scenarios

# Tool tables of recently simulated registries. Widgets and sweeps re-simulate one registry many
# times, and measuring it is most of a simulate call. The key is the identity of the registry's
# (frozen) Server objects, which the entry keeps alive so that no other object can take their ids.
_MEASURED: dict = {}
_MEASURED_MAX = 8


def _measured(reg: Registry, **options) -> ToolTable:
    """`tool_table(reg, **options)`, measured once per registry contents and options."""
    servers = tuple(reg.servers.values())
    cal = options.get("calibration")
    stamp = os.stat(cal).st_mtime_ns if cal and os.path.exists(cal) else None  # an edited file re-measures
    key = (tuple(map(id, servers)), tuple(sorted(options.items(), key=lambda kv: kv[0])), stamp)
    hit = _MEASURED.pop(key, None)
    table = hit[1] if hit else tool_table(reg, **options)
    _MEASURED[key] = (servers, table)  # re-inserted last: the dict keeps least recently used first
    while len(_MEASURED) > _MEASURED_MAX:
        _MEASURED.pop(next(iter(_MEASURED)))
    return table


class _Context:
    """Caches shared by the rows of one call: tool tables, prices, curves and visible-set profiles, each built once."""

    def __init__(self, reg: Registry | None):
        self.reg = reg
        self.tables: dict = {}
        self.prices: dict = {}
        self.curves: dict = {}
        self.profiles: dict = {}

    def price(self, sc: Scenario) -> Price:
        key = (sc.price_file, repr(sorted((k, sorted(dict(v).items())) for k, v in sc.prices.items())))
        if key not in self.prices:
            self.prices[key] = load_prices(sc.price_file, overrides=sc.prices)
        return price_for(sc.model, self.prices[key])

    def curve(self, sc: Scenario) -> AccuracyCurve:
        key = repr(sc.accuracy_curve)
        if key not in self.curves:
            self.curves[key] = sc.curve()
        return self.curves[key]

    def table(self, sc: Scenario, price: Price) -> ToolTable:
        render, model = rendering_for(sc.render, sc.model, price.provider)
        if self.reg is None:
            if sc.tool_tokens is None or sc.registry_size is None:
                raise InputError("without a registry, give tool_tokens (average tokens per tool) and "
                                 "registry_size (tools in the registry) for the average-size mode")
            key = ("avg", sc.tool_tokens, sc.registry_size, render, model)
            if key not in self.tables:
                overhead, why = fixed_overhead(render, model)
                self.tables[key] = average_table(sc.tool_tokens, sc.registry_size, overhead=overhead, overhead_note=why)
            return self.tables[key]
        key = (render, sc.encoding, model, sc.calibration)
        if key not in self.tables:
            self.tables[key] = _measured(self.reg, render=render, encoding=sc.encoding, model=model,
                                         calibration=sc.calibration)
        return self.tables[key]

    def profile(self, sc: Scenario, table: ToolTable) -> Profile:
        key = (id(table), sc.strategy, sc.visible, sc.tools, repr(sc.phases), sc.overflow, sc.core,
               sc.retrieval_k, sc.search_k, sc.searches, sc.search_tool_tokens, sc.overhead_tokens)
        if key not in self.profiles:
            self.profiles[key] = profile(table, sc)
        return self.profiles[key]


def expected_calls(searches, steps, wrong, wrong_steps):
    """Tool calls per task: `wrong` is the share of calls that pick a wrong tool, so the steps - 1
    useful calls take (steps - 1) / (1 - wrong) calls in all, (steps - 1) x wrong / (1 - wrong) of
    them wrong; each wrong call costs `wrong_steps` requests."""
    return searches + (steps - 1) * (1 + wrong_steps * wrong / (1 - wrong))


def _rows(ctx: _Context, groups: list[Scenario], pick: np.ndarray | None = None, steps: np.ndarray | None = None):
    """Row-wise parameter arrays for expected-value runs. Row i is `groups[pick[i]]` with
    `steps[i]` requests (by default one row per group with the group's own steps)."""
    g = len(groups)
    if pick is None:
        pick = np.arange(g)
        steps = np.array([sc.steps.expected() for sc in groups])
    n = len(pick)
    g_prices = [ctx.price(sc) for sc in groups]
    g_profs = [ctx.profile(sc, ctx.table(sc, pr)) for sc, pr in zip(groups, g_prices, strict=True)]
    col = lambda xs: np.asarray(xs, dtype=float)[pick].reshape(n, 1)  # noqa: E731
    searches = col([p.searches for p in g_profs])[:, 0]
    wrong_steps = col([sc.wrong_call_steps for sc in groups])[:, 0]
    uniq: dict[int, int] = {}
    for p in g_profs:
        uniq.setdefault(id(p), len(uniq))
    profs = list({id(p): p for p in g_profs}.values())
    prof_of_row = np.array([uniq[id(p)] for p in g_profs])[pick]

    def expand(k: int):
        mats = [p.expand(k) for p in profs]
        return (np.stack([m[i] for m in mats])[prof_of_row] for i in range(4))

    # Accuracy: mean visible tools over the task's requests (before wrong calls) -> wrong rate, success.
    base_requests = searches + steps
    _, _, visible, _ = expand(int(np.max(np.ceil(base_requests))) + 1)
    mean_visible = _at(_cum(visible), base_requests) / base_requests
    wrong = np.zeros(n)
    success = np.ones(n)
    curve_of_group = np.array([-1 if not sc.accuracy else hash(repr(sc.accuracy_curve)) for sc in groups])
    for key in set(curve_of_group.tolist()) - {-1}:
        rows = np.isin(pick, np.flatnonzero(curve_of_group == key))
        c = ctx.curve(groups[int(np.flatnonzero(curve_of_group == key)[0])])
        wrong[rows] = c.wrong_rate(mean_visible[rows])
        success[rows] = c.success_rate(mean_visible[rows])
    calls = expected_calls(searches, steps, wrong, wrong_steps)
    k = int(np.max(np.ceil(calls))) + 2  # enough requests for the longest task: its calls and answer
    prefix, loaded, visible, block = expand(k)

    response = col([sc.response_tokens.expected() for sc in groups])
    search_res = col([sc.search_result_tokens for sc in groups])
    results = np.where(np.arange(k)[None, :] < searches[:, None], search_res, response)
    modes = [resolve_caching(sc.caching, pr.provider) for sc, pr in zip(groups, g_prices, strict=True)]
    params = dict(
        overhead=col([p.overhead for p in g_profs]), system=col([sc.system_prompt_tokens for sc in groups]),
        user=col([sc.user_message_tokens for sc in groups]), call=col([sc.call_tokens for sc in groups]),
        mode=col([CACHE_MODES[m] for m in modes]), min_cache=col([p.min_cache_tokens for p in g_prices]),
        increment=col([caching_rules(p.provider).get("cache_increment", 1) for p in g_prices]))
    money = dict(answer=col([sc.answer_tokens for sc in groups]), p_in=col([p.input for p in g_prices]),
                 p_out=col([p.output for p in g_prices]),
                 p_write=col([cache_write_price(p, sc.cache_ttl, sc.model) for sc, p in zip(groups, g_prices, strict=True)]),
                 p_read=col([p.cache_read for p in g_prices]), window=col([p.context_window for p in g_prices]))
    out = dict(prefix=prefix, loaded=loaded, visible=visible, block=block, results=results, params=params,
               money=money, calls=calls, steps=steps, searches=searches, wrong=wrong, success=success,
               mean_visible=mean_visible, prices=g_prices, profiles=g_profs, pick=pick, groups=groups,
               modes=np.asarray(modes, dtype=object)[pick])
    out["storage_month"] = _storage_per_month(out, groups)
    tasks = np.asarray([sc.tasks_per_day * sc.days_per_month for sc in groups], dtype=float)[pick]
    # Per attempt: a month's storage shared by its attempts (tasks_per_month / success of them).
    out["money"]["storage"] = np.divide(out["storage_month"] * success, tasks, out=np.zeros(n),
                                        where=tasks > 0).reshape(n, 1)
    out["limits"] = [limit_problems(pr.provider, max(p.visible), ctx.table(sc, pr).names if ctx.reg is not None else ())
                     for sc, pr, p in zip(groups, g_prices, g_profs, strict=True)]
    return out


def _storage_per_month(rows: dict, groups: list[Scenario]) -> np.ndarray:
    """Dollars a month for explicit caches: each distinct tools block a task uses is held in a cache
    all day (cache_storage per million tokens per hour x 24 x days_per_month)."""
    n = len(rows["pick"])
    out = np.zeros(n)
    explicit = np.flatnonzero(rows["modes"] == "explicit")
    if not len(explicit):
        return out
    prm = rows["params"]
    cacheable = prm["overhead"] * (rows["visible"] > 0) + rows["prefix"] + prm["system"]
    reached = np.arange(rows["prefix"].shape[1])[None, :] < np.ceil(rows["calls"] + 1)[:, None]
    for i in explicit:
        sc, price = rows["groups"][rows["pick"][i]], rows["prices"][rows["pick"][i]]
        if price.cache_storage is None:
            raise InputError(f"caching 'explicit' needs {sc.model}'s cache storage price (cache_storage, per "
                             "million tokens per hour); add it with prices={MODEL: {'cache_storage': ...}}")
        sizes = {b: c for b, c, r in zip(rows["block"][i], cacheable[i], reached[i], strict=True)
                 if r and c >= prm["min_cache"][i, 0] and c > 0}
        out[i] = sum(sizes.values()) * price.cache_storage / PER_MILLION * 24 * sc.days_per_month
    return out


def _summaries(rows: dict) -> pd.DataFrame:
    req = requests(rows["prefix"], rows["loaded"], rows["visible"], rows["block"], results=rows["results"],
                   **rows["params"])
    tot = task_totals(req, rows["calls"], call=rows["params"]["call"], **rows["money"])
    n_requests = rows["calls"] + 1
    groups, pick = rows["groups"], rows["pick"]
    per_group = lambda attr: np.asarray([getattr(sc, attr) for sc in groups], dtype=object)[pick]  # noqa: E731
    tasks = np.asarray([sc.tasks_per_day * sc.days_per_month for sc in groups], dtype=float)[pick]
    fits = tot["fits"]
    nan_unless = lambda x: np.where(fits, x, np.nan)  # noqa: E731  # over the window: not priced
    per_completed = tot["cost"] / rows["success"]
    return pd.DataFrame({
        "model": per_group("model"),
        "strategy": per_group("strategy"),
        "caching": rows["modes"],
        "visible": per_group("visible"),
        "steps": rows["steps"],
        "mean_visible": rows["mean_visible"],
        "wrong_rate": rows["wrong"],
        "success": rows["success"],
        "expected_requests": n_requests,
        "tool_tokens_per_request": tot["tools"] / n_requests,
        "tool_tokens_per_task": tot["tools"],
        "overhead_tokens_per_task": tot["overhead"],
        "input_tokens_per_task": tot["input"],
        "cache_write_tokens": tot["cache_write"],
        "cache_read_tokens": tot["cache_read"],
        "output_tokens_per_task": tot["output"],
        "max_input_tokens": tot["max_input"],
        "context_window": rows["money"]["window"][:, 0],
        "fits": fits,
        "cost_per_request": nan_unless(tot["cost"] / n_requests),
        "cost_per_task": nan_unless(tot["cost"]),
        "cost_per_completed_task": nan_unless(per_completed),
        "tasks_per_month": tasks,
        "cost_per_month": nan_unless(per_completed * tasks),
        "cache_storage_per_month": rows["storage_month"],
        "within_limits": np.asarray([not p for p in rows["limits"]], dtype=bool)[rows["pick"]],
    })


def _assumptions(sc: Scenario, price: Price, prof: Profile, table: ToolTable, curve: AccuracyCurve | None) -> dict:
    render, _ = rendering_for(sc.render, sc.model, price.provider)
    a = sc.assumptions()
    a["price"] = price.as_dict()
    a["accuracy_curve"] = curve.as_dict() if (sc.accuracy and curve is not None) else "off (wrong_rate 0, success 1)"
    a["visible_set"] = prof.description
    a["tool_tokens_method"] = table.method
    a["overhead_tokens"] = prof.overhead
    a["model"] = sc.model
    a["rules"] = ("wrong_rate is the share of tool calls that are wrong, so expected calls = searches + "
                  "(steps - 1) x (1 + wrong_call_steps x wrong_rate / (1 - wrong_rate)), i.e. (steps - 1) / "
                  "(1 - wrong_rate) with one request per wrong call; "
                  "fractional counts are linear between whole counts; cost per completed task = cost per "
                  "task / success; month = tasks_per_day x days_per_month completed tasks; a task with a "
                  "request over the context window is not priced (NaN)")
    mode = resolve_caching(sc.caching, price.provider)
    rules = caching_rules(price.provider)
    a["caching_used"] = mode if sc.caching != "auto" else f"{mode} (auto: {price.provider or 'unknown'} provider default)"
    if rules:
        a["caching_rules"] = {k: rules[k] for k in ("source", "url", "as_of", "note") if k in rules}
    if not table.exact and render in ("openai", "anthropic"):
        a["tool_tokens_method"] += f"; plus {table.method_overhead or 'no fixed overhead'}"
    a["render_used"] = render
    if render == "anthropic" and table.exact:
        a["tool_tokens_note"] = ("Claude's tokenizer is not public: per-tool counts are estimates from an "
                                 "o200k_base count unless calibrated (toolsurvey calibrate)"
                                 if not sc.calibration else f"calibrated with {sc.calibration}")
    return a


# ---------------------------------------------------------------- public API

def simulate(reg: Registry | None, scenario: Scenario | None = None, **changes) -> Run:
    """Simulate one scenario on `reg` (None: average-size mode): per-request table and per-task summary.

    `changes` replace scenario fields. With `scenario.samples > 0` the run adds Monte Carlo draws and
    p50/p90/p99. Raises InputError for an unknown model, a phase matching no tool and other bad input.
    """
    sc = dataclasses.replace(scenario or Scenario(), **changes)
    ctx = _Context(reg)
    rows = _rows(ctx, [sc])
    summary = _summaries(rows).iloc[0].to_dict()
    price, prof = rows["prices"][0], rows["profiles"][0]
    table = ctx.table(sc, price)
    curve = ctx.curve(sc) if sc.accuracy else None
    warns = list(prof.warnings)
    if not summary["fits"]:
        warns.append(f"a request of {summary['max_input_tokens']:,.0f} input tokens exceeds {sc.model}'s "
                     f"context window of {price.context_window:,}; the task is not priced")
    warns += [f"{sc.model}: {p}" for p in rows["limits"][0]]
    for w in warns:
        _warnings.warn(w, stacklevel=2)
    run = Run(sc, _steps_table(sc, rows, prof), summary, _assumptions(sc, price, prof, table, curve), warns)
    if sc.samples:
        run.draws, run.percentiles, run.sampled = _monte_carlo(sc, rows, prof, curve)
    return run


def _steps_table(sc: Scenario, rows: dict, prof: Profile) -> pd.DataFrame:
    """One row per request of the expected task; `weight` (1, or the fraction of tasks that reach
    the last request) times each row's cost adds up to the task's cost."""
    m = float(rows["calls"][0])
    whole = int(np.floor(m))
    frac = m - whole
    k = whole + (2 if frac > 0 else 1)
    sl = lambda x: x[:, :k]  # noqa: E731
    req = requests(*(sl(rows[x]) for x in ("prefix", "loaded", "visible", "block")),
                   results=sl(rows["results"]), **rows["params"])
    price = rows["prices"][0]
    call, answer = float(rows["params"]["call"][0, 0]), float(rows["money"]["answer"][0, 0])
    weight = np.ones(k)
    output = np.full(k, call)
    kind = ["search" if i < prof.searches else "call" for i in range(k)]
    if frac > 0:
        weight[-1] = frac
        output[whole] = (1 - frac) * answer + frac * call
        output[-1] = answer
        kind[whole], kind[-1] = "call or answer", "answer"
    else:
        output[-1] = answer
        kind[-1] = "answer"
    df = pd.DataFrame({"request": np.arange(1, k + 1), "kind": kind, "phase": prof.labels(k),
                       "weight": weight, "visible": rows["visible"][0, :k]})
    for col in ("tools", "overhead", "history", "input", "uncached", "cache_write", "cache_read"):
        df[col] = req[col][0]
    df["system"] = float(rows["params"]["system"][0, 0])
    df["user"] = float(rows["params"]["user"][0, 0])
    df["output"] = output
    df["fits"] = df["input"] <= price.context_window
    df["cost"] = (df["uncached"] * price.input + df["cache_write"] * price.cache_write
                  + df["cache_read"] * price.cache_read + df["output"] * price.output) / PER_MILLION
    df.loc[~df["fits"], "cost"] = np.nan
    cols = ["request", "kind", "phase", "weight", "visible", "tools", "overhead", "system", "user", "history",
            "input", "uncached", "cache_write", "cache_read", "output", "fits", "cost"]
    return df[cols]


def draw_tasks(sc: Scenario, prof: Profile, curve: AccuracyCurve | None, rng: np.random.Generator) -> dict:
    """Monte Carlo draws: steps per task, wrong calls, and each call's result size (rows x K)."""
    n = sc.samples
    steps = np.maximum(1, np.rint(sc.steps.draw(rng, n))).astype(int)
    s = prof.searches
    k0 = int(s + steps.max()) + 1
    _, _, vis, _ = prof.expand(k0)
    cv = np.concatenate([[0.0], np.cumsum(vis)])
    mean_visible = cv[s + steps] / (s + steps)
    if curve is None:
        wrong_rate, success = np.zeros(n), np.ones(n)
    else:
        wrong_rate, success = curve.wrong_rate(mean_visible), curve.success_rate(mean_visible)
    # Wrong calls before the steps - 1 useful ones, each call wrong with probability wrong_rate:
    # negative binomial, mean (steps - 1) x wrong_rate / (1 - wrong_rate), as in expected_calls.
    useful = steps - 1
    wrong = np.where(useful > 0, rng.negative_binomial(np.maximum(useful, 1), 1 - wrong_rate), 0)
    calls = s + steps - 1 + wrong * sc.wrong_call_steps
    k = int(calls.max()) + 2
    results = np.maximum(0, np.rint(sc.response_tokens.draw(rng, (n, k))))
    results[:, :s] = sc.search_result_tokens
    return dict(steps=steps, wrong=wrong, calls=calls.astype(float), results=results,
                mean_visible=mean_visible, success=success)


def _monte_carlo(sc: Scenario, rows: dict, prof: Profile, curve: AccuracyCurve | None):
    d = draw_tasks(sc, prof, curve, np.random.default_rng(sc.seed))
    n, k = d["results"].shape
    mats = [np.broadcast_to(m, (n, k)) for m in prof.expand(k)]
    params = {key: np.broadcast_to(v, (n, 1)) for key, v in rows["params"].items()}
    money = {key: np.broadcast_to(v, (n, 1)) for key, v in rows["money"].items()}
    req = requests(*mats, results=d["results"], **params)
    tot = task_totals(req, d["calls"], call=params["call"], **money)
    cost = np.where(tot["fits"], tot["cost"], np.nan)
    draws = pd.DataFrame({"steps": d["steps"], "wrong_calls": d["wrong"], "requests": d["calls"] + 1,
                          "mean_visible": d["mean_visible"], "success": d["success"],
                          "tool_tokens": tot["tools"], "input_tokens": tot["input"],
                          "output_tokens": tot["output"], "max_input_tokens": tot["max_input"],
                          "fits": tot["fits"], "cost": cost})
    q = [0.5, 0.9, 0.99]
    cols = ["requests", "tool_tokens", "input_tokens", "output_tokens", "cost"]
    pct = draws[cols].quantile(q)
    pct.loc["mean"] = draws[cols].mean()
    pct.index = ["p50", "p90", "p99", "mean"]
    pct["cost_per_completed_task"] = pct["cost"] / float(np.mean(d["success"]))
    pct.attrs.update(samples=n, seed=sc.seed)
    return draws, pct, d


# Rows per chunk of a sweep x requests per row: each per-request array of a chunk (there are some 25)
# holds this many floats, 16 MB, so a sweep of a million scenarios never holds them all at once.
_CHUNK_CELLS = 2_000_000


def _chunked_summaries(ctx: _Context, groups: list[Scenario], pick: np.ndarray | None,
                       steps: np.ndarray | None) -> tuple[pd.DataFrame, dict]:
    """`_summaries(_rows(...))` a chunk of rows at a time (each row is computed on its own, so the
    numbers are the same), with the price, limit problems and profile of every group used."""
    if pick is None:
        pick, steps = np.arange(len(groups)), np.array([sc.steps.expected() for sc in groups])
    size = max(1, int(_CHUNK_CELLS // (2 * float(np.max(steps)) + 4)))  # ~requests of the longest task
    tables, profiles, prices, limits = [], {}, [], []
    for start in range(0, len(pick), size):
        chunk = pick[start:start + size]
        used = np.unique(chunk)
        rows = _rows(ctx, [groups[i] for i in used], np.searchsorted(used, chunk), steps[start:start + size])
        tables.append(_summaries(rows))
        profiles.update((id(p), p) for p in rows["profiles"])
        prices += rows["prices"]
        limits += rows["limits"]
    out = tables[0] if len(tables) == 1 else pd.concat(tables, ignore_index=True)
    return out, {"profiles": list(profiles.values()), "prices": prices, "limits": limits}


def sweep(reg: Registry | None, scenario: Scenario | None = None, **grid) -> pd.DataFrame:
    """Every combination of the listed field values (e.g. steps=range(1, 21), visible=[6, 12],
    strategy=[...], model=[...]) applied to `scenario`: one summary row per combination.

    A scalar value is applied to every row. The result's `attrs["assumptions"]` holds the base
    scenario's assumptions and every price row used. Raises InputError for unknown fields or values.
    """
    base = scenario or Scenario()
    known = {f.name for f in dataclasses.fields(Scenario)}
    bad = sorted(set(grid) - known)
    if bad:
        raise InputError(f"sweep: unknown field(s) {', '.join(bad)}; expected Scenario fields: {', '.join(sorted(known))}")
    axes = {k: (list(v) if isinstance(v, (list, tuple, range, np.ndarray, pd.Index)) else [v]) for k, v in grid.items()}
    for k, v in axes.items():
        if not v:
            raise InputError(f"sweep: {k} has no values")
    # Scenarios are built (and validated) once per combination of the other fields; steps, the
    # usual long axis, varies per row without building a Scenario for each.
    step_values = axes.pop("steps", None)
    if step_values is not None and len(step_values) == 1:
        axes["steps"], step_values = step_values, None
    fixed = {k: v[0] for k, v in axes.items() if len(v) == 1}
    base = dataclasses.replace(base, **fixed)
    varying = [k for k in axes if k not in fixed]
    groups = [dataclasses.replace(base, **dict(zip(varying, combo, strict=True))) if varying else base
              for combo in itertools.product(*(axes[k] for k in varying))]
    pick = steps = None  # one row per group, at the group's own steps
    if step_values is not None:
        step_exp = np.array([dataclasses.replace(base, steps=v).steps.expected() for v in step_values])
        pick = np.repeat(np.arange(len(groups)), len(step_exp))
        steps = np.tile(step_exp, len(groups))
        varying.append("steps")
        axes["steps"] = step_values
    ctx = _Context(reg)
    out, rows = _chunked_summaries(ctx, groups, pick, steps)
    row_group = pick if pick is not None else np.arange(len(groups))
    for k in varying:
        if k not in out.columns:
            labels = [_label(getattr(sc, k)) for sc in groups]  # a distribution shows as its number
            out.insert(0, k, np.asarray(labels, dtype=object)[row_group])
    warns = sorted({w for p in rows["profiles"] for w in p.warnings}
                   | {f"{pr.model}: {w}" for pr, lim in zip(rows["prices"], rows["limits"], strict=True) for w in lim})
    if (~out["fits"]).any():
        warns.append(f"{int((~out['fits']).sum())} scenario(s) exceed the model's context window and are not priced")
    curve = ctx.curve(base) if base.accuracy else None
    # The first combination stands for the base (the swept fields are listed apart): the base's own
    # model may not suit a swept setting (e.g. explicit caching swept over Gemini models).
    first = groups[0]
    price0 = ctx.price(first)
    table0 = ctx.table(first, price0)
    out.attrs["assumptions"] = {**_assumptions(first, price0, ctx.profile(first, table0), table0, curve),
                                "swept": {k: [_plain(x) for x in axes[k]] for k in varying},
                                "prices": {p.model: p.as_dict() for p in {p.model: p for p in rows["prices"]}.values()}}
    out.attrs["warnings"] = warns
    for w in warns:
        _warnings.warn(w, stacklevel=2)
    return out


def _plain(x: Any) -> Any:
    return x.item() if hasattr(x, "item") else x


def _label(x: Any) -> Any:
    return x.describe() if isinstance(x, Dist) else x


def description_sweep(table: pd.DataFrame, scenario: Scenario | None = None, lengths=range(0, 401, 10), *,
                      effect: Any = None) -> pd.DataFrame:
    """Cost per task with every tool's description set to each of `lengths` tokens and the rest of
    each tool as measured in `table` (a `footprint`), priced in average-size mode with strategy
    "all" under the scenario's visible cap.

    With the scenario's accuracy effect on, the catalog-size curve's error rates are scaled by the
    description-length assumption (`effect`: None for the bundled one, a DescriptionEffect or a
    path, False for none) relative to the registry's current mean description length. Adds the
    columns description_tokens, tool_tokens, wrong_multiplier and failure_multiplier; raises
    InputError for a malformed effect file or scenario.
    """
    from .accuracy import DescriptionEffect, load_description_effect

    sc = scenario or Scenario()
    tools = table[table["kind"] == "tool"]
    rest = float((tools["tokens"] - tools["description"]).mean()) if len(tools) else 0.0
    now = float(tools["description"].mean()) if len(tools) else 0.0
    lengths = [float(d) for d in lengths]
    base = dataclasses.replace(sc, strategy="all", phases=None, tools=(), core=(),
                               registry_size=max(len(tools), 1), tool_tokens=rest)
    eff = None
    if effect is not False and sc.accuracy:
        eff = effect if isinstance(effect, DescriptionEffect) else load_description_effect(effect)
        wrong, failure = eff.relative(lengths, now)
    else:
        wrong = failure = np.ones(len(lengths))
    curve = sc.curve()
    rows = [sweep(None, base, tool_tokens=rest + d, accuracy_curve=curve.scaled(w, f))
            for d, w, f in zip(lengths, wrong, failure, strict=True)]
    grid = pd.concat(rows, ignore_index=True)
    grid.insert(0, "description_tokens", lengths)
    grid["tool_tokens"] = [rest + d for d in lengths]
    grid["wrong_multiplier"], grid["failure_multiplier"] = wrong, failure
    grid.attrs["assumptions"] = {
        **rows[0].attrs["assumptions"], "accuracy_curve": curve.as_dict(),
        "description_effect": None if eff is None else {
            "points": [{"tokens": t, "wrong": w, "failure": f}
                       for t, w, f in zip(eff.tokens, eff.wrong, eff.failure, strict=True)],
            "relative_to_mean_description_tokens": now, "source": eff.source, "as_of": eff.as_of}}
    return grid
