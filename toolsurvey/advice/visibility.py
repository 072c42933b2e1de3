"""How often each tool is visible under a simulated scenario: the weight of a finding's or a merge's
saving per request."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.registry import Registry


@dataclass
class Visibility:
    """Per slot of a task (a phase, or the whole task), its share of the task's requests and each
    tool's chance of being visible in it; `share(*keys)` is the share of requests showing them all."""

    weights: np.ndarray
    member: dict[str, np.ndarray]
    strategy: str = "all"

    @classmethod
    def everything(cls, reg: Registry) -> Visibility:
        return cls(np.ones(1), {t.key: np.ones(1) for t in reg})

    def share(self, *keys: str) -> float:
        p = np.ones_like(self.weights)
        for k in keys:
            p = p * self.member.get(k, np.zeros_like(self.weights))
        return float((self.weights * p).sum())


def visibility(reg: Registry, run: Any = None) -> Visibility:
    """How often each tool of `reg` is visible in `run` (a simulation Run of `reg`): by the run's own
    per-request phases and weights. Without a run every tool is visible on every request."""
    if run is None or not len(reg):
        return Visibility.everything(reg)
    from ..model.strategies import ToolTable, core_tools, matching, phase_tools

    sc = run.scenario
    keys = [t.key for t in reg]
    # which tools a phase, core or fixed set matches: names and tags only, so nothing is measured
    table = ToolTable(names=[t.name for t in reg], keys=keys, servers=[t.server for t in reg],
                      tags=[dict(t.tags) for t in reg], tokens=np.zeros(len(keys)))
    n = len(keys)
    if sc.strategy == "phases":
        st = run.steps
        w = st.groupby("phase", sort=False)["weight"].sum()
        phases = [p for p in sc.phase_list() if p.name in w.index]
        weights = np.array([w[p.name] for p in phases]) / float(w.sum())
        inside = np.zeros((n, len(phases)))
        for j, p in enumerate(phases):
            idx = phase_tools(table, p)
            inside[(idx if sc.visible is None else idx[:sc.visible]), j] = 1.0
    else:
        every = np.arange(n)
        if sc.strategy == "all":
            idx = every if sc.visible is None else every[:sc.visible]
            p = np.isin(every, idx).astype(float)
        elif sc.strategy == "fixed":
            idx = matching(table, sc.tools) if sc.tools else every
            p = np.isin(every, idx if sc.visible is None else idx[:sc.visible]).astype(float)
        else:  # retrieval and tool search: the core always, any other tool by its share of the picks
            core = core_tools(table, sc)
            pool = n - len(core)
            shown = float(run.summary["mean_visible"]) - len(core) - (sc.strategy == "tool_search")
            p = np.full(n, min(1.0, max(shown, 0.0) / pool) if pool else 0.0)
            p[core] = 1.0
        weights, inside = np.ones(1), p[:, None]
    return Visibility(weights, {k: inside[i] for i, k in enumerate(keys)}, sc.strategy)
