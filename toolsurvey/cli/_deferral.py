"""`--eval FILE` for report and plan: the deferred-loading levers priced at the end-to-end rate of an
eval run with `--defer` (advice.deferral.deferral_from_eval). An eval without defer records leaves
the levers on BM25's hit rate, and says so."""

from __future__ import annotations


def deferral_of(path: str | None):
    """The MeasuredDeferral of the eval at `path`, or None (no path, or an eval run without --defer:
    a line on standard error says the levers keep BM25's hit rate). Raises InputError for a file
    that is not an eval."""
    if not path:
        return None
    from ..advice.deferral import deferral_from_eval
    from ..measuring.selection.defer_metrics import deferred
    from ..measuring.selection.stored import read_eval
    from ._common import say

    ev = read_eval(path)
    if not deferred(getattr(ev, "records", [])):
        say(f"{path}: an eval without --defer; the deferral levers keep BM25's hit rate (or the assumption "
            "that every search finds the tool)")
        return None
    return deferral_from_eval(ev)
