"""A description effect measured by a description-length sweep (`toolsurvey eval --description-tokens
... --fit-descriptions FILE`), written in description_effect.toml's layout so that
`load_description_effect`, `description_sweep` and notebook 02 read it as they read the bundled one.

Each variant of the sweep gives one point (docs/simulation.md, "A measured description effect"):
- `tokens`: the mean tokens of the descriptions shown, over every tool offered (a tool without a
  description counting 0; `none` is 0), as the sweep's table shows it;
- `wrong`: the variant's wrong-call rate (`measuring.selection.sweep.wrong_calls`) divided by the
  `full` variant's;
- `failure`: the variant's failure rate, 1 - (right / queries that need a tool) ^ K (the task-success
  rule of a measured accuracy curve, K = `task_calls`), divided by the `full` variant's.

So the `full` point's multipliers are 1: the registry as it is is the reference, as the bundled
file's multipliers are applied relative to the registry's current mean description length. A rate
at 0 (no wrong call; every query right) cannot be divided by, nor give a multiplier above 0: it is
moved half a count inward (0.5 / n; right = n - 0.5), and the file and the warnings say so. A
variant with no call to count gives no point, and is named in the warnings; fewer than two points,
two variants showing the same mean tokens, or no `full` variant is an error."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from ..errors import InputError
from ..measuring.selection.descriptions import FULL, DescriptionEval
from ..measuring.selection.sweep import wrong_calls
from .accuracy import DescriptionEffect
from .measured_curve import WRONG_RULE, success_rule

MULTIPLIER_RULE = ("each point's wrong and failure are its variant's wrong-call and failure rates divided by the "
                   "'full' variant's (failure = 1 - task success), so the registry as it is has multipliers 1")


def _rates(recs: list[dict], label, task_calls: int, warnings: list[str]) -> dict | None:
    w = wrong_calls(recs)
    need = [r for r in recs if r.get("repeat", 0) == 0 and r["gold"]]
    right = sum(1 for r in need if r["outcome"] == "right")
    if not need or not w["of"]:
        warnings.append(f"--fit-descriptions: descriptions {label} have no tool call to count ({len(need)} queries "
                        f"need a tool, {w['of']} calls made), so they give no point")
        return None
    wrong = w["count"] / w["of"]
    if w["count"] == 0:
        wrong = 0.5 / w["of"]
        warnings.append(f"--fit-descriptions: descriptions {label}: no call was wrong (0 of {w['of']}); written "
                        f"from 0.5 of {w['of']} = {wrong:.4g}, since a multiplier must be above 0")
    kept = right
    if right == len(need):
        kept = right - 0.5
        warnings.append(f"--fit-descriptions: descriptions {label}: every query was answered right ({right} of "
                        f"{len(need)}); failure written from {kept:g} right, since a multiplier must be above 0")
    failure = 1 - (kept / len(need)) ** task_calls
    first = [r for r in recs if r.get("repeat", 0) == 0]
    means = [r["description_mean_tokens"] for r in first]
    return {"variant": str(label), "tokens": sum(means) / len(means), "wrong_rate": wrong, "failure_rate": failure,
            "calls": w["of"], "wrong_calls": w["count"], "need_tool": len(need), "right": right}


def fit_description_effect(sweep: DescriptionEval, query_files: Sequence[tuple[str, str]] = (), *,
                           task_calls: int = 1, date: str | None = None) -> tuple[dict, list[str]]:
    """(the effect's TOML document, warnings) from a description sweep (module docstring). `query_files`,
    the query files' (name, sha256) pairs, are named in the source; `date` (YYYY-MM-DD, default today
    in UTC) is the effect's as_of."""
    if task_calls < 1:
        raise InputError(f"expected --task-calls of at least 1, found {task_calls}")
    if FULL not in sweep.variants:
        raise InputError("--fit-descriptions: expected a 'full' variant in --description-tokens, the reference the "
                         f"multipliers are relative to; found {','.join(map(str, sweep.variants))}")
    date = date or datetime.now(UTC).date().isoformat()
    files = list(query_files)
    warnings: list[str] = []
    rows = [(label, _rates(sweep.of(label), label, task_calls, warnings)) for label in sweep.variants]
    ref = dict(rows)[FULL]
    if ref is None:
        raise InputError("--fit-descriptions: the 'full' variant has no tool call to count, so there is no reference "
                         "for the multipliers; pass queries that need a tool")
    points = [{**r, "wrong": r["wrong_rate"] / ref["wrong_rate"], "failure": r["failure_rate"] / ref["failure_rate"]}
              for _, r in rows if r is not None]
    seen = [p["tokens"] for p in points]
    if len(set(seen)) < len(seen):
        raise InputError(f"--fit-descriptions: two variants showed the same mean description tokens ({seen}); "
                         "drop one of the --description-tokens variants")
    if len(points) < 2:
        raise InputError(f"--fit-descriptions: expected at least two variants with tool calls to count, found "
                         f"{len(points)}; pass more --description-tokens variants or more queries that need a tool")
    n = sweep.queries
    where = "; ".join(f"{name} sha256 {digest}" for name, digest in files) or "queries given in Python, no file"
    source = (f"measured: {sweep.eval.model} on your registry, {n} queries, {date} ({where}; descriptions cut in "
              f"{sweep.encoding} tokens; {WRONG_RULE}; {success_rule(task_calls)}; {MULTIPLIER_RULE})")
    doc = {"source": source, "as_of": date, "interpolation": "linear", "outside": "clamp",
           "model": sweep.eval.model, "queries": n, "query_files": [{"name": a, "sha256": b} for a, b in files],
           "encoding": sweep.encoding, "task_calls": task_calls, "wrong_rule": WRONG_RULE,
           "success_rule": success_rule(task_calls), "multiplier_rule": MULTIPLIER_RULE,
           "points": sorted(points, key=lambda p: p["tokens"])}
    DescriptionEffect(*(tuple(float(p[k]) for p in doc["points"]) for k in ("tokens", "wrong", "failure")))  # must load
    return doc, warnings
