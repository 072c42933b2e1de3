"""Showing fewer tools, priced on what the search finds: a retrieval or deferred-loading change run
at the measured hit rate (from queries or traces), or at the stated assumption that every search
finds the tool, with the break-even hit rate below which the change costs more than it saves. The
report's levers and the plan's deferred-loading stage both come from here."""

from __future__ import annotations

import dataclasses
import math
import os
import warnings
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..core.registry import Registry
from ..inputs.trace_queries import queries_from_traces
from ..inputs.traces.files import is_trace_file
from ..measuring.retrieval.evaluation import retrieval_eval
from ..model.misses import break_even, quality_at
from ..model.simulate import Run, simulate
from ..providers.search import SearchRules, search_names, search_rules, searches_for


@dataclass
class SearchChange:
    """A change that hides tools behind a search, simulated: its run, its hit rate and where that comes
    from, and the break-even rate (None when even a perfect search costs more)."""

    changes: dict
    run: Run
    quality: float
    measured: bool
    k: int
    break_even: float | None
    baseline_cost: float

    @property
    def cost(self) -> float:
        return float(self.run.summary["cost_per_completed_task"])

    def saves(self) -> bool:
        return self.cost == self.cost and self.cost < self.baseline_cost

    source: Any = None  # what measured the hit rate: a retrieval evaluation, a MeasuredDeferral, or None

    def rests_on(self) -> str:
        """What the figure rests on, in a phrase for a lever or a plan action."""
        need = (f"saves money only if the search finds the needed tool in at least {self.break_even:.0%} of tasks"
                if self.break_even is not None else "costs more even if every search finds the needed tool")
        if isinstance(self.source, MeasuredDeferral):
            return f"measured end to end: {self.source.describe()}; {need}"
        if self.measured:
            bm25 = ("; BM25's hit rate without the model in the loop: an eval run with --defer, given as "
                    "--eval FILE, measures it end to end" if self.changes.get("strategy") == "tool_search" else "")
            return f"measured: the top {self.k} hold a needed tool for {self.quality:.0%} of the queries{bm25}; {need}"
        return f"assumes every search finds the needed tool, as no queries measured it; {need}"


@dataclass(frozen=True)
class MeasuredDeferral:
    """Deferred loading measured with the model in the loop (`toolsurvey eval --defer MODE`): the
    end-to-end rate, the queries needing a tool whose model ended on a right call, with its Wilson 95%
    interval. It stands where a hit rate goes (`hit_at(k)`, the same rate at every k: the eval ran
    at its own k), so a deferred-loading lever priced with it counts a query the model did not finish
    right as a search that missed."""

    rate: float
    count: int
    of: int
    low: float
    high: float
    model: str
    modes: tuple[str, ...]
    searched: float | None = None
    found_gold: float | None = None

    def hit_at(self, k: int) -> float:
        return self.rate

    def describe(self) -> str:
        return (f"{self.model} called a needed tool after deferred loading (eval --defer {', '.join(self.modes)}) "
                f"for {self.count} of {self.of} queries, {self.rate:.0%} [{self.low:.0%}, {self.high:.0%}]")


def deferral_from_eval(ev: Any) -> MeasuredDeferral:
    """The end-to-end rate of an eval run with `--defer` (a stored eval, `read_eval(path)`, or its
    path), for the report's and the plan's deferral levers (`deferral=`). Raises InputError for an
    eval without defer records, or one with no query that needs a tool."""
    from ..errors import InputError
    from ..measuring.selection.defer_metrics import defer_summary, deferred
    from ..measuring.selection.stored import read_eval

    if isinstance(ev, (str, os.PathLike)):
        ev = read_eval(ev)
    ev = getattr(ev, "eval", ev)  # a sweep's eval
    records = list(getattr(ev, "records", []) or [])
    if not deferred(records):
        raise InputError("expected an eval run with --defer (its records carry \"defer\"); found an eval "
                         "without deferred loading, so the deferral levers keep BM25's hit rate")
    d = defer_summary(records)
    e = d["end_to_end"]
    if not e["of"]:
        raise InputError("the --defer eval has no query that needs a tool, so it measures no end-to-end rate")
    return MeasuredDeferral(e["rate"], e["count"], e["of"], e["low"], e["high"], ev.model, tuple(d["modes"]),
                            d["searched"]["rate"], d["search_found_gold"]["rate"])


def deferral_in(ev: Any) -> MeasuredDeferral | None:
    """`deferral_from_eval` of an eval (read, or its path) when it was run with `--defer`, else None:
    what `report(eval=)` and `plan(eval=)` price the deferral levers with when no `deferral` is given."""
    from ..measuring.selection.defer_metrics import deferred
    from ..measuring.selection.stored import as_eval

    ev = as_eval(ev)
    return deferral_from_eval(ev) if ev is not None and deferred(getattr(ev, "records", [])) else None


def _simulate(reg: Registry | None, sc: Any, **changes: Any) -> Run:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return simulate(reg, sc, **changes)


def price_search(reg: Registry | None, sc: Any, baseline_cost: float, quality: Any = None,
                 **changes: Any) -> SearchChange:
    """Simulate `sc` with `changes` (a retrieval or tool_search strategy) at `quality` (a retrieval
    evaluation or a hit rate; None: the assumption that every search finds the tool), and find the
    hit rate at which its cost per completed task meets `baseline_cost`. Raises InputError as simulate does."""
    probe = dataclasses.replace(sc, **changes)
    k = probe.search_k if probe.strategy == "tool_search" else probe.retrieval_k
    q = 1.0 if quality is None else quality_at(quality, k)
    run = _simulate(reg, sc, **changes, search_quality=q)
    cost_at = lambda x: float(_simulate(reg, sc, **changes, search_quality=x).summary["cost_per_completed_task"])
    if probe.strategy == "retrieval":  # cost per completed task is c / q: the break-even is exact
        perfect = cost_at(1.0)
        be = perfect / baseline_cost if perfect <= baseline_cost else None
    else:
        be = break_even(cost_at, baseline_cost, tol=1e-3)
    be = None if be is None or math.isnan(be) else be
    return SearchChange(changes, run, q, quality is not None, k, be, baseline_cost, quality)


def measured_search(reg: Registry, queries: Any):
    """A retrieval evaluation (BM25) of `queries` on `reg`: a queries file, Query values, or agent
    traces (a trace file or folder: each prompt with the registry tools then called); an evaluation
    or hit rate as given; None without queries. Raises InputError for bad queries."""
    if queries is None or hasattr(queries, "hit_at") or isinstance(queries, (int, float)):
        return queries
    if isinstance(queries, (str, os.PathLike)) and is_trace_file(queries):
        queries = queries_from_traces(queries, reg)
    return retrieval_eval(reg, queries)


def deferred_searches(model: str, provider: str) -> list[SearchRules]:
    """The provider's documented searches that support `model` (empty where it offers none)."""
    return [r for r in searches_for(provider) if r.supports(model)]


def describe_search(rules: SearchRules) -> str:
    """How a lever names a provider's search: 'Anthropic's tool search (BM25 variant)' (its label in
    providers.toml)."""
    return rules.label or rules.name


def cost_by_search_k(reg: Registry, sc: Any, quality: Any = None, ks=range(1, 11)) -> pd.DataFrame:
    """Cost per completed task of deferring every tool behind a search loading k tools per search,
    for each k, at the hit rate `quality` measures at that k (a retrieval evaluation), or 1.0."""
    provider = _simulate(reg, sc).assumptions["price"].get("provider", "")
    options = deferred_searches(sc.model, provider)
    search = options[0].name if options else "custom"
    rows = []
    for k in ks:
        q = 1.0 if quality is None else quality_at(quality, k)
        s = _simulate(reg, sc, strategy="tool_search", search=search, search_k=k, search_quality=q, samples=0).summary
        rows.append({"k": k, "hit_at_k": q, "measured": quality is not None, "success": s["success"],
                     "tool_tokens_per_request": s["tool_tokens_per_request"],
                     "cost_per_completed_task": s["cost_per_completed_task"]})
    return pd.DataFrame(rows)


def deferred_vs_visible(reg: Registry, sc: Any, quality: Any = None) -> pd.DataFrame:
    """For each provider search documented in providers.toml: every tool visible against every tool
    deferred behind the search, priced on the scenario with a model that supports it (the scenario's
    own when it does) at the measured hit rate or 1.0. `quality` is one evaluation for all, or a
    mapping search name -> evaluation (e.g. the regex method's for anthropic-regex). One row per
    (search, strategy)."""
    rows = []
    for name in [n for n in search_names() if n != "custom"]:
        rules = search_rules(name)
        model = sc.model if rules.supports(sc.model) else rules.example_model
        given = quality.get(name) if isinstance(quality, dict) else quality
        q = 1.0 if given is None else quality_at(given, rules.results_per_search)
        for strategy, changes in (("all visible", dict(strategy="all")),
                                  ("deferred", dict(strategy="tool_search", search=name, search_k=None,
                                                    search_quality=q))):
            s = _simulate(reg, sc, model=model, samples=0, **changes).summary
            rows.append({"search": name, "model": model, "strategy": strategy, "hit_at_k": q if strategy == "deferred"
                         else float("nan"), "tool_tokens_per_request": s["tool_tokens_per_request"],
                         "cost_per_completed_task": s["cost_per_completed_task"]})
    return pd.DataFrame(rows)
