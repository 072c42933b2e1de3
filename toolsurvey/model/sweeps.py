"""Sweeps: one summary row per combination of scenario fields, computed a chunk of rows at a time,
and the description-length sweep."""

from __future__ import annotations

import dataclasses
import itertools
import warnings as _warnings
from typing import Any

import numpy as np
import pandas as pd

from ..core.registry import Registry
from ..errors import InputError
from .accuracy import DescriptionEffect, load_description_effect
from .context import Context
from .cost import row_parameters, row_summaries
from .dist import Dist
from .misses import search_assumptions
from .scenario import Scenario
from .session import session_summary
from .simulate import run_assumptions

# Rows per chunk of a sweep x requests per row: each per-request array of a chunk (there are some 25)
# holds this many floats, 16 MB, so a sweep of a million scenarios never holds them all at once.
_CHUNK_CELLS = 2_000_000


def _chunked_summaries(ctx: Context, groups: list[Scenario], pick: np.ndarray | None,
                       steps: np.ndarray | None) -> tuple[pd.DataFrame, dict]:
    """`row_summaries(row_parameters(...))` a chunk of rows at a time (each row is computed on its own, so the
    numbers are the same), with the price, limit problems and profile of every group used."""
    if pick is None:
        pick, steps = np.arange(len(groups)), np.array([sc.steps.expected() for sc in groups])
    if any(sc.is_session() for sc in groups):
        return _session_summaries(ctx, groups, pick, steps)
    size = max(1, int(_CHUNK_CELLS // (2 * float(np.max(steps)) + 4)))  # ~requests of the longest task
    tables, profiles, prices, limits = [], {}, [], []
    for start in range(0, len(pick), size):
        chunk = pick[start:start + size]
        used = np.unique(chunk)
        rows = row_parameters(ctx, [groups[i] for i in used], np.searchsorted(used, chunk), steps[start:start + size])
        tables.append(row_summaries(rows))
        profiles.update((id(p), p) for p in rows["profiles"])
        prices += rows["prices"]
        limits += rows["limits"]
    out = tables[0] if len(tables) == 1 else pd.concat(tables, ignore_index=True)
    return out, {"profiles": list(profiles.values()), "prices": prices, "limits": limits}


def _session_summaries(ctx: Context, groups: list[Scenario], pick: np.ndarray, steps: np.ndarray
                       ) -> tuple[pd.DataFrame, dict]:
    """One session summary per row (`session.session_summary`, a row at a time: sessions are priced
    request by request), with the price, limit problems and profile of every row."""
    out, profiles, prices, limits = [], {}, [], []
    for g, st in zip(pick, steps, strict=True):
        summary, _, rows = session_summary(ctx, dataclasses.replace(groups[g], steps=float(st)))
        out.append(summary)
        profiles.update((id(p), p) for p in rows["profiles"])
        prices += rows["prices"]
        limits += rows["limits"]
    return pd.DataFrame(out), {"profiles": list(profiles.values()), "prices": prices, "limits": limits}


def sweep(reg: Registry | None, scenario: Scenario | None = None, **grid) -> pd.DataFrame:
    """Every combination of the listed field values (e.g. steps=range(1, 21), visible=[6, 12],
    strategy=[...], model=[...]) applied to `scenario`: one summary row per combination.

    A scalar value is applied to every row. The result's `attrs["assumptions"]` holds the base
    scenario's assumptions and every price row used. Raises InputError for unknown fields or values.
    """
    base = scenario or Scenario()
    known = {f.name for f in dataclasses.fields(Scenario)}
    bad = sorted(set(grid) - known)
    if bad:
        raise InputError(f"sweep: unknown field(s) {', '.join(bad)}; expected Scenario fields: {', '.join(sorted(known))}")
    axes = {k: (list(v) if isinstance(v, (list, tuple, range, np.ndarray, pd.Index)) else [v]) for k, v in grid.items()}
    for k, v in axes.items():
        if not v:
            raise InputError(f"sweep: {k} has no values")
    # Scenarios are built (and validated) once per combination of the other fields; steps, the
    # usual long axis, varies per row without building a Scenario for each.
    step_values = axes.pop("steps", None)
    if step_values is not None and len(step_values) == 1:
        axes["steps"], step_values = step_values, None
    fixed = {k: v[0] for k, v in axes.items() if len(v) == 1}
    base = dataclasses.replace(base, **fixed)
    varying = [k for k in axes if k not in fixed]
    groups = [dataclasses.replace(base, **dict(zip(varying, combo, strict=True))) if varying else base
              for combo in itertools.product(*(axes[k] for k in varying))]
    pick = steps = None  # one row per group, at the group's own steps
    if step_values is not None:
        step_exp = np.array([dataclasses.replace(base, steps=v).steps.expected() for v in step_values])
        pick = np.repeat(np.arange(len(groups)), len(step_exp))
        steps = np.tile(step_exp, len(groups))
        varying.append("steps")
        axes["steps"] = step_values
    ctx = Context(reg)
    out, rows = _chunked_summaries(ctx, groups, pick, steps)
    row_group = pick if pick is not None else np.arange(len(groups))
    for k in varying:
        if k not in out.columns:
            labels = [_label(getattr(sc, k)) for sc in groups]  # a distribution shows as its number
            out.insert(0, k, np.asarray(labels, dtype=object)[row_group])
    warns = sorted({w for p in rows["profiles"] for w in p.warnings}
                   | {f"{pr.model}: {w}" for pr, lim in zip(rows["prices"], rows["limits"], strict=True) for w in lim})
    if (~out["fits"]).any():
        warns.append(f"{int((~out['fits']).sum())} scenario(s) exceed the model's context window and are not priced")
    curve = ctx.curve(base) if base.accuracy else None
    # The first combination stands for the base (the swept fields are listed apart): the base's own
    # model may not suit a swept setting (e.g. explicit caching swept over Gemini models).
    first = groups[0]
    price0 = ctx.price(first)
    table0 = ctx.table(first, price0)
    out.attrs["assumptions"] = {**run_assumptions(first, price0, ctx.profile(first, table0), table0, curve),
                                # a search row's quality and provider rules, even when the first row shows every tool
                                **next((a for a in map(search_assumptions, groups) if a), {}),
                                "swept": {k: [_plain(x) for x in axes[k]] for k in varying},
                                "prices": {p.model: p.as_dict() for p in {p.model: p for p in rows["prices"]}.values()}}
    out.attrs["warnings"] = warns
    for w in warns:
        _warnings.warn(w, stacklevel=2)
    return out


def _plain(x: Any) -> Any:
    return x.item() if hasattr(x, "item") else x


def _label(x: Any) -> Any:
    return x.describe() if isinstance(x, Dist) else x


def description_sweep(table: pd.DataFrame, scenario: Scenario | None = None, lengths=range(0, 401, 10), *,
                      effect: Any = None) -> pd.DataFrame:
    """Cost per task with every tool's description set to each of `lengths` tokens and the rest of
    each tool as measured in `table` (a `footprint`), priced in average-size mode with strategy
    "all" under the scenario's visible cap.

    With the scenario's accuracy effect on, the catalog-size curve's error rates are scaled by the
    description-length assumption (`effect`: None for the bundled one, a DescriptionEffect or a
    path, such as a measured one from `toolsurvey eval --description-tokens ... --fit-descriptions`,
    False for none) relative to the registry's current mean description length. Adds the
    columns description_tokens, tool_tokens, wrong_multiplier and failure_multiplier; raises
    InputError for a malformed effect file or scenario.
    """
    sc = scenario or Scenario()
    tools = table[table["kind"] == "tool"]
    rest = float((tools["tokens"] - tools["description"]).mean()) if len(tools) else 0.0
    now = float(tools["description"].mean()) if len(tools) else 0.0
    lengths = [float(d) for d in lengths]
    base = dataclasses.replace(sc, strategy="all", phases=None, tools=(), core=(),
                               registry_size=max(len(tools), 1), tool_tokens=rest)
    eff = None
    if effect is not False and sc.accuracy:
        eff = effect if isinstance(effect, DescriptionEffect) else load_description_effect(effect)
        wrong, failure = eff.relative(lengths, now)
    else:
        wrong = failure = np.ones(len(lengths))
    curve = sc.curve()
    rows = [sweep(None, base, tool_tokens=rest + d, accuracy_curve=curve.scaled(w, f))
            for d, w, f in zip(lengths, wrong, failure, strict=True)]
    grid = pd.concat(rows, ignore_index=True)
    grid.insert(0, "description_tokens", lengths)
    grid["tool_tokens"] = [rest + d for d in lengths]
    grid["wrong_multiplier"], grid["failure_multiplier"] = wrong, failure
    grid.attrs["assumptions"] = {
        **rows[0].attrs["assumptions"], "accuracy_curve": curve.as_dict(),
        "description_effect": None if eff is None else {
            "points": [{"tokens": t, "wrong": w, "failure": f}
                       for t, w, f in zip(eff.tokens, eff.wrong, eff.failure, strict=True)],
            "relative_to_mean_description_tokens": now, "source": eff.source, "as_of": eff.as_of}}
    return grid
