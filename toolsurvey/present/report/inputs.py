"""What the report's sections read, resolved once by `build.report`, and the what-if runs they price against it."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ...advice.pricing import price_findings
from ...advice.visibility import visibility
from ...model.simulate import simulate

USAGE_WINDOW_DAYS = 90  # "never called" means: not in the log's last 90 days (the audit window of the Interview Reference's “Tool registry design”)


@dataclass
class Inputs:
    """The registry's footprint, today's scenario and its run, the audit, and the usage log when given."""

    reg: Any
    table: pd.DataFrame  # the footprint, measured as the simulation counts it
    scenario: Any  # today's scenario: the one given, with the usage log's mean tool result
    run: Any  # the simulation of `scenario`
    findings: pd.DataFrame
    given_response_tokens: float  # the scenario's result size before the log's replaced it
    top: int = 15
    usage: Any = None  # usage.summarize table
    usage_log: Any = None  # the Usage it was made from
    missing: dict[str, str] = field(default_factory=dict)  # input -> why it is missing
    stated: set = field(default_factory=set)  # scenario fields given by a file or an option
    own: Any = None  # the servers the user owns
    levers: list[tuple[str, float]] = field(default_factory=list)  # set by the summary
    plan_line: str = ""  # set by the plan section, quoted by the summary
    retrieval: Any = None  # the retrieval evaluation of the queries given (measuring.retrieval)
    deferral: Any = None  # advice.deferral.MeasuredDeferral: deferred loading measured end to end (eval --defer)
    search_notes: list[str] = field(default_factory=list)  # search levers that lose money at the measured rate
    eval: Any = None  # the eval given (SelectionEval or SweepEval, `stored_eval`), for "What the model picks"
    eval_name: str = ""  # its file's name, when read from one


def stored_eval(value: Any) -> tuple[Any, str]:
    """(the eval, its file's name or "") from what `report(eval=...)` takes: None, an eval file's path
    (`toolsurvey eval --format json` or its --log), or an eval already read. Read here once, so every
    section that uses the eval gets the same object."""
    import os

    from ...measuring.selection.stored import as_eval

    return as_eval(value), (os.fspath(value) if isinstance(value, (str, os.PathLike)) else "")


def simulate_quietly(reg: Any, sc: Any, **changes) -> Any:
    """`simulate` with its warnings kept on the run (they are printed in the method section).
    What-if runs (any change) use expected values only: Monte Carlo is for the main run's spread."""
    if changes:
        changes.setdefault("samples", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return simulate(reg, sc, **changes)


def month(run: Any) -> float:
    """A run's cost per month."""
    return float(run.summary["cost_per_month"])


def token_rate(inp: Inputs) -> float:
    """Dollars per month that one more token in every request costs under the scenario (from the
    simulation itself: one run with 1,000 extra per-request tokens)."""
    base = inp.run
    more = simulate_quietly(inp.reg, inp.scenario, overhead_tokens=float(base.assumptions["overhead_tokens"]) + 1000)
    return (month(more) - month(base)) / 1000


def priced(inp: Inputs) -> pd.Series:
    """Each finding's tokens per request, counted once and weighted by how often its tool is visible
    under the scenario (advice.price_findings: the audit summary and the plan price the same way)."""
    return price_findings(inp.findings, visibility(inp.reg, inp.run))
