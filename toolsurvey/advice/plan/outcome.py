"""What a plan reports besides its actions: each action's share of its stage's simulated change, the
figures after each stage, the before/after table and the assumptions behind them."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ...core.caveats import Assumptions, Warnings
from ...core.registry import Registry
from .actions import Action, Plan
from .state import PlanState


def finish(st: PlanState) -> Plan:
    """The Plan of a state every stage has run on."""
    st.warnings += list(dict.fromkeys(str(w.message) for w in st.caught))
    _per_task(st.actions, st.runs)
    stages = _stages(st.runs, st.simulated)
    table = _before_after(st.reg, st.current, st.runs["before"], st.runs["after"], st.summary)
    assumptions = _assumptions(st.runs["before"], st.runs["after"], st.cfg, st.usage, st.window_days,
                               st.response_before, st.response_after, st.phases if st.gate else st.scenario_phases)
    if st.own:
        assumptions["servers owned"] = sorted(st.own)
    assumptions["merges"] = ("among the servers owned: " + ", ".join(sorted(st.own)) if st.own else
                             "within one server only (name the servers you own to merge across them)")
    return Plan(st.actions, st.reg, st.current, st.base, st.scenario, st.runs, table, stages,
                Assumptions(assumptions), Warnings(dict.fromkeys(st.warnings)))


def _per_task(actions: list[Action], runs: dict) -> None:
    """Each group's simulated change in input tokens per task, shared among its actions in proportion
    to their per-request (delete, merge, gate) or per-call (trim) saving, so the actions add up."""
    gated = "gate" if "gate" in runs else "after"  # a defer stage renames the gated stage "gate"
    stage_of = {"delete": ("before", "delete"), "merge": ("delete", "merge"), "trim": ("merge", "trim"),
                "gate": ("trim", gated), "defer": ("gate", "after")}
    for kind, (a, b) in stage_of.items():
        group = [x for x in actions if x.kind == kind]
        if not group:
            continue
        total = runs[a].summary["input_tokens_per_task"] - runs[b].summary["input_tokens_per_task"]
        weights = [x.weight if kind == "trim" else x.tokens_per_request for x in group]
        w = sum(weights)
        for x, wt in zip(group, weights, strict=True):
            x.tokens_per_task = total * wt / w if w else total / len(group)


def _stages(runs: dict, scs: dict) -> pd.DataFrame:
    rows = []
    for name, run in runs.items():
        s = run.summary
        reg = scs[name][0]
        rows.append({"stage": name, "tools": len(reg), "mean_visible": s["mean_visible"],
                     "tool_tokens_per_request": s["tool_tokens_per_request"],
                     "steps_per_task": s["expected_requests"], "wrong_rate": s["wrong_rate"],
                     "success": s["success"], "input_tokens_per_task": s["input_tokens_per_task"],
                     "cost_per_task": s["cost_per_task"], "cost_per_completed_task": s["cost_per_completed_task"]})
    return pd.DataFrame(rows)


# the “Tool registry design” chapter's final table: metric label, Run.summary key, unit
TABLE_ROWS = [
    ("tools registered", None, "tools"),
    ("mean tools visible", "mean_visible", "tools"),
    ("tool definitions per request", "tool_tokens_per_request", "tokens"),
    ("mean steps per task", "expected_requests", "requests"),
    ("wrong-tool selections", "wrong_rate", "share"),
    ("task success", "success", "share"),
    ("input tokens per task", "input_tokens_per_task", "tokens"),
    ("output tokens per task", "output_tokens_per_task", "tokens"),
    ("cost per task", "cost_per_task", "USD"),
    ("cost per completed task", "cost_per_completed_task", "USD"),
    ("cost per month", "cost_per_month", "USD"),
]


def _before_after(before: Registry, after: Registry, rb, ra, summary) -> pd.DataFrame:
    rows = []
    for label, key, unit in TABLE_ROWS:
        b = float(len(before)) if key is None else float(rb.summary[key])
        a = float(len(after)) if key is None else float(ra.summary[key])
        rows.append({"metric": label, "before": b, "after": a, "change": a - b,
                     "change_share": (a - b) / b if b else float("nan"), "unit": unit})
    if summary is not None:
        rows.append({"metric": "repeated identical calls (measured, not simulated)", "unit": "share",
                     "before": float(summary.attrs["repeated_share"]), "after": float("nan"),
                     "change": float("nan"), "change_share": float("nan")})
    return pd.DataFrame(rows, columns=["metric", "before", "after", "change", "change_share", "unit"])


def _assumptions(rb, ra, cfg, usage, window_days, resp_before, resp_after, phases) -> dict[str, Any]:
    a = rb.assumptions
    curve = a.get("accuracy_curve")
    out = {
        "model": a.get("model"),
        "price (USD per million tokens)": a.get("price"),
        "steps per task (before wrong calls)": a.get("steps"),
        "wrong call costs": f"{a.get('wrong_call_steps')} extra request(s)",
        "caching": a.get("caching"),
        "system prompt tokens": a.get("system_prompt_tokens"),
        "user message tokens": a.get("user_message_tokens"),
        "tool call tokens": a.get("call_tokens"),
        "answer tokens": a.get("answer_tokens"),
        "tool definitions": a.get("tool_tokens_method"),
        "accuracy curve": curve,
        "visible set before": rb.assumptions.get("visible_set"),
        "visible set after": ra.assumptions.get("visible_set"),
        "phases": [{"name": p.name, "tools": list(p.tools), "steps": p.steps} for p in phases] or None,
        "merge estimate": "merged tool = longest description + union of parameters (first definition "
                          "wins) + parameters all members require; its tokens are measured",
        "near-duplicates": f"same verb class and object, or TF-IDF cosine >= {cfg['similarity']['threshold']}; "
                           "only clusters sharing action and object are merged",
        "tasks per month": a.get("tasks_per_day", 0) * a.get("days_per_month", 0),
        "rules": a.get("rules"),
    }
    if usage is not None:
        out["usage"] = f"{len(usage):,} calls from {usage.source}; unused = never called in " + (
            f"the last {window_days:g} days" if window_days else "the whole log")
    if resp_before is not None:
        out["tool result tokens per call"] = (f"{resp_before:,.0f} before (mean of the log), "
                                              f"{resp_after:,.0f} after trimming")
        out["trim rule"] = cfg["plan"]
    else:
        out["tool result tokens per call"] = f"{a.get('response_tokens')} (scenario)"
    return out
