"""The merge stage's measured confusions (`plan(..., eval=...)`): the pairs an eval's answers confused at
least `[selection] min_confusions` times (`advice.confusions`), each shown beside what the near-duplicate
rule predicted for the same pair. A merge that joins a confused pair says so in its detail; a confused
pair left unmerged is a merge candidate, named in the plan's warnings. The eval never merges on its own:
two tools merge when their definitions say they do one job (same action and object)."""

from __future__ import annotations

from dataclasses import replace

from ..confusions import measured_confusions
from .state import PlanState


def measured_merges(st: PlanState, groups: list) -> None:
    """Annotate the merge actions and add the warnings (module docstring); nothing without an eval."""
    if st.eval is None:
        return
    n = st.cfg["selection"]["min_confusions"]
    pairs, notes = measured_confusions(st.reg, st.eval, st.cfg, n)
    st.warnings += [f"eval: {x}" for x in notes]
    cluster = {t.key: i for i, tools in enumerate(groups) for t in tools}
    left = {t.key for t in st.current}
    merges = [i for i, a in enumerate(st.actions) if a.kind == "merge"]
    for p in pairs:
        side = f"measured: {p.total} confusions, {p.measured()}; predicted: {p.predicted}"
        c = cluster.get(p.a)
        if c is not None and c == cluster.get(p.b):
            i = next(i for i in merges if p.a in st.actions[i].tools and p.b in st.actions[i].tools)
            st.actions[i] = replace(st.actions[i], detail=f"{st.actions[i].detail}; {side}")
        elif p.a not in left and p.a not in cluster or p.b not in left and p.b not in cluster:
            gone = [k for k in (p.a, p.b) if k not in left and k not in cluster]
            st.warnings.append(f"confused pair {p.a} / {p.b} ({side}): the delete stage removes {', '.join(gone)}")
        else:
            st.warnings.append(f"merge candidate, not merged: {p.a} and {p.b} ({side}); the merge stage joins only "
                               "tools that share action and object: merge them if they do one job, else say in "
                               "each description what it does that the other does not (audit rule confused-pair)")
