"""The measured counterpart of `description-short`: from a description-length sweep (`toolsurvey eval
--description-tokens`, read back with `read_eval`), the tools whose recall drops when their own
description is cut. `description-short` predicts from a word count that a description is too thin;
this rule measures which descriptions the model needed.

For each tool some query needs, its recall (queries that need it and were answered with it, over
the queries that need it; each query's first answer, as `metrics.per_tool` counts it) is taken with
every description as it is (`full`), and at each shorter variant at which this tool's description
is actually cut (every variant for `none`; a number only when the cut changes this tool's text, as
the sweep's cut of the registry given to the audit shows). A tool is a finding when, at some such
variant, its recall is lower than at `full` by at least `min_drop` and by at least `min_lost`
queries (audit.toml's [description_needed]). The evidence gives the counts at every variant, and names the longest length at which
the tool loses queries: its description needs more than that."""

from __future__ import annotations

from collections.abc import Iterator

from ...core.registry import Registry
from ...core.tokens import DEFAULT_ENCODING
from ...measuring.selection.descriptions import FULL, NONE, DescriptionEval, variant
from ...measuring.selection.metrics import per_tool
from .rule import Hit

FIX = ("keep what the description says at full length: the model picked this tool less often without it "
       "(write the five elements in the first sentences, so a cut keeps them)")


def recall_drops(reg: Registry, de: DescriptionEval) -> list[dict]:
    """Per tool of `reg` that some query of the sweep needs: its (right, expected) at each variant
    where its description differs from the full one, and at `full`; the largest drop and where. Sorted
    by the queries lost, then the drop, largest first."""
    if FULL not in de.variants:
        return []
    encoding = de.encoding if de.encoding.endswith("_base") else DEFAULT_ENCODING
    keys = {t.key: t for t in reg}
    full = {r["tool"]: r for r in per_tool(de.of(FULL))}
    shown = {label: variant(reg, label, encoding).shown for label in de.variants
             if label not in (FULL, NONE)}
    out = []
    for key, f in full.items():
        if key not in keys or not f["expected"]:
            continue
        counts = {}
        for label in de.variants:
            if label == FULL:
                continue
            if label != NONE and shown[label].get(key) == keys[key].description:
                continue  # not cut at this length: a change here is not this description's
            row = next((r for r in per_tool(de.of(label)) if r["tool"] == key), None)
            counts[label] = (row["right"], row["expected"]) if row else (0, 0)
        drops = [(f["right"] / f["expected"] - r / n, f["right"] * n - r * f["expected"], label)
                 for label, (r, n) in counts.items() if n]
        if not drops:
            continue
        drop, _, worst = max(drops, key=lambda d: (d[0], str(d[2])))
        out.append({"tool": key, "full": (f["right"], f["expected"]), "variants": counts, "drop": drop,
                    "lost": round(drop * f["expected"]), "worst": worst})
    return sorted(out, key=lambda r: (-r["lost"], -r["drop"], r["tool"]))


def _evidence(r: dict) -> str:
    k, n = r["full"]
    parts = [f"{r_}/{n_} at {label}" if label != NONE else f"{r_}/{n_} with none" for label, (r_, n_) in r["variants"].items()]
    losing = [label for label, (r_, n_) in r["variants"].items() if n_ and r_ / n_ < k / n]
    longest = max((x for x in losing if x != NONE), default=None)
    where = (f"it loses queries from {longest} tokens down" if longest is not None
             else "it loses queries only with no description")
    return (f"recall {k}/{n} with its full description, {', '.join(parts)}; {where} "
            f"(measured with {r['model']}, description-length sweep)")


def check_description_needed(reg: Registry, cfg: dict, encoding: str) -> Iterator[Hit]:
    """One hit per tool whose recall drops when its description is cut (module docstring); nothing
    without a description-length sweep (audit(..., eval=...))."""
    de = cfg.get("_eval")
    if not isinstance(de, DescriptionEval):
        return
    by_key = {t.key: t for t in reg}
    c = cfg["description_needed"]
    for r in recall_drops(reg, de):
        if r["drop"] >= c["min_drop"] and r["lost"] >= c["min_lost"]:
            yield Hit(_evidence({**r, "model": de.eval.model}), tool=by_key[r["tool"]])
