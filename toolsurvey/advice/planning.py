"""Plan a consolidation: delete unused tools, merge near-duplicates, trim responses, gate by phase.

The plan applies the actions in that order to a copy of the registry and runs the *same*
simulation (toolsurvey.simulation.simulate) before, after each stage, and after; its before/after
table is those runs' figures, never a separate estimate.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import warnings as _warnings
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from ..core.globs import any_glob, tags_match
from ..core.registry import Registry, Tool
from ..core.viewable import Viewable
from ..errors import InputError
from .pricing import load_config, merge_tools  # noqa: F401  (merge_tools: part of this module's API)

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
    assumptions: dict[str, Any]
    warnings: list[str] = field(default_factory=list)



    def actions_table(self) -> pd.DataFrame:
        """One row per action (kind, target, tools, detail, tokens saved per request and per task)."""
        rows = [{**dataclasses.asdict(a), "tools": ", ".join(a.tools)} for a in self.actions]
        for r in rows:
            r.pop("weight")
        return pd.DataFrame(rows, columns=ACTION_COLUMNS)


# --- choosing the actions ---------------------------------------------------------------------


def _unused(reg: Registry, usage, window_days: float | None) -> tuple[list[str], pd.DataFrame | None]:
    if usage is None:
        return [], None
    from ..inputs.usage import summarize, unused

    summary = summarize(usage, reg, window_days=window_days)
    return [f"{s}/{t}" for s, t in unused(summary)], summary


def _merge_groups(reg: Registry, cfg: dict, calls: dict[str, int], own) -> tuple[list[list[Tool]], list[str]]:
    """Clusters of near-duplicates the user can merge (every pair shares action and object; within one
    server, or among the servers they own), and notes about the clusters left alone (similar wording
    only: clarify their descriptions instead)."""
    from .pricing import merge_groups, split_pairs
    from .similarity import similar_pairs

    c = cfg["similarity"]
    pairs = similar_pairs(reg, threshold=c["threshold"], method=c["method"], config=c, max_features=c["max_features"])
    mergeable, _ = split_pairs(pairs, reg, cfg, own)
    by_key = {t.key: t for t in reg}
    merge, clarify = merge_groups(mergeable)
    groups = []
    for members in merge:
        # the survivor is the most called member, then the best described, then the first
        groups.append(sorted((by_key[k] for k in members),
                             key=lambda t: (-calls.get(t.key, 0), -len(t.description or ""), members.index(t.key))))
    notes = [f"not merged (similar wording, different objects): {', '.join(m)}; add a 'does NOT ..., use ...' "
             "clause to each instead" for m in clarify]
    return groups, notes


def _phase_list(phases) -> tuple:
    from ..model.scenario import Phase, load_phases

    if phases is None:
        return ()
    if isinstance(phases, (str, os.PathLike)):
        return load_phases(phases)[0]
    return tuple(p if isinstance(p, Phase) else Phase(**p) for p in phases)


def _in_phase(tool: Tool, phase) -> bool:
    """The same rule as the simulation's: a name or server/name glob, or every tag matching."""
    return any_glob(phase.tools)(tool.name, tool.key) or tags_match(tool.tags, phase.tags)


def _literal(key: str) -> str:
    """A glob that matches exactly `key`."""
    return re.sub(r"([*?\[])", r"[\1]", key)


def _trim_rule(cfg: dict, trim: dict | None) -> dict:
    rule = dict(cfg["plan"])
    if trim:
        unknown = set(trim) - set(rule)
        if unknown:
            raise InputError(f"unknown trim option(s) {', '.join(sorted(unknown))}; expected: {', '.join(rule)}")
        rule.update(trim)
    return rule


def _trimmed_tokens(calls: pd.DataFrame, rule: dict, encoding: str) -> tuple[np.ndarray, list[str]]:
    """Response tokens per call after trimming the tools the rule selects: a real `trim` of the payload
    when the log kept it, otherwise the result capped at `cap_tokens` (the stated assumption)."""
    from ..measuring.trimming.pipeline import trim

    tokens = calls["response_tokens"].to_numpy(dtype=float).copy()
    mean = calls.groupby("key")["response_tokens"].mean()
    chosen = [k for k, m in mean.items() if m > rule["trim_when_mean_over"]]
    options = {k: rule[k] for k in ("keep", "drop", "max_items") if rule.get(k)}
    if rule.get("drop_empty"):
        options["drop_empty"] = True
    for i, (key, payload) in enumerate(zip(calls["key"], calls["response"], strict=True)):
        if key not in chosen or math.isnan(tokens[i]):
            continue
        if payload is not None and options:
            tokens[i] = min(tokens[i], trim(payload, encoding=encoding, **options).tokens_after)
        tokens[i] = min(tokens[i], rule["cap_tokens"])
    return tokens, chosen


# --- the plan ---------------------------------------------------------------------------------


def plan(reg: Registry, *, usage=None, phases=None, scenario=None, delete_unused: bool = True,
         merge: bool = True, trim: dict | bool | None = True, window_days: float | None = 90,
         unphased: str = "all", config: dict | str | None = None, own=None) -> Plan:
    """Plan the consolidation of `reg` and simulate it before, after each stage, and after.

    `usage` is a Usage (toolsurvey.usage.load_usage), a log path or a list of call records; `phases` a phases file or Phase list;
    `scenario` a Scenario or scenario file holding every other assumption (model, steps, caching, ...).
    "before" is `advice.baseline`: the scenario as given (its strategy, e.g. its phase gating) with the
    log's mean tool result; every stage is a change from it. Merges join tools of one server, or of the
    servers named in `own` (a list or comma-separated). `trim` is True (the rule in
    assumptions/audit.toml [plan]), False, or overrides of that rule. When the plan adds phase gating,
    tools that match no phase stay visible in every phase (`unphased="all"`) or are hidden (`"hide"`).
    Raises InputError for bad input (an unknown model, a phase matching no tool, a window of 0 days, a
    plan that would delete every tool, ...).
    """
    from ..inputs.usage import Usage, load_usage
    from ..model.simulate import simulate
    from .pricing import baseline, check_owned, merge_saving, owned, visibility

    cfg = load_config(config)
    rule = _trim_rule(cfg, trim if isinstance(trim, dict) else None)  # checked before any work
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
    phase_list = _phase_list(phases) if phases is not None else (scenario_phases or _phase_list(
        base.phase_list() if base.phases else None))
    warns: list[str] = []
    actions: list[Action] = []
    runs: dict[str, Any] = {}
    caught: list = []

    def run(name: str, r: Registry, sc) -> Any:
        with _warnings.catch_warnings(record=True) as w:
            _warnings.simplefilter("always")
            try:
                runs[name] = simulate(r, sc)
            except InputError as e:
                raise InputError(f"the plan's {name!r} stage cannot be simulated: {e}") from None
        caught.extend(w)
        return runs[name]

    # tokens per tool, as the simulation's rendering measures them
    def tokens_of(r: Registry) -> dict[str, float]:
        from ..model.strategies import tool_table

        if not len(r):
            return {}
        t = tool_table(r, render=base.render if base.render != "auto" else "json", encoding=base.encoding)
        return dict(zip(t.keys, t.tokens.tolist(), strict=True))

    # calls per tool key (server resolved against the registry)
    calls = pd.DataFrame(columns=["key", "response_tokens", "response"])
    counts: dict[str, int] = {}
    if usage is not None:
        from ..inputs.usage import resolve

        resolved, problems = resolve(usage, reg)
        warns += usage.problems + problems
        resolved = resolved[resolved["known"]]
        calls = resolved.assign(key=resolved["server"] + "/" + resolved["tool"])
        counts = calls["key"].value_counts().to_dict()

    before_sc = base
    run("before", reg, before_sc)

    # 1. delete tools never called in the window
    current = reg
    unused, summary = _unused(reg, usage, window_days) if delete_unused else ([], None)
    if summary is not None:
        warns += summary.attrs["problems"]
    if unused and len(unused) == len(reg):
        window = f"in the last {window_days:g} days" if window_days else "anywhere in it"
        raise InputError(f"the usage log calls none of the {len(reg):,} tools {window}, so the plan would "
                         "delete every tool; check that the log belongs to this registry (its server and tool "
                         "names) and its time window, or plan with delete_unused=False (--no-delete)")
    if scenario_phases and unused:
        # a phase of the scenario needs a tool: never delete the last ones it shows
        gone = set(unused)
        for ph in scenario_phases:
            shown = [t.key for t in reg if _in_phase(t, ph)]
            if shown and all(k in gone for k in shown):
                warns.append(f"kept {', '.join(shown)}: never called, but the only tool(s) of the scenario's "
                             f"phase {ph.name!r}")
                gone -= set(shown)
        unused = [k for k in unused if k in gone]
    vis = visibility(reg, runs["before"])
    sizes = tokens_of(reg)
    for key in unused:
        actions.append(Action("delete", key, (key,), f"never called in the last {window_days:g} days"
                              if window_days else "never called in the log", sizes[key] * vis.share(key)))
    if unused:
        gone = set(unused)
        current = current.filter(lambda t: t.key not in gone)
    after_delete = current
    run("delete", after_delete, before_sc)

    # 2. merge clusters of near-duplicates into their most-called member
    notes: list[str] = []
    if merge:
        groups, notes = _merge_groups(current, cfg, counts, own)
        sizes = tokens_of(current)
        vis = visibility(current, runs["delete"])
        originals = {t.key: t for t in current}
        tok = lambda t: sizes[t.key] if originals.get(t.key) is t else tokens_of(Registry.from_tools([t]))[t.key]  # noqa: E731
        renamed: dict[str, str] = {}
        for tools in groups:
            survivor = tools[0]
            merged = replace(merge_tools(tools, name=survivor.name), server=survivor.server)
            saving = merge_saving(tools, tok, vis)
            others = tuple(t.key for t in tools[1:])
            actions.append(Action("merge", survivor.key, tuple(t.key for t in tools),
                                  f"merge {', '.join(others)} into {survivor.key} (longest description, union "
                                  "of parameters)", saving))
            for k in others:
                renamed[k] = survivor.key
            keep = {t.key for t in tools[1:]}
            current = current.filter(lambda t, keep=keep: t.key not in keep).map(
                lambda t, s=survivor, m=merged: m if t.key == s.key else t)
        if renamed and len(calls):
            calls = calls.assign(key=calls["key"].replace(renamed))
    warns += notes
    after_merge = current
    run("merge", after_merge, before_sc)

    # 3. trim the responses of tools whose results are large
    response_before = response_after = None
    if usage is not None and len(calls) and calls["response_tokens"].notna().any():
        measured = calls[calls["response_tokens"].notna()]
        response_before = float(measured["response_tokens"].mean())
        response_after = response_before
        if trim:
            after_tokens, chosen = _trimmed_tokens(measured, rule, base.encoding or "o200k_base")
            response_after = float(after_tokens.mean())
            for key in chosen:
                sel = (measured["key"] == key).to_numpy()
                mb, ma = float(measured["response_tokens"][sel].mean()), float(after_tokens[sel].mean())
                actions.append(Action("trim", key, (key,), f"cap results at {rule['cap_tokens']:,} tokens: "
                                      f"mean {mb:,.0f} -> {ma:,.0f} per call over {int(sel.sum()):,} calls",
                                      weight=(mb - ma) * sel.sum()))
    elif trim and usage is not None:
        warns.append("the usage log gives no response sizes, so no trim is planned")
    trim_sc = before_sc if response_after is None else replace(before_sc, response_tokens=response_after)
    run("trim", after_merge, trim_sc)

    # 4. gate by phase, unless the scenario already gates by these phases (every stage kept its gating)
    gate = bool(phase_list) and tuple(phase_list) != tuple(scenario_phases)
    if scenario_phases and not gate:
        warns.append("the scenario already gates by phase, so every stage keeps its gating and the plan adds "
                     "no gate stage")
    if gate and not len(current):
        warns.append("no tool is left after the deletes and merges, so phase gating is skipped")
        gate = False
    if gate:
        nowhere = [t.key for t in current if not any(_in_phase(t, p) for p in phase_list)]
        if nowhere:
            listed = f"{', '.join(nowhere[:12])}{' …' if len(nowhere) > 12 else ''}"
            if unphased == "all":
                warns.append(f"{len(nowhere)} tool(s) match no phase, so the plan keeps them visible in every "
                             f"phase (unphased='all'): {listed}")
                phase_list = tuple(replace(p, tools=tuple(p.tools) + tuple(_literal(k) for k in nowhere))
                                   for p in phase_list)
            else:
                warns.append(f"{len(nowhere)} tool(s) match no phase and are never visible after gating: {listed}")
    elif scenario_phases:
        nowhere = [t.key for t in reg if not any(_in_phase(t, p) for p in scenario_phases)]
        if nowhere:
            warns.append(f"{len(nowhere)} tool(s) match no phase of the scenario, so no request shows them and "
                         f"deleting or merging them saves nothing per request: {', '.join(nowhere[:12])}"
                         f"{' …' if len(nowhere) > 12 else ''}")
    after_sc = replace(trim_sc, strategy="phases", phases=phase_list) if gate else trim_sc
    run("after", current, after_sc)
    warns += list(dict.fromkeys(str(w.message) for w in caught))

    stage_scs = {"before": (reg, before_sc), "delete": (after_delete, before_sc), "merge": (after_merge, before_sc),
                 "trim": (after_merge, trim_sc), "after": (current, after_sc)}
    if gate:
        b, a = runs["trim"].summary, runs["after"].summary
        actions.append(Action("gate", "(all)", tuple(p.name for p in phase_list),
                              "phases: " + "; ".join(f"{p.name} ({p.steps} step{'s' * (p.steps > 1)}): "
                                                     f"{sum(_in_phase(t, p) for t in current)} tools"
                                                     for p in phase_list),
                              b["tool_tokens_per_request"] - a["tool_tokens_per_request"]))
    _per_task(actions, runs)
    stages = _stages(runs, stage_scs)
    table = _before_after(reg, current, runs["before"], runs["after"], summary)
    assumptions = _assumptions(runs["before"], runs["after"], cfg, usage, window_days, response_before,
                               response_after, phase_list if gate else scenario_phases)
    if own:
        assumptions["servers owned"] = sorted(own)
    assumptions["merges"] = ("among the servers owned: " + ", ".join(sorted(own)) if own else
                             "within one server only (name the servers you own to merge across them)")
    return Plan(actions, reg, current, before_sc, after_sc, runs, table, stages, assumptions,
                list(dict.fromkeys(warns)))


def _per_task(actions: list[Action], runs: dict) -> None:
    """Each group's simulated change in input tokens per task, shared among its actions in proportion
    to their per-request (delete, merge, gate) or per-call (trim) saving, so the actions add up."""
    stage_of = {"delete": ("before", "delete"), "merge": ("delete", "merge"), "trim": ("merge", "trim"),
                "gate": ("trim", "after")}
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
