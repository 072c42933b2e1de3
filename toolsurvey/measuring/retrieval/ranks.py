"""Ranks from scores, with ties broken as documented: a tool scoring 0 is not retrieved, and among
equal scores a tool the query does not need ranks first ("pessimistic", the default), or last
("optimistic"); gold tools tied with each other keep registry order."""

from __future__ import annotations

import numpy as np

TIES = ("pessimistic", "optimistic")


def gold_ranks(scores: np.ndarray, gold: np.ndarray, ties: str = "pessimistic") -> np.ndarray:
    """The 1-based rank of each gold tool (indices `gold`, in registry order) among all tools, or
    nan for one whose score is 0 or less (not retrieved)."""
    s = scores[gold]
    above = (scores[None, :] > s[:, None]).sum(axis=1)
    tied = (scores[None, :] == s[:, None]).sum(axis=1)
    tied_gold = (s[None, :] == s[:, None]).sum(axis=1)  # gold tools tied with each, itself included
    before_gold = np.tril(s[None, :] == s[:, None], -1).sum(axis=1)  # tied gold tools earlier in the registry
    if ties == "pessimistic":
        rank = 1 + above + (tied - tied_gold) + before_gold
    else:
        rank = 1 + above + before_gold
    return np.where(s > 0, rank, np.nan).astype(float)


def top(scores: np.ndarray, gold_mask: np.ndarray, k: int, ties: str = "pessimistic") -> np.ndarray:
    """Indices of the best `k` retrieved tools (score > 0), best first, ties broken as gold_ranks does."""
    n = len(scores)
    k = min(k, n)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    cand = np.argpartition(-scores, k - 1)[:k] if k < n else np.arange(n)
    cut = scores[cand].min()
    cand = np.flatnonzero(scores >= cut)  # every tool tied with the k-th, so that ties can be broken
    gold_key = gold_mask[cand] if ties == "pessimistic" else ~gold_mask[cand]
    order = cand[np.lexsort((cand, gold_key, -scores[cand]))][:k]
    return order[scores[order] > 0]


def listed_ranks(ranked: list[int], gold: np.ndarray) -> np.ndarray:
    """The 1-based position of each gold tool in an external ranking, or nan where it is not listed."""
    pos = {t: i + 1 for i, t in enumerate(ranked)}
    return np.asarray([pos.get(int(g), np.nan) for g in gold], dtype=float)
