"""The confused-pair rule: two tools a model took for each other at least `[selection] min_confusions`
times in an eval (`toolsurvey eval`, passed as `audit(..., eval=...)`), with the near-duplicate rule's
verdict on the same pair beside the count. Nothing without an eval: the rule measures, it never guesses."""

from __future__ import annotations

from ...core.registry import Registry
from ..confusions import measured_confusions
from .rule import Hit

FIX = ("say in each description what the tool does that the other does not, naming the other ('does NOT "
       "..., use ...'), or merge them when they do one job")


def check_confused_pair(reg: Registry, cfg: dict, encoding: str):
    """One hit per pair confused at least min_confusions times (both directions summed), on the tool
    whose queries went to the other more often; nothing without an eval (audit(..., eval=...))."""
    ev = cfg.get("_eval")
    if ev is None:
        return
    n = cfg["selection"]["min_confusions"]
    pairs, notes = measured_confusions(reg, ev, cfg, n)
    cfg.setdefault("_notes", []).extend(notes)
    by_key = {t.key: t for t in reg}
    for p in pairs:
        fix = f"merge {p.a} and {p.b} into one tool, or {FIX}" if p.flagged else FIX
        yield Hit(f"{p.total} confusion{'s' * (p.total != 1)} (>= {n}): {p.measured()}; predicted: {p.predicted}",
                  tool=by_key[p.a], other=p.b, fix=fix)
