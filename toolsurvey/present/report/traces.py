"""The report section "What your traces say": what was billed, and how far the simulation is from it."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ...model.compare import compare
from ...model.fit import fit_scenario
from ..units import money
from .document import NOT_PRICED, Headline, Section, Table


def traces_section(tr: Any) -> Section:
    """The section, built from `compare(tr, fit_scenario(tr))`, `compare(tr, cv=True)` (each session
    predicted from the others) and the traces' own totals."""
    s = Section("traces", "What your traces say")
    r = tr.requests
    billed = float(r["cost"].sum())
    s.text.append(f"The traces hold {len(tr.sessions):,} session(s), {len(r):,} model request(s) and "
                  f"{len(tr.calls):,} tool call(s); they were billed {money(billed, missing=NOT_PRICED)} in total. "
                  f"Requests were counted once each: {tr.dedup}.")
    try:
        sc = fit_scenario(tr)
        table = compare(tr, sc)
        held = compare(tr, cv=True) if tr.requests["session"].nunique() > 1 else None
    except Exception as e:  # noqa: BLE001 - a section that cannot be written says why, the report goes on
        s.missing = f"Not compared with the simulation: {e}"
        return s
    total = table.iloc[-1]
    s.figures += [Headline("traces_billed", "billed, from the traces", billed, money(billed, missing=NOT_PRICED)),
                  Headline("traces_simulated", "simulated for the same sessions", float(total["simulated"]),
                           money(float(total["simulated"]), missing=NOT_PRICED)),
                  Headline("traces_error", "simulation error vs the bill", float(total["error"]),
                           f"{total['error']:+.1%}")]
    if held is not None:
        err = held.attrs["total_error"]
        s.figures.append(Headline("traces_error_held_out", "error predicting each session from the others", err,
                                  f"{err:+.1%}"))
    s.text.append(f"Measured against the session model (each session priced from its own turns, requests, "
                  f"timestamps and models): {table.attrs['verdict']}. The model is fitted to the traces "
                  f"({sc.description}).")
    if held is not None:
        a = held.attrs
        s.text.append(f"Predicting each session from a model fitted on the other sessions only (leave one session "
                      f"out), what the what-ifs rest on: {a['verdict']}; by component {a['components']}; "
                      f"{a['sessions']}.")
    shown = pd.DataFrame({"session": table["session"], "model_requests": table["requests"].astype("int64"),
                          "billed_usd": table["billed"], "simulated_usd": table["simulated"],
                          "error_share": table["error"], "within_10pct": table["within_10pct"]})
    if held is not None:
        shown["held_out_usd"], shown["held_out_error_share"] = held["simulated"], held["error"]
    s.tables.append(Table("traces_vs_simulated", "Billed vs simulated cost per session", shown))
    tools = tr.totals("tool").head(10)
    if len(tools):
        s.tables.append(Table("traces_tools", "The tools whose results were largest in the traces",
                              tools[["server", "tool", "calls", "errors", "repeated", "result_tokens",
                                     "result_tokens_mean"]]))
    s.notes += [f"Traces: {p}" for p in tr.problems[:10]]
    if len(tr.problems) > 10:
        s.notes.append(f"Traces: … and {len(tr.problems) - 10} more ({tr.skips.summary()})")
    return s
