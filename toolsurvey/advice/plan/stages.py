"""The stages of a plan, in order, each a change of the state the one before left: delete the tools never
called, merge near-duplicates, trim large results, gate by phase, defer behind a tool search; and `plan`, which
runs them."""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import replace

import numpy as np
import pandas as pd

from ...core.deprecation import deprecated
from ...core.globs import any_glob, tags_match
from ...core.registry import Registry, Tool
from ...core.tokens import DEFAULT_ENCODING
from ...errors import InputError
from ...inputs.usage import summarize
from ...inputs.usage import unused as never_called
from ...measuring.trimming.pipeline import trim as trim_payload
from ..deferral import (
    deferral_from_eval,
    deferral_in,
    deferred_searches,
    describe_search,
    measured_search,
    price_search,
)
from ..merging import merge_groups, merge_saving, merge_tools, split_pairs
from ..similarity.pairs import similar_pairs
from ..visibility import visibility
from .actions import Action, Plan
from .measured import measured_merges
from .outcome import finish
from .state import PlanState, start

# The stages a plan may leave out (`plan(reg, stages=...)`); gating by phase runs whenever there are phases.
STAGES = ("delete", "merge", "trim", "defer")
_SWITCHES = {"delete_unused": "delete", "merge": "merge", "trim": "trim", "defer": "defer"}  # before 0.7


def plan(reg: Registry, *, usage=None, phases=None, scenario=None, stages=STAGES, trim: dict | None = None,
         window_days: float | None = 90, unphased: str = "all", config: dict | str | None = None, own=None,
         queries=None, eval=None, deferral=None, **switches) -> Plan:
    """Plan the consolidation of `reg` and simulate it before, after each stage, and after.

    `usage` is a Usage (toolsurvey.inputs.sources.load_usage), a log path or a list of call records; `phases` a
    phases file or Phase list; `scenario` a Scenario or scenario file holding every other assumption
    (model, steps, caching, ...). "before" is `advice.baseline.baseline`: the scenario as given (its
    strategy, e.g. its phase gating) with the log's mean tool result; every stage is a change from it.
    `stages` names the stages to run, of STAGES ("delete", "merge", "trim", "defer"; all by default).
    Merges join tools of one server, or of the servers named in `own` (a list or comma-separated). `trim`
    overrides fields of the trim rule (assumptions/audit.toml [plan]). When the plan
    adds phase gating, tools that match no phase stay visible in every phase (`unphased="all"`) or are
    hidden (`"hide"`). Where the model's provider documents deferred loading (tool search), a last stage
    defers every tool behind it when that saves money, priced at the hit rate `queries` measure (a
    queries file or a retrieval evaluation, on the registry as given) or at the stated assumption that
    every search finds the tool, with the break-even rate (leave "defer" out of `stages` to skip it).
    `deferral` (advice.deferral.deferral_from_eval of an eval run with --defer, or that eval or its
    path) prices that stage at the end-to-end rate measured with the model in the loop instead of
    BM25's hit rate; an `eval` run with --defer does the same when `deferral` is not given.
    `eval` (an eval file `toolsurvey eval` wrote, or its result) brings the pairs the model confused at
    least `[selection] min_confusions` times into the merge stage: a merge that joins them says so, with
    the count beside the near-duplicate score; a confused pair left unmerged is named in the warnings
    as a merge candidate (merged only when its tools share action and object: the definitions, not
    the eval, say whether two tools do one job).
    The on/off switches before 0.7 (`delete_unused=`, `merge=`, `trim=True/False`, `defer=`) still
    work, with a DeprecationWarning.
    Raises InputError for bad input (an unknown model, a phase matching no tool, a window of 0 days, a
    plan that would delete every tool, ...).
    """
    run, trim = _stages(stages, trim, switches)
    st = start(reg, usage=usage, phases=phases, scenario=scenario, trim=trim, window_days=window_days,
               unphased=unphased, config=config, own=own, eval=eval)
    st.simulate("before", reg, st.base)
    delete_unused_tools(st, enabled="delete" in run)
    merge_duplicates(st, enabled="merge" in run)
    trim_results(st, enabled="trim" in run)
    gate_by_phase(st)
    defer = "defer" in run
    if defer and deferral is not None and not hasattr(deferral, "hit_at"):
        deferral = deferral_from_eval(deferral)
    if defer and deferral is None and st.eval is not None:
        deferral = deferral_in(st.eval)
        if deferral is None:
            st.warnings.append("the eval given was not run with --defer, so deferred loading is priced at "
                               "BM25's hit rate (or the assumption that every search finds the tool)")
    quality = (deferral if deferral is not None else measured_search(reg, queries)) if defer else None
    defer_loading(st, quality=quality, enabled=defer)
    return finish(st)


def _stages(stages, trim, switches: dict) -> tuple[set[str], dict | None]:
    """The stages to run and the trim rule's overrides, the switches before 0.7 applied (with a warning)."""
    if isinstance(stages, str):
        stages = [s.strip() for s in stages.split(",") if s.strip()]
    run = set(stages)
    bad = sorted(run - set(STAGES))
    if bad:
        raise InputError(f"unknown plan stage(s) {', '.join(bad)}; expected some of {', '.join(STAGES)}")
    unknown = sorted(set(switches) - set(_SWITCHES))
    if unknown:
        raise TypeError(f"plan() got an unexpected keyword argument {unknown[0]!r}")
    if isinstance(trim, bool):
        switches["trim"], trim = trim, None
    for name, on in switches.items():
        stage = _SWITCHES[name]
        deprecated(f"plan(..., {name}={on!r})", f"plan(..., stages=...) with {stage!r} "
                   f"{'in' if on else 'left out of'} it", stacklevel=4)
        run = run | {stage} if on else run - {stage}
    if trim is not None and not isinstance(trim, dict):
        raise InputError(f"trim must be a table of trim rule fields, found {trim!r}")
    return run, trim


# --- 1. delete tools never called in the window ---------------------------------------------------


def delete_unused_tools(st: PlanState, enabled: bool) -> None:
    """Delete the tools the log never calls in the window (but never the last tools a phase of the
    scenario shows). Raises InputError when that would delete every tool."""
    unused, st.summary = _unused(st) if enabled else ([], None)
    if st.summary is not None:
        st.warnings += st.summary.attrs["warnings"]
    if unused and len(unused) == len(st.reg):
        window = f"in the last {st.window_days:g} days" if st.window_days else "anywhere in it"
        raise InputError(f"the usage log calls none of the {len(st.reg):,} tools {window}, so the plan would "
                         "delete every tool; check that the log belongs to this registry (its server and tool "
                         "names) and its time window, or plan with delete_unused=False (--no-delete)")
    if st.scenario_phases and unused:
        unused = _keep_phase_tools(st, unused)
    vis = visibility(st.reg, st.runs["before"])
    sizes = st.tokens_of(st.reg)
    why = f"never called in the last {st.window_days:g} days" if st.window_days else "never called in the log"
    for key in unused:
        st.actions.append(Action("delete", key, (key,), why, sizes[key] * vis.share(key)))
    if unused:
        gone = set(unused)
        st.current = st.current.filter(lambda t: t.key not in gone)
    st.simulate("delete", st.current, st.base)


def _unused(st: PlanState) -> tuple[list[str], pd.DataFrame | None]:
    if st.usage is None:
        return [], None
    summary = summarize(st.usage, st.reg, window_days=st.window_days)
    return [f"{s}/{t}" for s, t in never_called(summary)], summary


def _keep_phase_tools(st: PlanState, unused: list[str]) -> list[str]:
    """`unused` less the tools a phase of the scenario needs: never delete the last ones it shows."""
    gone = set(unused)
    for ph in st.scenario_phases:
        shown = [t.key for t in st.reg if _in_phase(t, ph)]
        if shown and all(k in gone for k in shown):
            st.warnings.append(f"kept {', '.join(shown)}: never called, but the only tool(s) of the scenario's "
                               f"phase {ph.name!r}")
            gone -= set(shown)
    return [k for k in unused if k in gone]


def _in_phase(tool: Tool, phase) -> bool:
    """The same rule as the simulation's: a name or server/name glob, or every tag matching."""
    return any_glob(phase.tools)(tool.name, tool.key) or tags_match(tool.tags, phase.tags)


# --- 2. merge clusters of near-duplicates into their most-called member ----------------------------


def merge_duplicates(st: PlanState, enabled: bool) -> None:
    """Merge each cluster of near-duplicates the user may merge into its most-called member; clusters
    joined by similar wording only are a warning (clarify their descriptions instead)."""
    if enabled:
        groups, notes = _merge_groups(st)
        _merge(st, groups)
        st.warnings += notes
        measured_merges(st, groups)
    st.simulate("merge", st.current, st.base)


def _merge_groups(st: PlanState) -> tuple[list[list[Tool]], list[str]]:
    """Clusters of near-duplicates the user can merge (every pair shares action and object; within one
    server, or among the servers they own), survivor first, and notes about the clusters left alone."""
    c, reg = st.cfg["similarity"], st.current
    pairs = similar_pairs(reg, threshold=c["threshold"], method=c["method"], config=c, max_features=c["max_features"])
    mergeable, _ = split_pairs(pairs, reg, st.cfg, st.own)
    by_key = {t.key: t for t in reg}
    merge, clarify = merge_groups(mergeable)
    groups = []
    for members in merge:
        # the survivor is the most called member, then the best described, then the first
        groups.append(sorted((by_key[k] for k in members), key=lambda t: (
            -st.counts.get(t.key, 0), -len(t.description or ""), members.index(t.key))))
    notes = [f"not merged (similar wording, different objects): {', '.join(m)}; add a 'does NOT ..., use ...' "
             "clause to each instead" for m in clarify]
    return groups, notes


def _merge(st: PlanState, groups: list[list[Tool]]) -> None:
    sizes = st.tokens_of(st.current)
    vis = visibility(st.current, st.runs["delete"])
    originals = {t.key: t for t in st.current}

    def tokens(t: Tool) -> float:  # a merged tool is measured on its own
        return sizes[t.key] if originals.get(t.key) is t else st.tokens_of(Registry.from_tools([t]))[t.key]

    renamed: dict[str, str] = {}
    for tools in groups:
        survivor = tools[0]
        merged = replace(merge_tools(tools, name=survivor.name), server=survivor.server)
        others = tuple(t.key for t in tools[1:])
        st.actions.append(Action("merge", survivor.key, tuple(t.key for t in tools),
                                 f"merge {', '.join(others)} into {survivor.key} (longest description, union "
                                 "of parameters)", merge_saving(tools, tokens, vis)))
        for k in others:
            renamed[k] = survivor.key
        keep = set(others)
        st.current = st.current.filter(lambda t, keep=keep: t.key not in keep).map(
            lambda t, s=survivor, m=merged: m if t.key == s.key else t)
    if renamed and len(st.calls):
        st.calls = st.calls.assign(key=st.calls["key"].replace(renamed))


# --- 3. trim the results of tools whose results are large -------------------------------------------


def trim_results(st: PlanState, enabled: bool) -> None:
    """Trim the results of the tools whose mean result is large; the scenario's tool result becomes the
    log's mean after trimming."""
    calls = st.calls
    if st.usage is not None and len(calls) and calls["response_tokens"].notna().any():
        measured = calls[calls["response_tokens"].notna()]
        st.response_before = st.response_after = float(measured["response_tokens"].mean())
        if enabled:
            _trim(st, measured)
    elif enabled and st.usage is not None:
        st.warnings.append("the usage log gives no response sizes, so no trim is planned")
    if st.response_after is not None:
        st.scenario = replace(st.scenario, response_tokens=st.response_after)
    st.simulate("trim", st.current, st.scenario)


def _trim(st: PlanState, measured: pd.DataFrame) -> None:
    rule = st.trim_rule
    after_tokens, chosen = _trimmed_tokens(measured, rule, st.base.encoding or DEFAULT_ENCODING)
    st.response_after = float(after_tokens.mean())
    for key in chosen:
        sel = (measured["key"] == key).to_numpy()
        mb, ma = float(measured["response_tokens"][sel].mean()), float(after_tokens[sel].mean())
        st.actions.append(Action("trim", key, (key,), f"cap results at {rule['cap_tokens']:,} tokens: "
                                 f"mean {mb:,.0f} -> {ma:,.0f} per call over {int(sel.sum()):,} calls",
                                 weight=(mb - ma) * sel.sum()))


def _trimmed_tokens(calls: pd.DataFrame, rule: dict, encoding: str) -> tuple[np.ndarray, list[str]]:
    """Response tokens per call after trimming the tools the rule selects: a real `trim` of the payload
    when the log kept it, otherwise the result capped at `cap_tokens` (the stated assumption)."""
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
            tokens[i] = min(tokens[i], trim_payload(payload, encoding=encoding, **options).tokens_after)
        tokens[i] = min(tokens[i], rule["cap_tokens"])
    return tokens, chosen


# --- 4. gate by phase ----------------------------------------------------------------------------


def gate_by_phase(st: PlanState) -> None:
    """Gate by the phases given, unless the scenario already gates by them (then every stage kept its
    gating), and simulate the result: the plan's "after"."""
    st.gate = bool(st.phases) and tuple(st.phases) != tuple(st.scenario_phases)
    if st.scenario_phases and not st.gate:
        st.warnings.append("the scenario already gates by phase, so every stage keeps its gating and the plan "
                           "adds no gate stage")
    if st.gate and not len(st.current):
        st.warnings.append("no tool is left after the deletes and merges, so phase gating is skipped")
        st.gate = False
    if st.gate:
        _place_unphased(st)
        st.scenario = replace(st.scenario, strategy="phases", phases=st.phases)
    elif st.scenario_phases:
        nowhere = [t.key for t in st.reg if not any(_in_phase(t, p) for p in st.scenario_phases)]
        if nowhere:
            st.warnings.append(f"{len(nowhere)} tool(s) match no phase of the scenario, so no request shows them "
                               f"and deleting or merging them saves nothing per request: {_listed(nowhere)}")
    st.simulate("after", st.current, st.scenario)
    if st.gate:
        b, a = st.runs["trim"].summary, st.runs["after"].summary
        shown = "; ".join(f"{p.name} ({p.steps} step{'s' * (p.steps > 1)}): "
                          f"{sum(_in_phase(t, p) for t in st.current)} tools" for p in st.phases)
        st.actions.append(Action("gate", "(all)", tuple(p.name for p in st.phases), "phases: " + shown,
                                 b["tool_tokens_per_request"] - a["tool_tokens_per_request"]))


def _place_unphased(st: PlanState) -> None:
    """Tools that match no phase: visible in every phase (unphased="all") or never (unphased="hide")."""
    nowhere = [t.key for t in st.current if not any(_in_phase(t, p) for p in st.phases)]
    if not nowhere:
        return
    if st.unphased == "all":
        st.warnings.append(f"{len(nowhere)} tool(s) match no phase, so the plan keeps them visible in every "
                           f"phase (unphased='all'): {_listed(nowhere)}")
        st.phases = tuple(replace(p, tools=tuple(p.tools) + tuple(_literal(k) for k in nowhere))
                          for p in st.phases)
    else:
        st.warnings.append(f"{len(nowhere)} tool(s) match no phase and are never visible after gating: "
                           f"{_listed(nowhere)}")


def _listed(keys: list[str]) -> str:
    return f"{', '.join(keys[:12])}{' …' if len(keys) > 12 else ''}"


def _literal(key: str) -> str:
    """A glob that matches exactly `key`."""
    return re.sub(r"([*?\[])", r"[\1]", key)


# --- 5. defer every tool behind the provider's tool search -------------------------------------------


def defer_loading(st: PlanState, quality=None, enabled: bool = True) -> None:
    """Where the model's provider documents a tool search, defer every tool behind it when that costs
    less per completed task than the plan so far, at the measured hit rate or the stated assumption;
    the stages so far become "gate" and the deferral the plan's "after". Otherwise a warning says why not."""
    sc = st.scenario
    provider = st.runs["after"].assumptions["price"].get("provider", "")
    options = deferred_searches(sc.model, provider) if enabled and sc.strategy != "tool_search" else []
    if not options or not len(st.current):
        return
    rules = options[0]
    changes = dict(strategy="tool_search", search=rules.name, search_k=None)
    ch = price_search(st.current, sc, float(st.runs["after"].summary["cost_per_completed_task"]), quality, **changes)
    what = f"defer every tool behind {describe_search(rules)}, {rules.results_per_search} loaded per search"
    if not ch.saves():
        st.warnings.append(f"not planned: {what} would cost more per completed task ({ch.rests_on()})")
        return
    st.runs["gate"], st.simulated["gate"] = st.runs.pop("after"), st.simulated.pop("after")
    st.scenario = dataclasses.replace(sc, **changes, search_quality=ch.quality)
    st.simulate("after", st.current, st.scenario)
    b, a = st.runs["gate"].summary, st.runs["after"].summary
    st.actions.append(Action("defer", "(all)", (rules.name,), f"{what} ({ch.rests_on()}; {rules.source.split(';')[0]}, "
                             f"checked {rules.as_of})", b["tool_tokens_per_request"] - a["tool_tokens_per_request"]))
