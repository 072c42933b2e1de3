"""Measured confusions beside predicted ones: the pairs of tools a model took for each other in an eval
(`toolsurvey eval`, read back by `measuring.selection.stored`), each with what the near-duplicate rule
says of the same pair (its similarity score, and whether it flags the pair). The near-duplicate rule
predicts confusion from the definitions; an eval measures it. The audit's `confused-pair` rule and the
plan's merge stage show both, side by side."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.registry import Registry
from ..errors import InputError
from ..measuring.selection.stored import largest, picked_from
from .merging import access
from .similarity.pair_features import score, scored_pairs
from .similarity.pairs import similar_pairs


@dataclass(frozen=True)
class Confusion:
    """One pair the model confused: `a` is the tool of the direction counted more (registry keys),
    `a_as_b` the answers that called `b` where `a` was the query's tool, `b_as_a` the reverse, with the
    query ids of each; `similarity` the near-duplicate score of the pair (None: the rule never compares
    them) and `predicted` what the rule says of it, in words."""

    a: str
    b: str
    a_as_b: int
    b_as_a: int
    queries_a_as_b: tuple[str, ...]
    queries_b_as_a: tuple[str, ...]
    similarity: float | None
    flagged: bool
    predicted: str

    @property
    def total(self) -> int:
        return self.a_as_b + self.b_as_a

    def measured(self) -> str:
        """`called b for a's queries 3 times (ops-07, ops-08, ops-12), a for b's once (ops-11)`."""
        def times(n: int) -> str:
            return "once" if n == 1 else f"{n} times"

        one = f"called {self.b} for {self.a}'s queries {times(self.a_as_b)} ({', '.join(self.queries_a_as_b)})"
        if not self.b_as_a:
            return one + f"; never {self.a} for {self.b}'s"
        return one + f", {self.a} for {self.b}'s {times(self.b_as_a)} ({', '.join(self.queries_b_as_a)})"


def _predicted(reg: Registry, cfg: dict, wanted: set[frozenset]) -> dict[frozenset, tuple[float | None, bool, str]]:
    """For each wanted pair of keys: (score, flagged, words) of the near-duplicate rule (cfg[similarity])."""
    c = cfg["similarity"]
    tools = reg.tools
    index = {t.key: i for i, t in enumerate(tools)}
    scores: dict[frozenset, float] = {}
    never: set[frozenset] = set()  # compared, and never a duplicate (read and write, other actions or products)
    model = (c.get("model") or "") if c["method"] == "embedding" else None
    for a, b, f in scored_pairs(reg, c, c["max_features"], model=model):
        key = frozenset((tools[a].key, tools[b].key))
        if key not in wanted:
            continue
        if f is None:
            never.add(key)
        else:
            scores[key] = round(score(f) if c["method"] == "scored" else f["cosine"], 4)
    pairs = similar_pairs(reg, threshold=c["threshold"], method=c["method"], config=c, max_features=c["max_features"])
    flagged = {frozenset((f"{sa}/{ta}", f"{sb}/{tb}")) for sa, ta, sb, tb in
               zip(pairs["server_a"], pairs["tool_a"], pairs["server_b"], pairs["tool_b"], strict=True)}
    out = {}
    t = c["threshold"]
    for key in wanted:
        a, b = sorted(key)
        s = scores.get(key)
        both = {access(tools[index[a]], cfg), access(tools[index[b]], cfg)} == {"read", "write"}
        if key in flagged and not both:
            why = "similarity" if s is None else (f"similarity {s:.2f} >= {t}" if s >= t - 1e-12 else
                                                  f"same action and object, similarity {s:.2f}")
            out[key] = (s, True, f"near-duplicates by the overlap rule ({why})")
        elif s is not None:
            why = ("one reads and the other writes" if both else "below the threshold") + f": similarity {s:.2f}"
            out[key] = (s, False, f"not near-duplicates by the overlap rule ({why}" + (f" < {t})" if s < t else ")"))
        elif key in never:
            out[key] = (None, False, "never paired by the overlap rule (read and write, different actions or "
                                     "different products)")
        else:
            out[key] = (None, False, "not compared by the overlap rule (not among each other's nearest "
                                     "neighbours)")
    return out


def measured_confusions(reg: Registry, ev, cfg: dict, min_count: int) -> tuple[list[Confusion], list[str]]:
    """(the pairs of `ev` confused at least `min_count` times whose tools are both in `reg`, most
    confused first; notes on what was left out and how the eval was read). `ev` is a SelectionEval or
    a SweepEval (read at its largest visible set). Raises InputError when the eval names none of the
    registry's tools (an eval of another registry)."""
    one = largest(ev)
    keys = {t.key for t in reg}
    named = {r["expected"] for r in one.records} | {r["called"] for r in one.records}
    if not named & keys:
        raise InputError(f"the eval names none of this registry's {len(keys)} tools (e.g. "
                         f"{', '.join(sorted(named)[:3])}); expected an eval of this registry")
    pairs = one.confused_pairs(min_count)
    kept = [p for p in pairs if p["a"] in keys and p["b"] in keys]
    notes = [f"{one.model}'s picks counted from {picked_from(ev)}, {one.summary['queries']} queries"]
    if len(kept) < len(pairs):
        gone = [f"{p['a']} / {p['b']}" for p in pairs if p not in kept]
        notes.append(f"{len(gone)} confused pair(s) name tools not in this registry, left out: {', '.join(gone)}")
    pred = _predicted(reg, cfg, {frozenset((p["a"], p["b"])) for p in kept}) if kept else {}
    out = [Confusion(p["a"], p["b"], p["a_as_b"], p["b_as_a"], tuple(p["queries_a_as_b"]),
                     tuple(p["queries_b_as_a"]), *pred[frozenset((p["a"], p["b"]))]) for p in kept]
    return out, notes
