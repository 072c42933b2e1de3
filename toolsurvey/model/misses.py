"""What a search miss costs: the search a scenario names (a provider's documented one, or the
team's own), its quality (a hit rate at the search's k, or a retrieval evaluation's hit@k), the
expected searches per needed tool and the chance that the task finds its tools at all, and the
break-even hit rate below which hiding tools costs more than showing them (docs/simulation.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import InputError
from ..providers.search import CUSTOM, check_model, search_rules

DEFAULT_SEARCH_K = 5  # tools a search loads when the scenario names no provider search


def resolve_search(search: str | None, model: str, search_k: int | None) -> int:
    """The tools each search loads: the scenario's search_k, else the named search's documented
    results per search, else 5. Raises InputError for an unknown search, a model that does not
    support the provider's search (naming the models that do), or "custom" without search_k."""
    if search is None:
        return DEFAULT_SEARCH_K if search_k is None else search_k
    if search == CUSTOM:
        if search_k is None:
            raise InputError("search 'custom' needs search_k: how many tools one search of yours loads")
        return search_k
    rules = search_rules(search)  # raises for an unknown search, listing the documented ones
    check_model(rules, model)
    return rules.results_per_search if search_k is None else search_k


def check_quality(value: Any) -> Any:
    """`value` if it is a hit rate in [0, 1] or has hit_at(k) (a retrieval evaluation); raises InputError."""
    if hasattr(value, "hit_at"):
        return value
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if not ok or not 0 <= float(value) <= 1:
        raise InputError(f"search_quality must be a hit rate from 0 to 1 or a retrieval evaluation "
                         f"(ts.retrieval_eval), found {value!r}")
    return float(value)


def quality_at(value: Any, k: int) -> float:
    """The hit rate at `k`: a number as given, or a retrieval evaluation's hit@k."""
    return float(value.hit_at(k)) if hasattr(value, "hit_at") else float(value)


def expected_attempts(q: float, tries: int) -> float:
    """Expected searches for one needed tool when each search finds it with probability q and a miss
    leads to another search, at most `tries`: 1 + (1-q) + ... + (1-q)^(tries-1)."""
    return float(sum((1 - q) ** i for i in range(tries)))


def found_share(q: float, tries: int) -> float:
    """The chance that one of `tries` searches finds the needed tool: 1 - (1-q)^tries."""
    return 1.0 - (1 - q) ** tries


def describe_quality(value: Any, k: int) -> str:
    """Where the hit rate comes from, for the run's assumptions."""
    if hasattr(value, "hit_at"):
        return f"measured: hit@{k} {quality_at(value, k):.1%} ({value.describe()})"
    if float(value) == 1.0:
        return "assumed 1.0: every search finds the needed tool (no queries or traces measured it)"
    return f"given: {float(value):.1%} of searches find the needed tool"


def search_assumptions(sc) -> dict[str, str]:
    """What a retrieval or tool-search run assumed of its search: where the hit rate comes from, and
    the documented rules of the provider's search it names (source and date)."""
    if sc.strategy not in ("retrieval", "tool_search"):
        return {}
    k = sc.search_k if sc.strategy == "tool_search" else sc.retrieval_k
    out = {"search_quality": describe_quality(sc.search_quality, k)}
    if sc.strategy == "tool_search" and sc.search not in (None, CUSTOM):
        r = search_rules(sc.search)
        out["search_rules"] = (f"{r.name} ({r.tool_type}): {r.results_per_search} tools per search, the search "
                               f"tool ~{r.search_tool_tokens:g} tokens, deferred tools show {r.deferred_visible}, "
                               f"loaded definitions enter at the {r.loaded_at} (prompt cache {r.cache}); "
                               f"{r.cite()}" + (f"; assumed: {r.assumed}" if r.assumed else ""))
    return out


def break_even(cost_at: Callable[[float], float], target: float, tol: float = 1e-4) -> float | None:
    """The lowest hit rate q at which cost_at(q) (a cost per completed task, falling as q rises) is
    at most `target`; None when even q = 1 costs more. Bisection to `tol`."""
    if not cost_at(1.0) <= target:
        return None
    lo, hi = 0.0, 1.0
    while hi - lo > tol:
        mid = (lo + hi) / 2
        if cost_at(mid) <= target:
            hi = mid
        else:
            lo = mid
    return hi
