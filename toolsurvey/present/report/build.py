"""`report()`: resolve the report's inputs once, build each section from them, and assemble the Report."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pandas as pd

from ...advice.audit.run import audit
from ...advice.baseline import baseline
from ...advice.deferral import deferral_from_eval, deferral_in, measured_search
from ...advice.diff import as_registry, measure_settings
from ...inputs.sources import usage_and_traces
from ...inputs.usage import summarize
from ...measuring.footprint import footprint, tools_only
from ...model.assumed import with_options
from ...model.scenario import Scenario
from .document import Report, Section
from .inputs import USAGE_WINDOW_DAYS, Inputs, simulate_quietly, stored_eval
from .meta import meta
from .method import method_section
from .picks import HOW, picks_section
from .plan import plan_section
from .responses import responses_section
from .search import search_section
from .sensitivity import sensitivity_section
from .summary import summary_section
from .surface import findings_section, surface_section
from .traces import traces_section


def report(reg: Any, scenario: Any = None, *, usage: Any = None, top: int = 15, title: str | None = None,
           own: Any = None, traces: Any = None, queries: Any = None, eval: Any = None, deferral: Any = None,
           **changes: Any) -> Report:
    """Build the report for a registry (or path), with an optional scenario (TOML path or Scenario)
    and usage log; `changes` replace scenario fields, as `simulate` takes them (e.g. `model`,
    `tasks_per_day`, `caching`, `render`, `accuracy_curve` (a curve file, e.g. one `toolsurvey eval
    --visible ... --fit` wrote); None leaves a field as it is). Every key assumption not
    given is named in the executive summary.
    Today's cost is `advice.baseline`: the scenario with the log's mean tool result, the same run as the
    plan's "before". `own` names the servers the user owns (merges may join their tools).
    Agent traces (a trace path as `usage`, or `traces`) add the section "What your traces say".
    `queries` (a queries file, or a retrieval evaluation) measures what a search finds: the search
    levers and the plan's deferred-loading stage use its hit rate, and the findability table is added.
    `deferral` (advice.deferral.deferral_from_eval of an eval run with --defer, or that eval or its
    path) prices the deferred-loading lever and the plan's stage at the end-to-end rate measured with
    the model in the loop instead (so does an `eval` run with --defer); without it they keep BM25's hit
    rate and say so.
    `eval` (an eval file `toolsurvey eval` wrote, its --log, or an eval already read) adds the section
    "What the model picks"; without it the section is left out and "Method and assumptions" says how to add it.

    Raises InputError for inputs that cannot be loaded; a section whose input is missing says so.
    """
    reg = as_registry(reg)
    named = {"scenario": scenario, "usage": usage, "traces": traces, "eval": eval}  # the inputs as given, for the meta line
    sc, stated, missing = _scenario(scenario, **changes)
    table = footprint(reg, **{"render": "json", **measure_settings(sc)})
    traces, usage = usage_and_traces(usage, traces)  # resolved once: a trace path as usage gives both
    ev, ev_name = stored_eval(eval)  # read before any work, so a bad file fails fast
    if deferral is not None and not hasattr(deferral, "hit_at"):
        deferral = deferral_from_eval(deferral)
    elif deferral is None and ev is not None:
        deferral = deferral_in(ev)  # an eval run with --defer prices the deferral levers
    inp = _inputs(reg, sc, table, usage, top=top, own=own, stated=stated, missing=missing,
                  retrieval=measured_search(reg, queries))
    inp.eval, inp.eval_name, inp.deferral = ev, ev_name, deferral
    if ev is None:
        inp.missing["eval"] = ("no eval file was given, so the section \"What the model picks\" is left out; "
                               "to add it: " + HOW)
    return Report(title or "What our agent's tools cost", _subtitle(reg, table), _sections(inp, traces),
                  inp.levers, meta=meta(reg.sources, **named))


def _scenario(scenario: Any, **changes: Any) -> tuple[Any, set[str], dict[str, str]]:
    """The scenario with the changes given applied, the fields stated, and the note when there was none."""
    missing = {}
    if scenario is None:
        missing["scenario"] = ("no scenario file was given, so the simulation's default assumptions are "
                               "used; pass --scenario to use yours")
    unknown = sorted(set(changes) - {f.name for f in dataclasses.fields(Scenario)})
    if unknown:
        raise TypeError(f"report() got an unexpected keyword argument {unknown[0]!r} (not a Scenario field)")
    # The changes given win over the scenario's, for the footprint and the simulation alike.
    sc, stated = with_options(scenario, **{k: v for k, v in changes.items() if v != "" or not isinstance(v, str)})
    return sc, stated, missing


def _inputs(reg: Any, sc: Any, table: pd.DataFrame, usage: Any, *, top: int, own: Any, stated: set[str],
            missing: dict[str, str], retrieval: Any = None) -> Inputs:
    """The usage log summarized, today's scenario (with the log's mean result) simulated, and the audit."""
    log = summary = None
    if usage is None:
        missing["usage"] = "no usage log was given (--usage FILE)"
    else:
        log = usage
        # The same 90-day window as the plan's "never called", so both name the same tools.
        summary = summarize(log, reg, window_days=USAGE_WINDOW_DAYS)
    today = baseline(reg, sc, log)
    run = simulate_quietly(reg, today)
    return Inputs(reg, table, today, run, audit(reg, own=own, queries=retrieval),
                  given_response_tokens=sc.response_tokens.expected(), top=top, usage=summary, usage_log=log,
                  missing=missing, stated=stated, own=own, retrieval=retrieval)


def _sections(inp: Inputs, traces: Any) -> list[Section]:
    planned = plan_section(inp)  # before the summary, which quotes the plan's result
    sections = [summary_section(inp), surface_section(inp), findings_section(inp), responses_section(inp), planned,
                sensitivity_section(inp), method_section(inp)]
    if inp.retrieval is not None:
        sections.insert(-1, search_section(inp))
    if inp.eval is not None:
        sections.insert(-1, picks_section(inp))
    if traces is not None:
        sections.insert(-1, traces_section(traces))
    return sections


def _subtitle(reg: Any, table: pd.DataFrame) -> str:
    n_tools, n_servers = len(tools_only(table)), len(reg.servers)
    sources = ", ".join(Path(s).name for s in reg.sources) or "a registry built in code"
    return (f"{n_tools:,} tool{'s' * (n_tools != 1)} in {n_servers:,} server{'s' * (n_servers != 1)}, "
            f"from {sources}")
