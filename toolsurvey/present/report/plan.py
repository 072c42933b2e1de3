"""The section on the consolidation plan: its before/after table, each stage's saving, and its actions."""

from __future__ import annotations

import warnings
from typing import Any

import pandas as pd

from ...advice.plan.stages import plan
from ...errors import ToolsurveyError
from ..units import money, whole
from .document import NOT_PRICED, Section, Table
from .inputs import USAGE_WINDOW_DAYS, Inputs

_UNITS = {"tools": lambda v: f"{v:,.1f}".removesuffix(".0"), "tokens": lambda v: f"{v:,.0f}",
         "requests": lambda v: f"{v:,.1f}", "share": lambda v: f"{v:.1%}", "USD": money}
_WATERFALL = {"before": "today", "delete": "delete unused", "merge": "merge duplicates", "trim": "trim results",
             "after": "gate by phase"}
_STAGES = {"before": "before", "delete": "after deleting unused tools", "merge": "after merging near-duplicates",
          "trim": "after trimming tool results", "after": "after phase gating (the plan)"}


def plan_section(inp: Inputs) -> Section:
    """The plan made from today's scenario and the usage log; sets the summary's line about it."""
    s = Section("plan", "The consolidation plan: before and after")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = plan(inp.reg, usage=inp.usage_log, scenario=inp.scenario, window_days=USAGE_WINDOW_DAYS,
                     own=inp.own, queries=inp.retrieval, eval=inp.eval, deferral=inp.deferral)
    except ToolsurveyError as e:
        s.missing = f"Not written: the plan could not be made for this registry and scenario ({e})."
        return s
    s.text.append(_what_it_does(p, inp))
    if inp.usage_log is None:
        s.notes.append("Without a usage log (--usage) the plan cannot delete unused tools or trim results.")
    s.tables.append(Table("plan", "Before and after the plan", p.table, shown=_shown(p.table)))
    months = {k: float(r.summary["cost_per_month"]) for k, r in p.runs.items()}
    if months["before"] > 0:
        inp.plan_line = _summary_line(p, months)
    stages, names, short = _stages(p, months)
    from ..charts.plan import plan_waterfall

    s.charts.append(plan_waterfall(stages, labels=short))
    stages["stage"] = stages["stage"].map(names).fillna(stages["stage"])
    s.tables.append(Table("plan_stages", "What each stage of the plan saves or costs", stages[[
        "stage", "tools", "mean_visible", "tool_tokens_per_request", "steps_per_task", "success",
        "cost_per_completed_task", "cost_per_month_usd", "saving_per_month_usd", "effect"]],
        note="Each stage is simulated from the one above it; a negative saving is a cost."))
    actions = p.actions_table().sort_values("tokens_per_task", ascending=False, kind="stable").head(inp.top)
    s.tables.append(Table("plan_actions", f"The {len(actions)} actions that save the most tokens per task",
                          actions[["kind", "target", "detail", "tokens_per_request", "tokens_per_task"]]
                          .reset_index(drop=True)))
    s.notes += [f"Plan: {w}" for w in p.warnings[:10]]
    return s


def _what_it_does(p: Any, inp: Inputs) -> str:
    before, after = p.before_scenario, p.after_scenario
    return ("The plan deletes tools nobody calls, merges near-duplicates the user can merge (within one server, "
            "or among the servers they own), trims long tool results and, unless the scenario already does, shows "
            "each step of a task only the tools its phase needs; each stage is simulated with the same "
            f"assumptions. It starts from today's cost above: the {before.strategy} strategy with tool results of "
            f"{before.response_tokens.expected():,.0f} tokens"
            + (" (the usage log's mean)" if inp.usage_log is not None else "")
            + f", and ends with the {after.strategy} strategy and results of {after.response_tokens.expected():,.0f} tokens.")


def _shown(t: pd.DataFrame) -> pd.DataFrame:
    """The before/after table as text, each row in its unit."""
    def in_units(col: str) -> list[str]:
        return [_UNITS.get(u, whole)(v) if v == v else "" for v, u in zip(t[col], t["unit"], strict=True)]

    return pd.DataFrame({"metric": t["metric"], "before": in_units("before"), "after": in_units("after"),
                         "change": [f"{c:+.0%}" if c == c else "" for c in t["change_share"]]})


def _summary_line(p: Any, months: dict[str, float]) -> str:
    change = months["after"] / months["before"] - 1
    verb = "takes the cost down" if change <= 0 else "raises the cost"
    return (f"The consolidation plan {verb} from today's {money(months['before'], missing=NOT_PRICED)} to "
            f"{money(months['after'], missing=NOT_PRICED)} per month ({change:+.0%}) "
            f"and the tools from {len(p.before):,} to {len(p.after):,}; see its section for "
            "each stage's saving or cost.")


def _stages(p: Any, months: dict[str, float]) -> tuple[pd.DataFrame, dict[str, str], dict[str, str]]:
    """Each stage's cost, saving and effect, with the stages' names for the table and for the chart."""
    stages = p.stages.copy()
    stages["cost_per_month_usd"] = [months[k] for k in stages["stage"]]
    delta = (stages["cost_per_month_usd"].shift(1) - stages["cost_per_month_usd"]).fillna(0)
    stages["saving_per_month_usd"] = delta
    stages["effect"] = ["" if i == 0 else f"saves {money(d)} a month" if d > 0 else
                        f"costs {money(-d)} more a month" if d < 0 else "no change" for i, d in enumerate(delta)]
    names, short = dict(_STAGES), dict(_WATERFALL)
    gated = "gate" if "gate" in p.runs else "after"  # a defer stage is the plan's "after"
    if gated == "gate":
        names["gate"], short["gate"] = names["after"].removesuffix(" (the plan)"), short["after"]
        names["after"], short["after"] = "after deferring tools behind the provider's tool search (the plan)", "defer tools"
    if not any(a.kind == "gate" for a in p.actions):
        kept = p.before_scenario.strategy == "phases"
        names[gated] = (("the plan " if gated == "after" else "") + "(the scenario's phase gating, kept throughout)"
                        if kept else ("the plan " if gated == "after" else "") + "(no phase gating)")
        short[gated] = "phase gating kept" if kept else "no phase gating"
    return stages, names, short
