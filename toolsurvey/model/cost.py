"""The vectorised cost arithmetic of a task: one row per scenario (or Monte Carlo draw), one column
per request.

Every request k of a task carries: provider overhead + the visible tool definitions + the system
prompt + the user message + the history (each earlier call and its result); it returns a tool call,
or the final answer on the last request. See docs/simulation.md for the model and a worked example.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import InputError
from ..providers.caching import cache_write_price, caching_rules, resolve_caching
from ..providers.limits import limit_problems
from ..providers.prices import PER_MILLION, Price
from .context import Context
from .scenario import Scenario
from .strategies import Profile

CACHE_MODES = {"none": 0, "prefix": 1, "incremental": 2, "explicit": 3}


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


def expected_calls(searches, steps, wrong, wrong_steps):
    """Tool calls per task: `wrong` is the share of calls that pick a wrong tool, so the steps - 1
    useful calls take (steps - 1) / (1 - wrong) calls in all, (steps - 1) x wrong / (1 - wrong) of
    them wrong; each wrong call costs `wrong_steps` requests."""
    return searches + (steps - 1) * (1 + wrong_steps * wrong / (1 - wrong))


def row_parameters(ctx: Context, groups: list[Scenario], pick: np.ndarray | None = None,
                   steps: np.ndarray | None = None) -> dict:
    """Row-wise parameter arrays for expected-value runs. Row i is `groups[pick[i]]` with
    `steps[i]` requests (by default one row per group with the group's own steps)."""
    if pick is None:
        pick = np.arange(len(groups))
        steps = np.array([sc.steps.expected() for sc in groups])
    n = len(pick)
    g_prices = [ctx.price(sc) for sc in groups]
    g_profs = [ctx.profile(sc, ctx.table(sc, pr)) for sc, pr in zip(groups, g_prices, strict=True)]
    searches = _per_row([p.searches if p.expected_searches is None else p.expected_searches for p in g_profs],
                        pick)[:, 0]
    wrong_steps = _per_row([sc.wrong_call_steps for sc in groups], pick)[:, 0]
    expand = _expander(g_profs, pick)
    mean_visible, wrong, success = _accuracy(ctx, groups, pick, expand, searches + steps)
    success = success * _per_row([p.found for p in g_profs], pick)[:, 0]  # search misses (model/misses.py)
    calls = expected_calls(searches, steps, wrong, wrong_steps)
    k = int(np.max(np.ceil(calls))) + 2  # enough requests for the longest task: its calls and answer
    prefix, loaded, visible, block = expand(k)
    # a step's results: calls_per_step calls (parallel calls), each of response_tokens
    response = _per_row([sc.response_tokens.expected() * sc.calls_per_step for sc in groups], pick)
    search_res = _per_row([sc.search_result_tokens for sc in groups], pick)
    # the first `searches` calls are searches; a fractional last one (misses, model/misses.py) is that
    # fraction a search result and the rest a tool result
    share = np.clip(searches[:, None] - np.arange(k)[None, :], 0.0, 1.0)
    results = share * search_res + (1 - share) * response
    modes = [resolve_caching(sc.caching, pr.provider) for sc, pr in zip(groups, g_prices, strict=True)]
    out = dict(prefix=prefix, loaded=loaded, visible=visible, block=block, results=results,
               params=_request_params(groups, g_prices, g_profs, modes, pick),
               money=_money_params(groups, g_prices, pick), calls=calls, steps=steps, searches=searches,
               wrong=wrong, success=success, mean_visible=mean_visible, prices=g_prices, profiles=g_profs,
               pick=pick, groups=groups, modes=np.asarray(modes, dtype=object)[pick])
    out["storage_month"] = _storage_per_month(out, groups)
    tasks = np.asarray([sc.tasks_per_day * sc.days_per_month for sc in groups], dtype=float)[pick]
    # Per attempt: a month's storage shared by its attempts (tasks_per_month / success of them).
    out["money"]["storage"] = np.divide(out["storage_month"] * success, tasks, out=np.zeros(n),
                                        where=tasks > 0).reshape(n, 1)
    out["limits"] = [limit_problems(pr.provider, max(p.visible), ctx.table(sc, pr).names if ctx.reg is not None else ())
                     for sc, pr, p in zip(groups, g_prices, g_profs, strict=True)]
    return out


def _per_row(xs: list, pick: np.ndarray) -> np.ndarray:
    """One value per group, as a (rows, 1) column: row i takes group pick[i]'s."""
    return np.asarray(xs, dtype=float)[pick].reshape(len(pick), 1)


def _expander(g_profs: list[Profile], pick: np.ndarray):
    """expand(k): each row's (prefix, loaded, visible, block) arrays for requests 1..k, every distinct
    profile expanded once."""
    uniq: dict[int, int] = {}
    for p in g_profs:
        uniq.setdefault(id(p), len(uniq))
    profs = list({id(p): p for p in g_profs}.values())
    prof_of_row = np.array([uniq[id(p)] for p in g_profs])[pick]

    def expand(k: int):
        mats = [p.expand(k) for p in profs]
        return (np.stack([m[i] for m in mats])[prof_of_row] for i in range(4))

    return expand


def _accuracy(ctx: Context, groups: list[Scenario], pick: np.ndarray, expand, base_requests: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean visible tools over the task's requests (before wrong calls), and the wrong-call and
    success rates each row's curve gives for it (0 and 1 with the accuracy effect off)."""
    n = len(pick)
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
    return mean_visible, wrong, success


def _request_params(groups: list[Scenario], prices: list[Price], profs: list[Profile], modes: list[str],
                    pick: np.ndarray) -> dict:
    """The (rows, 1) token and caching parameters `requests` takes."""
    return dict(
        overhead=_per_row([p.overhead for p in profs], pick),
        system=_per_row([sc.system_prompt_tokens for sc in groups], pick),
        user=_per_row([sc.user_message_tokens for sc in groups], pick),
        call=_per_row([sc.call_tokens for sc in groups], pick),
        mode=_per_row([CACHE_MODES[m] for m in modes], pick),
        min_cache=_per_row([p.min_cache_tokens for p in prices], pick),
        increment=_per_row([caching_rules(p.provider, p.model).get("cache_increment", 1) for p in prices], pick))


def _money_params(groups: list[Scenario], prices: list[Price], pick: np.ndarray) -> dict:
    """The (rows, 1) answer size, prices and context window `task_totals` takes."""
    return dict(
        answer=_per_row([sc.answer_tokens for sc in groups], pick),
        p_in=_per_row([p.input for p in prices], pick),
        p_out=_per_row([p.output for p in prices], pick),
        p_write=_per_row([cache_write_price(p, sc.cache_ttl, sc.model)
                          for sc, p in zip(groups, prices, strict=True)], pick),
        p_read=_per_row([p.cache_read for p in prices], pick),
        window=_per_row([p.context_window for p in prices], pick))


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


def row_summaries(rows: dict) -> pd.DataFrame:
    """One summary row per row of `row_parameters`: tokens, rates and costs per request, task and month."""
    req = requests(rows["prefix"], rows["loaded"], rows["visible"], rows["block"], results=rows["results"],
                   **rows["params"])
    tot = task_totals(req, rows["calls"], call=rows["params"]["call"], **rows["money"])
    n_requests = rows["calls"] + 1
    groups, pick = rows["groups"], rows["pick"]
    per_group = lambda attr: np.asarray([getattr(sc, attr) for sc in groups], dtype=object)[pick]
    tasks = np.asarray([sc.tasks_per_day * sc.days_per_month for sc in groups], dtype=float)[pick]
    fits = tot["fits"]
    nan_unless = lambda x: np.where(fits, x, np.nan)  # over the window: not priced
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
