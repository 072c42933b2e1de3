"""The same queries and model on two registries: which queries changed outcome, the accuracy
difference with the exact McNemar test on the paired answers, and what each registry costs per
request and per completed task, through `simulate` with the accuracy each eval measured (in place
of the bundled curve)."""

from __future__ import annotations

import math
import warnings
from typing import Any

from ..core.registry import Registry
from ..errors import InputError
from ..measuring.selection import metrics
from .accuracy import AccuracyCurve
from .scenario import Scenario
from .simulate import simulate

# A price row for a model toolsurvey has no price for: simulate then counts tokens, not dollars.
_UNPRICED = {"input": 0, "output": 0, "cache_write": 0, "cache_read": 0, "context_window": 10_000_000,
             "min_cache_tokens": 0}


def measured_curve(ev, n_tools: int) -> AccuracyCurve | None:
    """A flat accuracy curve from an eval's first answers: task success = accuracy, wrong-call rate =
    answers that called a tool wrongly (wrong, false or invalid call) over all; None when no answer
    was right (no task completes, so there is no cost per completed task)."""
    s = metrics.summary(ev.records)
    n, o = s["queries"], s["outcomes"]
    success = s["accuracy"]["rate"]
    if not n or not success:
        return None
    wrong = min((o["wrong"] + o["false_call"] + o["invalid"]) / n, 0.99)
    return AccuracyCurve((1.0, float(max(n_tools, 2))), (wrong, wrong), (success, success),
                         source=f"measured by toolsurvey eval: {ev.model}, {n} queries")


def task_cost(reg: Registry, ev) -> dict[str, Any]:
    """Tokens per request and per completed task, and cost per completed task (None: no price known
    or no task completed), simulated with the eval's measured accuracy."""
    priced = ev.estimate.price is not None
    curve = measured_curve(ev, len(reg))
    sc = Scenario(model=ev.model, accuracy=curve is not None, accuracy_curve=curve,
                  prices={} if priced else {ev.model: _UNPRICED})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = simulate(reg, sc).summary
    except InputError as e:
        return {"tokens_per_request": None, "tokens_per_completed_task": None, "cost_per_completed_task": None,
                "note": str(e)}
    success = s["success"] if curve is not None else 0.0
    per_task = s["input_tokens_per_task"] + s["output_tokens_per_task"]
    return {"tokens_per_request": float(s["tool_tokens_per_request"]),
            "tokens_per_completed_task": per_task / success if success else None,
            "cost_per_completed_task": float(s["cost_per_completed_task"]) if priced and success
            and math.isfinite(s["cost_per_completed_task"]) else None,
            "note": "" if priced else "no price is known for this model: tokens only"}


def compare_evals(base_reg: Registry, base, new_reg: Registry, new) -> dict[str, Any]:
    """{"changed", "accuracy_before", "accuracy_after", "difference", "b", "c", "p_value", "before",
    "after"}: b counts queries right before and not after, c the reverse; p_value is McNemar's
    exact test on them. Only queries answered in both runs are paired."""
    before = {r["id"]: r for r in metrics.first_answers(base.records)}
    after = {r["id"]: r for r in metrics.first_answers(new.records)}
    ids = [i for i in after if i in before]
    changed = [{"id": i, "query": after[i]["query"], "before": before[i]["outcome"], "after": after[i]["outcome"],
                "called_before": before[i]["called"], "called_after": after[i]["called"]}
               for i in ids if (before[i]["outcome"], before[i]["called"]) != (after[i]["outcome"], after[i]["called"])]
    b = sum(1 for i in ids if metrics.correct(before[i]) and not metrics.correct(after[i]))
    c = sum(1 for i in ids if not metrics.correct(before[i]) and metrics.correct(after[i]))
    acc_b = sum(metrics.correct(before[i]) for i in ids) / len(ids) if ids else None
    acc_a = sum(metrics.correct(after[i]) for i in ids) / len(ids) if ids else None
    return {"paired": len(ids), "changed": changed, "accuracy_before": acc_b, "accuracy_after": acc_a,
            "difference": None if acc_b is None else acc_a - acc_b, "b": b, "c": c, "p_value": metrics.mcnemar(b, c),
            "before": task_cost(base_reg, base), "after": task_cost(new_reg, new)}
