"""The report's section "What the model picks", written when an eval file is given (`report(...,
eval=FILE)`, `toolsurvey report --eval FILE`): the eval's accuracy with its 95% interval, the five
pairs of tools the model took for each other most, the five tools it skipped most, and the accuracy
curve the cost per completed task rests on, beside the eval's own wrong-call rate. Every figure is the
eval's own (`SelectionEval.summary`, `confused_pairs`, `skipped`, `sweep.wrong_calls`), counted from
each query's first answer; a sweep is read at its largest visible set (`stored.largest`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ...measuring.selection.result import CAVEAT
from ...measuring.selection.stored import largest, picked_from
from ...measuring.selection.sweep import wrong_calls
from ..units import money, percent
from .document import NOT_PRICED, Headline, Section, Table
from .inputs import Inputs

TOP = 5  # pairs and tools shown
HOW = ("`toolsurvey eval REGISTRY --queries FILE --model MODEL --format json -o eval.json`, then "
       "`toolsurvey report REGISTRY --eval eval.json` (docs/eval.md)")


def rate_shown(r: dict) -> str:
    """`25.0% [8.9%, 53.2%]` (– when nothing was counted)."""
    return "–" if r["rate"] is None else f"{percent(r['rate'])} [{percent(r['low'])}, {percent(r['high'])}]"


def picks_section(inp: Inputs) -> Section:
    """The section from `inp.eval` (module docstring)."""
    ev = largest(inp.eval)
    s = Section("picks", "What the model picks")
    summ = ev.summary
    where = f" ({Path(inp.eval_name).name})" if inp.eval_name else ""
    s.text.append(f"{ev.model} answered {summ['queries']:,} queries{where} with this registry's tools in view; "
                  f"counted from {picked_from(inp.eval)}, as `toolsurvey eval` counts them. {CAVEAT}")
    acc = summ["accuracy"]
    s.figures.append(Headline("picks_accuracy", f"accuracy, 95% interval ({acc['count']} of {acc['of']} queries: "
                              "the right tool, or rightly no call)", acc["rate"], rate_shown(acc)))
    s.tables.append(_confused(ev))
    s.tables.append(_skipped(ev))
    s.tables.append(_curve(inp, ev))
    keys = {t.key for t in inp.reg}
    named = sorted(({r["expected"] for r in ev.records} | {r["called"] for r in ev.records}) - keys - {"none", "invalid"})
    if named:
        s.notes.append(f"{len(named)} tool(s) of the eval are not in this registry (an eval of another version?): "
                       + ", ".join(named[:10]) + (" …" if len(named) > 10 else ""))
    return s


def _confused(ev) -> Table:
    pairs = ev.confused_pairs()
    rows = [{"tool": p["a"], "taken_for": p["b"], "times": p["a_as_b"], "times_back": p["b_as_a"],
             "both_ways": p["total"], "queries": ", ".join(p["queries_a_as_b"] + p["queries_b_as_a"])}
            for p in pairs[:TOP]]
    cols = ["tool", "taken_for", "times", "times_back", "both_ways", "queries"]
    return Table("picks_confused", f"The {TOP} pairs of tools the model confused most (a query needing the first, "
                 "answered with a call to the second, or back)", pd.DataFrame(rows, columns=cols),
                 note=f"{len(pairs)} pair(s) confused in all; `toolsurvey audit REGISTRY --eval FILE` lists those "
                      "confused at least [selection] min_confusions times, beside the near-duplicate rule's score "
                      "for the same pair (rule confused-pair).")


def _skipped(ev) -> Table:
    rows = [{"tool": r["tool"], "skipped": r["skipped"], "needed": r["expected"],
             "skip_share": r["skipped"] / r["expected"], "queries": ", ".join(r["queries"])} for r in ev.skipped()]
    return Table("picks_skipped", f"The {TOP} tools the model skipped most (no call, where the query needs the tool)",
                 pd.DataFrame(rows[:TOP], columns=["tool", "skipped", "needed", "skip_share", "queries"]),
                 note=f"{len(rows)} tool(s) skipped at least once; a query counts for its first gold tool.")


def _curve(inp: Inputs, ev) -> Table:
    """The curve the cost per completed task uses, read at the scenario's tools visible, beside the
    eval's wrong-call rate at the tools it offered."""
    r, curve, sc = inp.run.summary, inp.run.assumptions["accuracy_curve"], inp.run.scenario
    given = sc.accuracy_curve is not None
    w = wrong_calls(ev.records)
    offered = [len(x["tools_offered"]) for x in ev.records if x.get("repeat", 0) == 0]
    mean_offered = sum(offered) / len(offered) if offered else float("nan")
    source = curve["source"] if isinstance(curve, dict) else curve
    rows = [{"figures_from": ("the curve given (--accuracy-curve): " if given else "the default curve: ") + source,
             "mean_visible": float(r["mean_visible"]), "wrong_rate": float(r["wrong_rate"]),
             "success": float(r["success"])},
            {"figures_from": f"this eval: wrong calls {w['count']} of {w['of']} calls made",
             "mean_visible": mean_offered, "wrong_rate": w["rate"], "success": None}]
    cost = money(r["cost_per_completed_task"], missing=NOT_PRICED)
    how = ("" if given else " To price with your model's own curve: `toolsurvey eval ... --visible 5,10,20,all --fit "
           "curve.toml`, then `--accuracy-curve curve.toml`.")
    return Table("picks_curve", f"The accuracy curve behind the cost per completed task ({cost}), beside this eval",
                 pd.DataFrame(rows, columns=["figures_from", "mean_visible", "wrong_rate", "success"]),
                 note="Wrong rate: the share of tool calls to a wrong tool (the eval's: (wrong + invalid) / calls "
                      "made, over the queries that need a tool). Task success is the curve's; one answer per query "
                      "does not measure it." + how)
