"""What the stages of a plan share: the inputs, checked and resolved once, and the registry, scenario,
actions, warnings and simulation runs so far."""

from __future__ import annotations

import os
import warnings as _warnings
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ...core.registry import Registry
from ...errors import InputError
from ...inputs.sources import load_usage
from ...inputs.usage import Usage, resolve
from ...measuring.selection.stored import as_eval
from ...model.scenario import Phase, load_phases
from ...model.simulate import simulate
from ...model.strategies import tool_table
from ..baseline import baseline
from ..ownership import check_owned, owned
from ..thresholds import load_config
from .actions import Action


@dataclass
class PlanState:
    """One plan in the making: its inputs, then what each stage leaves for the next."""

    reg: Registry             # the registry as given (the "before")
    cfg: dict                 # the audit thresholds, with the [plan] trim rule
    base: Any                 # the "before" scenario (advice.baseline.baseline)
    usage: Usage | None
    own: frozenset[str] | None
    window_days: float | None
    unphased: str
    trim_rule: dict
    scenario_phases: tuple    # the phases the scenario already gates by (empty: it does not)
    phases: tuple             # the phases a gate stage would use
    current: Registry         # the registry after the stages so far
    scenario: Any             # the scenario after the stages so far
    calls: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["key", "response_tokens", "response"]))
    counts: dict[str, int] = field(default_factory=dict)  # calls per tool key
    summary: pd.DataFrame | None = None  # the usage log's per-tool summary (the delete stage's)
    response_before: float | None = None  # the log's mean tool result, before and after trimming
    response_after: float | None = None
    gate: bool = False
    actions: list[Action] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    runs: dict[str, Any] = field(default_factory=dict)  # stage name -> simulation Run
    simulated: dict[str, tuple[Registry, Any]] = field(default_factory=dict)  # stage -> (registry, scenario)
    caught: list = field(default_factory=list)  # the simulations' warnings
    eval: Any = None          # the eval given (measured confusions for the merge stage), read once

    def simulate(self, name: str, reg: Registry, sc: Any) -> Any:
        """Run stage `name` (registry `reg` under scenario `sc`), keeping its warnings for the plan's.

        Raises InputError, naming the stage, when the simulation cannot run.
        """
        with _warnings.catch_warnings(record=True) as w:
            _warnings.simplefilter("always")
            try:
                self.runs[name] = simulate(reg, sc)
            except InputError as e:
                raise InputError(f"the plan's {name!r} stage cannot be simulated: {e}") from None
        self.caught.extend(w)
        self.simulated[name] = (reg, sc)
        return self.runs[name]

    def tokens_of(self, reg: Registry) -> dict[str, float]:
        """Tokens per tool key, as the simulation's rendering measures them."""
        if not len(reg):
            return {}
        render = self.base.render if self.base.render != "auto" else "json"
        t = tool_table(reg, render=render, encoding=self.base.encoding)
        return dict(zip(t.keys, t.tokens.tolist(), strict=True))


def start(reg: Registry, *, usage, phases, scenario, trim, window_days, unphased, config, own,
          eval=None) -> PlanState:
    """The state before any stage: every input checked (before any work) and resolved once.

    Raises InputError for bad input (see `plan`).
    """
    cfg = load_config(config)
    rule = _trim_rule(cfg, trim if isinstance(trim, dict) else None)
    if unphased not in ("all", "hide"):
        raise InputError(f"unphased must be 'all' or 'hide', found {unphased!r}")
    if window_days is not None and not window_days > 0:
        raise InputError(f"window_days must be a number of days > 0, found {window_days!r}; "
                         "None counts the whole log")
    own = owned(own)
    check_owned(own, reg)
    if usage is not None and not isinstance(usage, Usage):
        usage = load_usage(usage)  # a path, or a list of call records
    base = baseline(reg, scenario, usage)
    scenario_phases = base.phase_list() if base.strategy == "phases" else ()
    gate_by = _phase_list(phases) if phases is not None else (scenario_phases or _phase_list(
        base.phase_list() if base.phases else None))
    st = PlanState(reg, cfg, base, usage, own, window_days, unphased, rule, scenario_phases, gate_by,
                   current=reg, scenario=base, eval=as_eval(eval))
    if usage is not None:  # calls per tool key, the server resolved against the registry
        resolved, problems = resolve(usage, reg)
        st.warnings += usage.warnings + problems
        resolved = resolved[resolved["known"]]
        st.calls = resolved.assign(key=resolved["server"] + "/" + resolved["tool"])
        st.counts = st.calls["key"].value_counts().to_dict()
    return st


def _phase_list(phases) -> tuple:
    if phases is None:
        return ()
    if isinstance(phases, (str, os.PathLike)):
        return load_phases(phases)[0]
    return tuple(p if isinstance(p, Phase) else Phase(**p) for p in phases)


def _trim_rule(cfg: dict, trim: dict | None) -> dict:
    rule = dict(cfg["plan"])
    if trim:
        unknown = set(trim) - set(rule)
        if unknown:
            raise InputError(f"unknown trim option(s) {', '.join(sorted(unknown))}; expected: {', '.join(rule)}")
        rule.update(trim)
    return rule
