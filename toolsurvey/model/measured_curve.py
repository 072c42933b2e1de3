"""An accuracy curve measured by a catalog-size sweep (`toolsurvey eval --visible ... --fit FILE`),
written in accuracy.toml's layout so that `load_accuracy`, `Scenario(accuracy_curve=FILE)`,
`simulate`, `plan` and `report` read it as they read the bundled one.

Each size of the sweep gives one point:
- `visible`: the mean number of tools offered at that size, over every query's first answer (gold
  tools included; the sweep table's `tools` column);
- `wrong`: the sweep's wrong-call rate (`measuring.selection.sweep.wrong_calls`): of the queries that
  need a tool and whose answer made a call, the share whose call was `wrong` or `invalid`;
- `success`: derived, not measured (docs/simulation.md, "A measured curve"): a task of K useful
  calls succeeds when each of its calls picks a right tool, each as likely as one query's, so
  success = (right / queries that need a tool) ^ K, K = `task_calls` (1 by default).

A rate at 0 or 1 that the curve cannot hold (wrong 1: a task never ends; success 0: cost per completed
task divides by it) is moved half a count inward ((k - 0.5) / n, or 0.5 / n), and the file and the
warnings say so. A size with no call to count (no query needing a tool, or no call made) gives no
point, and is named in the warnings; fewer than two points is an error."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from ..errors import InputError
from ..measuring.selection.sweep import SweepEval, wrong_calls
from .accuracy import curve_from_mapping

WRONG_RULE = ("wrong = (wrong + invalid) / (right + wrong + invalid) over the queries that need a tool, each "
              "query's first answer; skips and queries that need no tool are not counted")


def success_rule(task_calls: int) -> str:
    return (f"task success derived, not measured: (right / queries that need a tool) ^ {task_calls}, a task of "
            f"{task_calls} useful call(s) succeeding when each picks a right tool (docs/simulation.md, "
            "'A measured curve')")


def fit_accuracy_curve(sweep: SweepEval, query_files: Sequence[tuple[str, str]] = (), *, task_calls: int = 1,
                       date: str | None = None) -> tuple[dict, list[str]]:
    """(the curve's TOML document, warnings) from a sweep (module docstring). `query_files`, the query
    files' (name, sha256) pairs (`inputs.queries.file_digests`), are named in the source; `date`
    (YYYY-MM-DD, default today in UTC) is the curve's as_of."""
    if task_calls < 1:
        raise InputError(f"expected --task-calls of at least 1, found {task_calls}")
    date = date or datetime.now(UTC).date().isoformat()
    files = list(query_files)
    points, warnings = [], []
    for s in sweep.sizes:
        recs = [r for r in sweep.records if r["visible"] == s]
        w = wrong_calls(recs)
        first = [r for r in recs if r.get("repeat", 0) == 0 and r["gold"]]
        right = sum(1 for r in first if r["outcome"] == "right")
        if not first or not w["of"]:
            warnings.append(f"--fit: visible {s} has no tool call to count ({len(first)} queries need a tool, "
                            f"{w['of']} calls made), so it gives no point")
            continue
        wrong = w["count"] / w["of"]
        if w["count"] == w["of"]:
            wrong = (w["count"] - 0.5) / w["of"]
            warnings.append(f"--fit: visible {s}: every call was wrong ({w['count']} of {w['of']}); written as "
                            f"{w['count']} - 0.5 of {w['of']} = {wrong:.4g}, since a curve's wrong rate must be below 1")
        acc = right / len(first)
        if right == 0:
            acc = 0.5 / len(first)
            warnings.append(f"--fit: visible {s}: no query was answered right (0 of {len(first)}); task success "
                            f"written from 0.5 of {len(first)}, since a curve's success must be above 0")
        offered = [len(r["tools_offered"]) for r in recs if r.get("repeat", 0) == 0]
        points.append({"visible": sum(offered) / len(offered), "wrong": wrong, "success": acc ** task_calls,
                       "size": str(s), "calls": w["of"], "wrong_calls": w["count"], "need_tool": len(first),
                       "right": right})
    seen = [p["visible"] for p in points]
    if len(set(seen)) < len(seen):
        raise InputError(f"--fit: two sizes offered the same mean number of tools ({seen}); drop one of the --visible sizes")
    if len(points) < 2:
        raise InputError(f"--fit: expected at least two sizes with tool calls to count, found {len(points)}; "
                         "pass more --visible sizes or more queries that need a tool")
    n = sweep.queries
    where = "; ".join(f"{name} sha256 {digest}" for name, digest in files) or "queries given in Python, no file"
    source = (f"measured: {sweep.eval.model} on your registry, {n} queries, {date} ({where}; {sweep.distractors} "
              f"distractors, seed {sweep.seed}; {WRONG_RULE}; {success_rule(task_calls)})")
    doc = {"source": source, "as_of": date, "interpolation": "linear", "outside": "clamp",
           "model": sweep.eval.model, "queries": n, "query_files": [{"name": a, "sha256": b} for a, b in files],
           "distractors": sweep.distractors, "seed": sweep.seed, "task_calls": task_calls,
           "wrong_rule": WRONG_RULE, "success_rule": success_rule(task_calls),
           "points": sorted(points, key=lambda p: p["visible"])}
    curve_from_mapping(doc, "the fitted curve")  # the file written must load
    return doc, warnings
