"""`--eval FILE` for report and plan: the deferred-loading levers priced at the end-to-end rate of an
eval run with `--defer` (advice.deferral.deferral_from_eval). An eval without defer records leaves
the levers on BM25's hit rate, and says so."""

from __future__ import annotations


def deferral_of(ev, path: str | None):
    """The MeasuredDeferral of `ev`, the eval read from `path`, or None (no eval, or an eval run without
    --defer: a line on standard error says the levers keep BM25's hit rate)."""
    if ev is None:
        return None
    from ..advice.deferral import deferral_from_eval
    from ..measuring.selection.defer_metrics import deferred
    from ._common import say

    if not deferred(getattr(ev, "records", [])):
        say(f"{path}: an eval without --defer; the deferral levers keep BM25's hit rate (or the assumption "
            "that every search finds the tool)")
        return None
    return deferral_from_eval(ev)
