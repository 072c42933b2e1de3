"""Simulate one scenario: the per-request table, the per-task summary, and the assumptions used."""

from __future__ import annotations

import dataclasses
import warnings as _warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..core.caveats import Assumptions, Warnings
from ..core.registry import Registry
from ..core.viewable import Viewable
from ..errors import InputError
from ..providers.caching import caching_rules, resolve_caching
from ..providers.catalog import rendering as rendering_named
from ..providers.catalog import rendering_for
from ..providers.prices import PER_MILLION, Price
from .accuracy import AccuracyCurve
from .context import Context
from .cost import requests, row_parameters, row_summaries
from .misses import search_assumptions
from .montecarlo import monte_carlo
from .scenario import Scenario
from .session import SESSION_RULES, session_summary, steps_for_run
from .strategies import Profile, ToolTable


@dataclass(repr=False)
class Run(Viewable):
    """The result of `simulate`: per-request table, per-task summary, and the assumptions used."""

    view_name = "run"

    scenario: Scenario
    steps: pd.DataFrame
    summary: dict[str, Any]
    assumptions: Assumptions  # a dict that shows as a short table; .to_dict() for a plain copy
    warnings: Warnings = field(default_factory=Warnings)  # a list that shows as one
    draws: pd.DataFrame | None = None        # Monte Carlo: one row per sampled task
    percentiles: pd.DataFrame | None = None  # Monte Carlo: p50/p90/p99 of the per-task figures
    sampled: dict | None = None              # Monte Carlo: the raw draws (results per call, ...)

    def table(self) -> pd.DataFrame:
        """The summary as a one-row DataFrame carrying the assumptions in `attrs`."""
        df = pd.DataFrame([self.summary])
        df.attrs["assumptions"] = self.assumptions
        df.attrs["warnings"] = list(self.warnings)
        return df


def simulate(reg: Registry | None, scenario: Scenario | None = None, **changes) -> Run:
    """Simulate one scenario on `reg` (None: average-size mode): per-request table and per-task summary.

    `changes` replace scenario fields. With `scenario.samples > 0` the run adds Monte Carlo draws and
    p50/p90/p99. Raises InputError for an unknown model, a phase matching no tool and other bad input.
    """
    sc = dataclasses.replace(scenario or Scenario(), **changes)
    ctx = Context(reg)
    if sc.is_session():
        if sc.samples:
            raise InputError("Monte Carlo draws (samples) are not modelled for sessions; set samples = 0")
        return _session_run(ctx, sc)
    rows = row_parameters(ctx, [sc])
    summary = row_summaries(rows).iloc[0].to_dict()
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
    run = Run(sc, _steps_table(sc, rows, prof), summary, Assumptions(run_assumptions(sc, price, prof, table, curve)),
              Warnings(warns))
    if sc.samples:
        run.draws, run.percentiles, run.sampled = monte_carlo(sc, rows, prof, curve)
    return run


def _session_run(ctx: Context, sc: Scenario) -> Run:
    """A run of a session scenario: every thread's requests priced (`Run.steps`), and the summary of a
    session (model/session.py, `session_summary`)."""
    summary, table, rows = session_summary(ctx, sc)
    price, prof = rows["prices"][0], rows["profiles"][0]
    warns = list(prof.warnings) + [f"{sc.model}: {p}" for p in rows["limits"][0]]
    if not summary["fits"]:
        warns.append(f"a request of {summary['max_input_tokens']:,.0f} input tokens exceeds a model's context "
                     "window; the session is not priced")
    for w in warns:
        _warnings.warn(w, stacklevel=3)
    assumptions = run_assumptions(sc, price, prof, ctx.table(sc, price), ctx.curve(sc) if sc.accuracy else None)
    assumptions["session_rules"] = SESSION_RULES
    return Run(sc, steps_for_run(table), summary, assumptions, warns)


def _steps_table(sc: Scenario, rows: dict, prof: Profile) -> pd.DataFrame:
    """One row per request of the expected task; `weight` (1, or the fraction of tasks that reach
    the last request) times each row's cost adds up to the task's cost."""
    m = float(rows["calls"][0])
    whole = int(np.floor(m))
    frac = m - whole
    k = whole + (2 if frac > 0 else 1)
    sl = lambda x: x[:, :k]
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


def run_assumptions(sc: Scenario, price: Price, prof: Profile, table: ToolTable, curve: AccuracyCurve | None) -> dict:
    """What a run of `sc` assumed: the scenario's fields, the price row, the curve, the visible set and how tools were counted."""
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
    rules = caching_rules(price.provider, price.model)
    a["caching_used"] = mode if sc.caching != "auto" else f"{mode} (auto: {price.provider or 'unknown'} provider default)"
    if rules:
        a["caching_rules"] = {k: rules[k] for k in ("source", "url", "as_of", "note") if k in rules}
    rendering = rendering_named(render)
    if not table.exact and rendering.provider is not None:
        a["tool_tokens_method"] += f"; plus {table.method_overhead or 'no fixed overhead'}"
    a["render_used"] = render
    a.update(search_assumptions(sc))
    if rendering.estimate_note and table.exact:
        a["tool_tokens_note"] = rendering.estimate_note if not sc.calibration else f"calibrated with {sc.calibration}"
    return a
