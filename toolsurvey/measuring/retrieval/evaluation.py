"""The retrieval evaluation: for each query, the rank of each gold tool under a method (or an external
ranking); hit@k, recall@k and MRR over the queries; and per tool, how often a query that needs it
finds it, and which tools outrank it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pandas as pd

from ...core.registry import Registry
from ...core.viewable import Viewable
from ...errors import InputError
from ...inputs.queries import Query, load_queries, load_rankings
from .methods import scorer
from .ranks import TIES, gold_ranks, listed_ranks, top
from .text import tool_text

DEFAULT_K = (1, 3, 5, 10)


@dataclass(repr=False)
class RetrievalEval(Viewable):
    """What a search finds: `queries` (one row per query: gold tools, their ranks, the best rank, the
    top tools), `tools` (findability: one row per tool), `summary` (hit@k, recall@k, MRR)."""

    view_name = "retrieval"

    method: str
    k: tuple[int, ...]
    find_k: int
    queries: pd.DataFrame
    tools: pd.DataFrame
    summary: dict
    ties: str = "pessimistic"
    warnings: list[str] = field(default_factory=list)

    def hit_at(self, k: int) -> float:
        """The share of queries with a gold tool in the top `k` (computed for any k, not only self.k)."""
        best = self.queries["best_rank"].to_numpy(dtype=float)
        return float(np.mean(np.nan_to_num(best, nan=np.inf) <= k))

    def never_found(self) -> list[str]:
        """Tools some query needs that no such query finds in the top find_k."""
        t = self.tools
        return t.loc[t["needed"].gt(0) & t["found"].eq(0), "tool"].tolist()

    def describe(self) -> str:
        """One line: the method, the queries and the headline figures."""
        s = self.summary
        hits = ", ".join(f"hit@{k} {s[f'hit@{k}']:.0%}" for k in self.k)
        return f"{self.method} over {s['tools']} tools, {s['queries']} queries: {hits}, MRR {s['mrr']:.2f}"

    def to_json(self) -> dict:
        """{"summary", "queries", "tools"}, as `toolsurvey retrieval --format json` prints it."""
        rank = lambda r: None if r != r else int(r)  # not retrieved: null (JSON has no NaN)
        queries = [{**row, "ranks": [rank(r) for r in row["ranks"]], "best_rank": rank(row["best_rank"])}
                   for row in self.queries.to_dict(orient="records")]
        tools = [{k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()}
                 for row in self.tools.to_dict(orient="records")]
        return {"summary": dict(self.summary), "queries": queries, "tools": tools}


def summarize(ranks: list[np.ndarray], k: Iterable[int], n_tools: int, method: str) -> dict:
    """hit@k (any gold tool in the top k), recall@k (the share of gold tools in the top k) and MRR
    (1 / the best gold rank; 0 when none is retrieved), averaged over the queries. The means are
    exact fractions rounded once, so any correct computation on the same ranks gives the same floats."""
    best = [int(np.nanmin(r)) if np.isfinite(r).any() else None for r in ranks]
    n = len(ranks)
    out: dict = {"method": method, "queries": n, "tools": n_tools}
    for kk in k:
        out[f"hit@{kk}"] = float(Fraction(sum(b is not None and b <= kk for b in best), n))
        out[f"recall@{kk}"] = float(sum((Fraction(int((r <= kk).sum()), len(r)) for r in ranks), Fraction(0)) / n)
    out["mrr"] = float(sum((Fraction(1, b) for b in best if b), Fraction(0)) / n)
    return out


def _checked_k(k) -> tuple[int, ...]:
    ks = (k,) if isinstance(k, int) else tuple(k)
    if not ks or any(isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 1 for x in ks):
        raise InputError(f"k must be whole numbers >= 1, found {k!r}")
    return tuple(sorted(set(int(x) for x in ks)))


def _ranked_by_method(reg, queries, method, keys, index, depth, ties, model):
    texts = [tool_text(t) for t in reg]
    s = scorer(method, texts, model)
    for q in queries:
        gold = np.asarray([index[g] for g in q.gold], dtype=np.int64)
        scores = s.scores(q.query)
        mask = np.zeros(len(keys), dtype=bool)
        mask[gold] = True
        yield gold_ranks(scores, gold, ties), top(scores, mask, depth, ties)


def _ranked_lists(lists: dict[str, list[str]], queries, index, depth):
    for q in queries:
        ranked = [index[t] for t in lists[q.id]]
        gold = np.asarray([index[g] for g in q.gold], dtype=np.int64)
        yield listed_ranks(ranked, gold), np.asarray(ranked[:depth], dtype=np.int64)


def _from_callable(retriever: Callable, queries, depth) -> dict[str, list[str]]:
    out = {}
    for q in queries:
        got = retriever(q.query, depth)
        if isinstance(got, str) or not isinstance(got, Iterable):
            raise InputError(f"retriever({q.query[:40]!r}, {depth}) returned {type(got).__name__}; "
                             "expected a list of tool names, best first")
        out[q.id] = [str(t) for t in got]
    return out


def retrieval_eval(registry: Registry, queries, method: str = "bm25", k=DEFAULT_K, rankings=None, *,
                   find_k: int | None = None, ties: str = "pessimistic", model: str | None = None) -> RetrievalEval:
    """Rank `registry`'s tools for each query (a queries file, or Query values / mappings) with `method`
    ("bm25", "regex", "tfidf", "embedding"), or take the ranks from `rankings` (a JSON Lines file of
    {"id", "ranked"}, a mapping id -> list, or a callable retriever(query, k) -> [tool names]).
    Raises InputError for bad queries or rankings, an unknown method, an empty registry or bad k."""
    ks = _checked_k(k)
    if ties not in TIES:
        raise InputError(f"ties must be one of {', '.join(TIES)}, found {ties!r}")
    if not len(registry):
        raise InputError("the registry has no tools to retrieve")
    qs: list[Query] = load_queries(queries, registry)
    keys = [t.key for t in registry]
    index = {key: i for i, key in enumerate(keys)}
    find_k = find_k or (5 if 5 in ks else max(ks))
    depth = max(*ks, find_k)
    warnings = [f"{sum(not (t.description or '').strip() for t in registry)} tool(s) have no description: "
                "only their names and parameters can be found"] if any(
        not (t.description or "").strip() for t in registry) else []
    if rankings is not None:
        label = "external rankings"
        lists = _from_callable(rankings, qs, depth) if callable(rankings) else rankings
        lists = load_rankings(lists, qs, registry)
        pairs = list(_ranked_lists(lists, qs, index, depth))
    else:
        label = method
        pairs = list(_ranked_by_method(registry, qs, method, keys, index, depth, ties, model))
    ranks = [r for r, _ in pairs]
    summary = summarize(ranks, ks, len(keys), label)
    qtable = pd.DataFrame({
        "id": [q.id for q in qs], "query": [q.query for q in qs], "gold": [list(q.gold) for q in qs],
        "ranks": [list(r) for r in ranks],
        "best_rank": [float(np.nanmin(r)) if np.isfinite(r).any() else np.nan for r in ranks],
        "top": [[keys[i] for i in t] for _, t in pairs]})
    return RetrievalEval(label, ks, find_k, qtable, findability(qs, pairs, keys, find_k), summary, ties, warnings)


def findability(queries: list[Query], pairs, keys: list[str], find_k: int) -> pd.DataFrame:
    """Per tool: queries that need it, how many find it in the top find_k, the share, its best and
    median rank, and the tools that outrank it when it is missed (its confusions)."""
    needed, found, ranks = Counter(), Counter(), {key: [] for key in keys}
    confused: dict[str, Counter] = {key: Counter() for key in keys}
    in_top = Counter()
    for q, (r, t) in zip(queries, pairs, strict=True):
        shown = [keys[i] for i in t[:find_k]]
        in_top.update(shown)
        for g, rank in zip(q.gold, r, strict=True):
            needed[g] += 1
            if rank == rank:
                ranks[g].append(rank)
            if rank <= find_k:
                found[g] += 1
            else:
                confused[g].update(x for x in shown if x not in q.gold)
    rows = []
    for key in keys:
        rs = ranks[key]
        rows.append({"tool": key, "needed": needed[key], "found": found[key],
                     "found_share": found[key] / needed[key] if needed[key] else np.nan,
                     "best_rank": min(rs) if rs else np.nan, "median_rank": float(np.median(rs)) if rs else np.nan,
                     "in_top": in_top[key],
                     "confusions": [f"{c} ({n})" for c, n in confused[key].most_common(3)]})
    return pd.DataFrame(rows)


def hit_curve(registry: Registry, queries, methods=("bm25", "tfidf", "regex"), k=range(1, 11),
              model: str | None = None) -> pd.DataFrame:
    """hit@k and recall@k for every k of `k` under each method: one row per (method, k). Raises
    InputError as retrieval_eval does."""
    qs = load_queries(queries, registry)
    rows = []
    for m in methods:
        ev = retrieval_eval(registry, qs, method=m, k=tuple(k), model=model)
        rows += [{"method": m, "k": kk, "hit_at_k": ev.summary[f"hit@{kk}"], "recall_at_k": ev.summary[f"recall@{kk}"]}
                 for kk in ev.k]
    return pd.DataFrame(rows, columns=["method", "k", "hit_at_k", "recall_at_k"])
