"""Monte Carlo: sampled tasks (steps, wrong calls, result sizes) priced like the expected one, and
the percentiles of their figures."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .accuracy import AccuracyCurve
from .cost import requests, task_totals
from .scenario import Scenario
from .strategies import Profile


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
    success = success * prof.found  # search misses fail a share of tasks (model/misses.py)
    # Wrong calls before the steps - 1 useful ones, each call wrong with probability wrong_rate:
    # negative binomial, mean (steps - 1) x wrong_rate / (1 - wrong_rate), as in expected_calls.
    useful = steps - 1
    wrong = np.where(useful > 0, rng.negative_binomial(np.maximum(useful, 1), 1 - wrong_rate), 0)
    calls = s + steps - 1 + wrong * sc.wrong_call_steps
    k = int(calls.max()) + 2
    results = np.maximum(0, np.rint(sc.response_tokens.draw(rng, (n, k)))) * sc.calls_per_step
    results[:, :s] = sc.search_result_tokens
    return dict(steps=steps, wrong=wrong, calls=calls.astype(float), results=results,
                mean_visible=mean_visible, success=success)


def monte_carlo(sc: Scenario, rows: dict, prof: Profile, curve: AccuracyCurve | None
                ) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """`sc.samples` sampled tasks priced with the row parameters of `rows`: (one row per task, the
    p50/p90/p99 and mean of their figures, the raw draws)."""
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
