"""Each rewrite and each setting in money: the change in dollars per month through the same
`simulate` the plan runs, and the plan stage (or audit rule) it realises."""

from __future__ import annotations

from typing import Any

from ...model.simulate import simulate
from .rewrite import Rewrites
from .rules import RULES


def rewrite_money(rw: Rewrites, scenario: Any) -> dict[str, dict[str, float]]:
    """Per rule (in the order applied): the tool tokens per request and the cost per month it saves,
    each rule simulated on the registry the rules before it left (so the figures add up)."""
    prev = simulate(rw.before, scenario).summary
    out = {}
    for rid, reg in rw.stages.items():
        now = simulate(reg, scenario).summary
        out[rid] = {"tokens_per_request": float(prev["tool_tokens_per_request"] - now["tool_tokens_per_request"]),
                    "cost_per_month": float(prev["cost_per_month"] - now["cost_per_month"]),
                    "realises": f"audit {RULES[rid].audit_rule}" if RULES[rid].audit_rule else "(no audit rule)"}
        prev = now
    return out


def stage_money(plan: Any) -> dict[str, dict[str, float]]:
    """Per action target of the plan's delete and defer stages: tokens per request and cost per month,
    each stage's simulated change in cost shared among its actions as the plan shares tokens per task."""
    runs = plan.runs
    spans = {"delete": ("before", "delete"), "defer": ("gate", "after")}
    out: dict[str, dict[str, float]] = {}
    for kind, (a, b) in spans.items():
        group = [x for x in plan.actions if x.kind == kind]
        if not group or a not in runs:
            continue
        saved = float(runs[a].summary["cost_per_month"] - runs[b].summary["cost_per_month"])
        total = sum(x.tokens_per_request for x in group)
        for x in group:
            share = x.tokens_per_request / total if total else 1 / len(group)
            out[f"{kind}:{x.target}"] = {"tokens_per_request": float(x.tokens_per_request),
                                         "cost_per_month": saved * share}
    return out


def setting_money(setting, money: dict[str, dict[str, float]]) -> dict[str, float]:
    """The plan's figures a setting realises: a tool's action, every deleted tool of a disabled server,
    or the defer stage."""
    if setting.stage == "defer":
        return money.get("defer:(all)", {"tokens_per_request": 0.0, "cost_per_month": 0.0}) \
            if setting.target == "(all)" else {"tokens_per_request": 0.0, "cost_per_month": 0.0}
    keys = [k for k in money if k == f"delete:{setting.target}" or
            ("/" not in setting.target and k.startswith(f"delete:{setting.target}/"))]
    return {f: sum(money[k][f] for k in keys) for f in ("tokens_per_request", "cost_per_month")}
