"""Compare two versions of a tool surface: what changed, and what it costs per request, task and month."""

from __future__ import annotations

import dataclasses
import os
import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..core.registry import Registry, Tool
from ..core.text import plural
from ..core.viewable import Viewable
from ..errors import InputError
from ..inputs.formats import load
from ..measuring.footprint import footprint, request_total, tools_only
from ..model.scenario import load_scenario
from ..model.simulate import simulate
from ..providers.catalog import depends_on_provider, rendering_for
from ..providers.prices import price_for
from .poisoning.scan import scan, server_tools
from .thresholds import load_config

# Tool fields compared, and how each is named in "what changed".
_FIELDS = {"title": "title", "description": "description", "input_schema": "input schema",
           "output_schema": "output schema", "annotations": "annotations", "extra": "other keys"}
# The fields whose text the model reads: new text under a name already approved is how a rug pull
# works (Invariant Labs, "MCP Security Notification: Tool Poisoning Attacks", 2025-04-01).
_MODEL_TEXT = ("title", "description", "input_schema", "output_schema", "annotations")


@dataclass(repr=False)
class Diff(Viewable):
    """Two registries compared: one row per tool in `tools`, request totals and, with a scenario, costs."""

    view_name = "diff"

    tools: pd.DataFrame  # server, tool, status, tokens_old, tokens_new, delta, changed, security
    request_old: int
    request_new: int
    costs: dict[str, Any] = field(default_factory=dict)  # per task / month, old/new/delta, when simulated
    method: str = ""

    @property
    def request_delta(self) -> int:
        return self.request_new - self.request_old

    @property
    def changes(self) -> pd.DataFrame:
        """The rows of tools that were added, removed or changed, largest token change first."""
        t = self.tools[self.tools["status"] != "unchanged"]
        return t.reindex(t["delta"].abs().sort_values(ascending=False, kind="stable").index)

    @property
    def security_changes(self) -> pd.DataFrame:
        """The rows of existing tools whose model-read text changed (same name, new text: a possible rug pull)."""
        return self.changes[self.changes["security"] != ""]

    @property
    def identical(self) -> bool:
        return self.changes.empty and self.request_delta == 0

    def counts(self) -> dict[str, int]:
        return {s: int((self.tools["status"] == s).sum()) for s in ("added", "removed", "changed")}

    def summary(self) -> str:
        """One line: the token change per request (and per task and month when a scenario was given)."""
        if self.identical:
            return "no change to the tool surface: 0 tokens per request"
        c = self.counts()
        parts = [f"{signed(self.request_delta)} tokens per request with every tool ({self.request_old:,} → "
                 f"{self.request_new:,}{_pct(self.request_delta, self.request_old)})"]
        if "task_delta" in self.costs:
            parts.append(f"under the scenario {signed(self.costs['task_delta'])} tool-definition tokens per task, "
                         f"{_money(self.costs['month_delta'])} per month")
        what = ", ".join(f"{n} {s}" for s, n in c.items() if n)
        n = len(self.security_changes)
        rug = (f"; {plural(n, 'security-relevant change')} (same name, new text: review before "
               "approving, a rug pull looks like this)") if n else ""
        return f"{'; '.join(parts)} — tools {what}{rug}"


def signed(n: float) -> str:
    """A token change with its sign: +1,240, -35."""
    return f"{n:+,}" if isinstance(n, int) else f"{n:+,.0f}"


def _pct(delta: int, base: int) -> str:
    return f", {delta / base:+.1%}" if base else ""


def _money(x: float) -> str:
    return f"{'+' if x >= 0 else '-'}${abs(x):,.2f}"


def as_registry(value: Any) -> Registry:
    """A Registry as given, or loaded from a path. Raises InputError for a file that cannot be loaded."""
    if isinstance(value, Registry):
        return value
    if isinstance(value, (str, os.PathLike)):
        return load(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, (str, os.PathLike)) for v in value):
        return load(*value)
    raise InputError(f"expected a Registry, a path to a tool file or a list of paths, found {type(value).__name__}")


def what_changed(old: Tool, new: Tool) -> str:
    """The parts of a tool that differ between two versions, with parameters added or removed."""
    out = []
    for attr, label in _FIELDS.items():
        a, b = getattr(old, attr), getattr(new, attr)
        if a == b:
            continue
        if attr == "input_schema":
            label += _param_changes(a, b)
        out.append(label)
    return ", ".join(out)


def _scanner(*regs: Registry) -> Any:
    """The poisoning scan with the bundled patterns: tool -> set of rule ids it raises (a tool's server
    is its server in any of `regs`, so an order about a tool of the same server stays guidance)."""
    cfg = load_config()["poisoning"]
    names = server_tools(Registry.from_tools(t for reg in regs for t in reg))
    return lambda tool: {s.rule for s in scan(tool, cfg, names.get(tool.server, frozenset()))}


def rug_pull(old: Tool, new: Tool, scan: Any = None) -> str:
    """'' when the model reads the same text in both versions of a tool; else what text changed and
    which security rules the new version raises that the old did not."""
    changed = [_FIELDS[f] for f in _MODEL_TEXT if getattr(old, f) != getattr(new, f)]
    if not changed:
        return ""
    scan = scan or _scanner()
    new_rules = sorted(scan(new) - scan(old))
    flagged = f"; the new text raises {', '.join(new_rules)}" if new_rules else ""
    return f"new text under the same name: {', '.join(changed)}{flagged}"


def _param_changes(a: Any, b: Any) -> str:
    pa = a.get("properties") if isinstance(a, dict) else None
    pb = b.get("properties") if isinstance(b, dict) else None
    pa, pb = (pa if isinstance(pa, dict) else {}), (pb if isinstance(pb, dict) else {})
    notes = [f"+{k}" for k in pb if k not in pa] + [f"-{k}" for k in pa if k not in pb]
    notes += [f"~{k}" for k in pa if k in pb and pa[k] != pb[k]]
    return f" ({', '.join(notes)})" if notes else ""


def diff(old: Any, new: Any, scenario: Any = None, *, encoding: str | None = None,
         render: str | None = None, model: str | None = None) -> Diff:
    """Compare `old` and `new` (Registries or paths); a scenario (Scenario or TOML path) adds
    per-task and per-month costs, and its rendering is used unless one is given (which then
    applies to the scenario too).

    Raises InputError for a file that cannot be loaded or a scenario that cannot be simulated.
    """
    old, new = as_registry(old), as_registry(new)
    scenario, settings = _settings(scenario, encoding=encoding, render=render, model=model)
    fp_old, fp_new = footprint(old, **settings), footprint(new, **settings)
    rows = _tool_rows(old, new, fp_old, fp_new) + _part_rows(fp_old, fp_new)
    tools = pd.DataFrame(rows, columns=["server", "tool", "status", "tokens_old", "tokens_new", "changed", "security"])
    tools[["tokens_old", "tokens_new"]] = tools[["tokens_old", "tokens_new"]].astype("Int64")
    tools["delta"] = (tools["tokens_new"].fillna(0) - tools["tokens_old"].fillna(0)).astype("int64")
    tools = tools[["server", "tool", "status", "tokens_old", "tokens_new", "delta", "changed", "security"]]

    costs = _costs(old, new, scenario) if scenario is not None else {}
    a = fp_new.attrs
    method = (f"Tokens of the tool definitions one request carries: {a['render']} rendering, "
              f"{a['encoding']}{', ' + a['model'] if a.get('model') else ''}. Tools are matched by server and name.")
    if costs:
        method += f" Costs: {costs['method']}"
    return Diff(tools, request_total(fp_old), request_total(fp_new), costs, method)


def _settings(scenario: Any, **given: str | None) -> tuple[Any, dict[str, Any]]:
    """The scenario (loaded, with the options given) and the footprint options both versions are measured with."""
    settings: dict[str, Any] = {k: v for k, v in given.items() if v}
    if scenario is not None:
        if isinstance(scenario, (str, os.PathLike)):
            scenario = load_scenario(scenario)
        # The options given win over the scenario's, for the simulation too, so that both agree.
        scenario = dataclasses.replace(scenario, **settings)
        settings = measure_settings(scenario)
    return scenario, {"render": "json", **settings}


def _tool_rows(old: Registry, new: Registry, fp_old: pd.DataFrame, fp_new: pd.DataFrame) -> list[dict]:
    """One row per tool of either version: its status, tokens before and after, and what changed."""
    tok_old = {(r.server, r.tool): int(r.tokens) for r in tools_only(fp_old).itertuples()}
    tok_new = {(r.server, r.tool): int(r.tokens) for r in tools_only(fp_new).itertuples()}
    tools_old = {(t.server, t.name): t for t in old}
    tools_new = {(t.server, t.name): t for t in new}
    scan = _scanner(old, new)
    rows = []
    for ka, kb in _match(list(tools_old), list(tools_new)):
        a, b = tools_old.get(ka), tools_new.get(kb)
        if a is None:
            status, changed = "added", "new tool"
        elif b is None:
            status, changed = "removed", "tool removed"
        else:
            changed = what_changed(a, b)
            # A move between servers that exist in both versions is a change; a renamed server
            # (or single-server files named differently) is not.
            if a.server != b.server and a.server in new.servers and b.server in old.servers:
                changed = ", ".join(filter(None, [f"server (was {a.server})", changed]))
            status = "changed" if changed else "unchanged"
        key = kb if b is not None else ka
        rows.append({"server": key[0], "tool": key[1], "status": status,
                     "tokens_old": tok_old.get(ka), "tokens_new": tok_new.get(kb), "changed": changed,
                     "security": rug_pull(a, b, scan) if a is not None and b is not None else ""})
    return rows


def _part_rows(fp_old: pd.DataFrame, fp_new: pd.DataFrame) -> list[dict]:
    """Instructions and provider overhead are per server / per request: a change there is a row too."""
    rows = []
    for label, kind in (("(instructions)", "instructions"), ("(provider overhead)", "overhead")):
        a = fp_old[fp_old["kind"] == kind].groupby("server")["tokens"].sum()
        b = fp_new[fp_new["kind"] == kind].groupby("server")["tokens"].sum()
        for server in a.index.union(b.index):
            ta, tb = a.get(server), b.get(server)
            if ta != tb:
                status = "added" if ta is None else "removed" if tb is None else "changed"
                rows.append({"server": server, "tool": label, "status": status,
                             "tokens_old": ta, "tokens_new": tb, "changed": kind, "security": ""})
    return rows


def _match(old: list[tuple[str, str]], new: list[tuple[str, str]]) -> list[tuple]:
    """Pairs (old key or None, new key or None): same server and name first, then the same name
    when it is unique on both sides (a single-server file named differently, a renamed server)."""
    new_set = set(new)
    pairs = {ka: (ka if ka in new_set else None) for ka in old}
    left_old = [k for k, v in pairs.items() if v is None]
    taken = {v for v in pairs.values() if v is not None}
    left_new = [k for k in new if k not in taken]
    names_old = Counter(n for _, n in left_old)
    by_name_new = {k[1]: k for k in left_new}
    names_new = Counter(n for _, n in left_new)
    for ka in left_old:
        if names_old[ka[1]] == 1 and names_new[ka[1]] == 1:
            pairs[ka] = by_name_new[ka[1]]
    matched = set(pairs.values())
    return list(pairs.items()) + [(None, kb) for kb in new if kb not in matched]


def _costs(old: Registry, new: Registry, scenario: Any) -> dict[str, Any]:
    """Tool tokens per task and money for both versions under one scenario, via the simulation."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = simulate(old, scenario).summary, simulate(new, scenario).summary
    out: dict[str, Any] = {"scenario": describe_scenario(scenario),
                           "method": "each version run through toolsurvey's simulation with the same scenario "
                                     "(tool tokens per task include the extra steps of wrong tool calls; "
                                     "the month counts completed tasks)."}
    for key, col in (("task", "tool_tokens_per_task"), ("cost_task", "cost_per_completed_task"),
                     ("month", "cost_per_month")):
        out[f"{key}_old"], out[f"{key}_new"] = float(a[col]), float(b[col])
        out[f"{key}_delta"] = float(b[col]) - float(a[col])
    return out


def measure_settings(scenario: Any) -> dict[str, Any]:
    """The footprint options (render, encoding, model) that make footprint's tokens per request the
    ones the simulation uses for `scenario`."""
    provider = ""
    if depends_on_provider(scenario.render):  # the others do not depend on the provider
        provider = price_for(scenario.model, scenario.price_table()).provider
    render, model = rendering_for(scenario.render, scenario.model, provider)
    return {"render": render, "encoding": scenario.encoding, "model": model}


def describe_scenario(scenario: Any) -> str:
    """A one-line description of a scenario's main assumptions."""
    parts = [getattr(scenario, "name", None), getattr(scenario, "model", None)]
    steps = getattr(scenario, "steps", None)
    if steps is not None:
        steps = steps.describe() if hasattr(steps, "describe") else steps
        parts.append(f"{steps:g} steps per task" if isinstance(steps, (int, float)) else f"steps {steps}")
    strategy = getattr(scenario, "strategy", None)
    if strategy:
        parts.append(f"{strategy} strategy")
    per_day = getattr(scenario, "tasks_per_day", None)
    if per_day is not None:
        parts.append(f"{per_day:,} tasks per day")
    return ", ".join(str(p) for p in parts if p)
