"""The section on method and assumptions: how tokens are counted, the price, the accuracy curve and
the scenario."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from ...model.assumed import FIELD_LABELS
from ...model.scenario import SESSION_DEFAULTS
from .document import Section, Table
from .inputs import Inputs

# The run's fields the assumptions table shows, in this order (labels: model.assumed.FIELD_LABELS).
SHOWN_FIELDS = ("name", "model", "steps", "strategy", "visible_set", "caching", "system_prompt_tokens",
                "user_message_tokens", "call_tokens", "response_tokens", "answer_tokens", "wrong_call_steps",
                "tasks_per_day", "days_per_month", "render", "tool_tokens_method", "caching_used", "tool_tokens_note")


def method_section(inp: Inputs) -> Section:
    """The tokenizer and rendering, the simulation's rules, the price, the accuracy curve and the scenario."""
    a, run = inp.table.attrs, inp.run
    s = Section("method", "Method and assumptions")
    s.text.append(f"Tokens are counted with the {a['encoding']} tokenizer (tiktoken) on the text the model "
                  f"receives. Rendering: {a['method']}.")
    if a.get("model"):
        s.text.append(f"Provider formatting constants are those of {a['model']}.")
    s.text.append("Costs come from toolsurvey's simulation of an agent task: at every step the model "
                  "receives the visible tool definitions, the system prompt, the user message and "
                  "every earlier tool call and result; " + run.assumptions["rules"] + ".")
    price = run.assumptions["price"]
    s.tables.append(Table("prices", "Price used (US dollars per million tokens)", pd.DataFrame([{
        "model": price["model"], "input_usd": price["input"], "output_usd": price["output"],
        "cache_write_usd": price["cache_write"], "cache_read_usd": price["cache_read"],
        "context_window": price["context_window"], "as_of": price["as_of"], "source": price["source"]}])))
    curve = run.assumptions["accuracy_curve"]
    if isinstance(curve, dict):
        s.tables += _accuracy_curve(curve)
    else:
        s.notes.append(f"Accuracy effect: {curve}.")
    if "session_rules" in run.assumptions:
        s.text.append("The task is a session: " + run.assumptions["session_rules"] + ".")
    shown = SHOWN_FIELDS + (tuple(SESSION_DEFAULTS) if run.scenario.is_session() else ())
    rows = [{"assumption": FIELD_LABELS[k], "value": _plain(run.assumptions.get(k)), "field": k}
            for k in shown if run.assumptions.get(k) not in (None, "", [], {})]
    s.tables.append(Table("assumptions", "Scenario assumptions", pd.DataFrame(rows)))
    s.notes += [f"Simulation warning: {w}" for w in run.warnings]
    s.notes += [f"Missing input ({key}): {why}." for key, why in inp.missing.items()]
    s.notes += [f"Input: {src}" for src in a.get("sources", [])]
    return s


def _accuracy_curve(curve: dict) -> list[Table]:
    pts = pd.DataFrame(curve.get("points", []))
    if pts.empty:
        return []
    pts = pts.rename(columns={"visible": "tools_visible", "wrong": "wrong_tool_share", "success": "task_success_share"})
    if "tools_visible" in pts and (pts["tools_visible"] % 1 == 0).all():
        pts["tools_visible"] = pts["tools_visible"].astype("int64")
    return [Table("accuracy_curve", "Accuracy assumption: wrong tool calls and task success vs tools visible", pts,
                  note=f"Source: {curve.get('source', '')}. Read as: "
                       + curve.get("reading", f"{curve.get('interpolation', '')}; outside: {curve.get('outside', '')}")
                       + ".")]


def _plain(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, (dict, list)):
        return json.dumps(v, ensure_ascii=False)
    return str(v)
