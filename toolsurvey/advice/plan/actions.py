"""What a plan proposes: its actions, and the `Plan` holding them with the simulated figures."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ...core.caveats import Assumptions, Warnings
from ...core.registry import Registry
from ...core.viewable import Viewable

ACTION_COLUMNS = ["kind", "target", "tools", "detail", "tokens_per_request", "tokens_per_task"]


@dataclass
class Action:
    """One change: what it does, to which tools, and the input tokens it saves per request and per task."""

    kind: str
    target: str  # the tool key acted on (merge: the surviving tool; gate: "(all)")
    tools: tuple[str, ...]
    detail: str
    tokens_per_request: float = 0.0  # tool-definition tokens per request (trim: 0)
    tokens_per_task: float = 0.0     # input tokens per task, from the stage's simulated change
    weight: float = field(default=0.0, repr=False)  # its share of the stage's change (trim: tokens saved)


@dataclass(repr=False)
class Plan(Viewable):
    """The actions, the registries and scenarios before and after, and the simulated figures."""

    view_name = "plan"

    actions: list[Action]
    before: Registry
    after: Registry
    before_scenario: Any
    after_scenario: Any
    runs: dict[str, Any]        # stage name -> simulation Run (before, delete, merge, trim, after)
    table: pd.DataFrame         # the “Tool registry design” chapter's before/after table
    stages: pd.DataFrame        # one row per stage: the simulated figures after each group of actions
    assumptions: Assumptions    # a dict that shows as a short table; .to_dict() for a plain copy
    warnings: Warnings = field(default_factory=Warnings)  # a list that shows as one

    def actions_table(self) -> pd.DataFrame:
        """One row per action (kind, target, tools, detail, tokens saved per request and per task)."""
        rows = [{**dataclasses.asdict(a), "tools": ", ".join(a.tools)} for a in self.actions]
        for r in rows:
            r.pop("weight")
        return pd.DataFrame(rows, columns=ACTION_COLUMNS)
