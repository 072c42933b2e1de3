"""The section on how much the result depends on the assumptions: one change at a time, and cost curves."""

from __future__ import annotations

import warnings

import pandas as pd

from ...model.sweeps import sweep
from ..widgets import visible_points
from .document import Section, Table
from .inputs import Inputs, month, simulate_quietly


def sensitivity_section(inp: Inputs) -> Section:
    """The monthly cost with one assumption halved or doubled, the cost curves and the Monte Carlo spread."""
    s = Section("sensitivity", "How much the result depends on the assumptions")
    s.text.append("The monthly cost recomputed with one assumption changed at a time, the others as in "
                  "the scenario. A wide range means that assumption deserves a measurement of its own.")
    s.tables.append(Table("sensitivity", "Cost per month when one assumption changes", _one_at_a_time(inp)))
    s.charts += _cost_curves(inp)
    pct = inp.run.percentiles
    if pct is not None:
        spread = pct.reset_index().rename(columns={"index": "percentile"})
        s.tables.append(Table("spread", f"Spread over {pct.attrs.get('samples', 0):,} simulated tasks "
                              f"(seed {pct.attrs.get('seed')})", spread,
                              note="Steps and result sizes drawn from the scenario's distributions."))
    return s


def _one_at_a_time(inp: Inputs) -> pd.DataFrame:
    sc, base = inp.scenario, month(inp.run)
    steps = sc.steps.expected()
    rows = []

    def row(assumption: str, low_label: str, high_label: str, low: dict, high: dict) -> None:
        lo, hi = month(simulate_quietly(inp.reg, sc, **low)), month(simulate_quietly(inp.reg, sc, **high))
        rows.append({"assumption": assumption, "low": low_label, "cost_per_month_low_usd": lo,
                     "cost_per_month_base_usd": base, "high": high_label, "cost_per_month_high_usd": hi})

    row("Steps per task", f"{steps / 2:g}", f"{steps * 1.5:g}", {"steps": max(1.0, steps / 2)}, {"steps": steps * 1.5})
    row("Tasks per day", f"{sc.tasks_per_day / 2:,.0f}", f"{sc.tasks_per_day * 2:,.0f}",
        {"tasks_per_day": sc.tasks_per_day / 2}, {"tasks_per_day": sc.tasks_per_day * 2})
    if sc.accuracy:
        row("Accuracy curve (more tools, more wrong calls)", "off", "on (as assumed)", {"accuracy": False}, {})
    rt = sc.response_tokens.expected()
    row("Tokens per tool result", f"{rt / 2:,.0f}", f"{rt * 2:,.0f}",
        {"response_tokens": rt / 2}, {"response_tokens": rt * 2})
    return pd.DataFrame(rows)


def _cost_curves(inp: Inputs) -> list:
    """Cost per task against requests per task and against visible tools, today's point marked."""
    from ..charts.catalog import cost_curve

    sc, r = inp.scenario, inp.run.summary
    steps = sc.steps.expected()
    today = f"today ({steps:g} requests, {r['mean_visible']:.0f} tools visible)"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        by_steps = sweep(inp.reg, sc, steps=list(range(1, max(20, int(2 * steps)) + 1)), samples=0)
        by_visible = sweep(inp.reg, sc, visible=visible_points(len(inp.reg), count=12), strategy="all", samples=0)
    return [cost_curve(by_steps, x="steps", today=(steps, r["cost_per_task"]), today_label=today),
            cost_curve(by_visible, x="visible", today=(r["mean_visible"], r["cost_per_task"]), today_label=today,
                       title="Cost per task attempt against tools visible per request (every tool up to the cap)")]
