"""The findability rule: a tool that the queries needing it never find in the top k of a search
(a retrieval evaluation of the user's queries or traces), so that deferred loading or retrieval
would hide it from the very tasks that need it."""

from __future__ import annotations

from ...core.registry import Registry
from .rule import Hit

FIX = ("say in the description what the tool is for, in the words users use (the queries that need it "
       "are in `toolsurvey retrieval --format json`)")


def check_never_found(reg: Registry, cfg: dict, encoding: str):
    """One hit per tool some query needs and none of those queries finds in the top find_k; nothing
    without a retrieval evaluation (audit(..., queries=...))."""
    ev = cfg.get("_retrieval")
    if ev is None:
        return
    by_key = {t.key: t for t in reg}
    rows = ev.tools.set_index("tool")
    for key in ev.never_found():
        r = rows.loc[key]
        n = int(r["needed"])
        best = "not retrieved at all" if r["best_rank"] != r["best_rank"] else f"best rank {int(r['best_rank'])}"
        above = f"; outranked by {', '.join(r['confusions'])}" if r["confusions"] else ""
        yield Hit(f"{n} quer{'y needs' if n == 1 else 'ies need'} it and none finds it in the top {ev.find_k} "
                  f"({ev.method}; {best}){above}", tool=by_key[key])
