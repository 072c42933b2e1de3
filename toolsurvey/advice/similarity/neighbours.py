"""Nearest neighbours of tools by cosine, over sparse TF-IDF rows or dense embeddings, a slice of rows
at a time (never the dense n x n matrix)."""

from __future__ import annotations

import numpy as np

from ...core.embedding import model2vec_encoder
from ...core.tfidf import BLOCK, Tfidf

NEIGHBOURS = 20  # candidates per tool: its nearest TF-IDF neighbours (plus tools sharing action and object)


def tfidf(texts: list[str], max_features: int = 50000) -> Tfidf | None:
    """L2-normalised TF-IDF rows of `texts` (scikit-learn's weights, computed with numpy alone), or None
    when every text is empty or only stop words."""
    try:
        return Tfidf(texts, max_features)
    except ValueError:  # every text empty or only stop words: nothing can be similar
        return None


def embeddings(texts: list[str], model: str) -> np.ndarray:
    """L2-normalised rows of `texts` embedded by the model2vec model in local directory `model` (a dot
    product is the cosine). Never downloads: raises InputError when the directory is missing, MissingExtra
    when model2vec is."""
    encode = model2vec_encoder(model, purpose="similarity method 'embedding'",
                               setting="[similarity] model; or method 'scored', which needs none")
    return encode(texts)


def _top(x: Tfidf | np.ndarray | None, rows: np.ndarray, cols: np.ndarray, own: np.ndarray, k: int,
         positive: bool) -> tuple[np.ndarray, np.ndarray]:
    """`top_k` of rows against cols: TF-IDF cosines screened in float32 and chosen by exact ones."""
    if isinstance(x, Tfidf):
        return top_k(x.similarities(rows, cols), own, k, positive,
                     exact=lambda r, c: x.cosines(rows[r], cols[c]), slack=x.slack)
    sims = np.zeros((len(rows), len(cols))) if x is None else x[rows] @ x[cols].T
    return top_k(sims, own, k, positive)


def _slices(x: Tfidf | np.ndarray | None, rows: np.ndarray, width: int) -> list[slice]:
    """`rows` in slices whose similarities to `width` columns fit a few tens of MB."""
    if isinstance(x, Tfidf):
        return x.slices(rows, width)
    step = max(1, BLOCK // max(width, 1))
    return [slice(i, i + step) for i in range(0, len(rows), step)]


def neighbours(x: Tfidf | np.ndarray, k: int = NEIGHBOURS) -> np.ndarray:
    """Pairs a < b where b is among a's `k` nearest rows by cosine (or a among b's; ties: the lower
    row; a cosine of 0 is no neighbour), as sorted unique codes a * n + b: exact, computed a slice of
    rows at a time (never the dense n x n matrix)."""
    n = x.shape[0] if isinstance(x, np.ndarray) else x.n
    everyone = np.arange(n, dtype=np.int64)
    codes = [np.zeros(0, dtype=np.int64)]
    for part in _slices(x, everyone, n):
        rows = everyone[part]
        r, c = _top(x, rows, everyone, rows, k, positive=True)
        a, b = rows[r], c
        codes.append(np.minimum(a, b) * n + np.maximum(a, b))
    return np.unique(np.concatenate(codes))


def nearest_in(x: Tfidf | np.ndarray | None, m: np.ndarray, k: int, n: int) -> np.ndarray:
    """Pairs of block `m` (row indices of `x`) where one is among the other's `k` nearest members by
    cosine (ties: the earlier member; `x` None: every cosine is 0), as codes a * n + b with a < b,
    computed a slice of members at a time."""
    codes = []
    where = np.arange(len(m), dtype=np.int64)
    for part in _slices(x, m, len(m)):
        at = where[part]
        r, c = _top(x, m[at], m, at, k, positive=False)
        a, b = m[at[r]], m[c]
        codes.append(np.minimum(a, b) * n + np.maximum(a, b))
    return np.concatenate(codes)


def top_k(sims: np.ndarray, own: np.ndarray, k: int, positive: bool, exact=None,
          slack: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) of each row's `k` largest similarities, leaving out column own[row] (itself); ties
    go to the lower column. `positive`: only similarities above 0 (a cosine of 0 shares nothing).
    `sims` may be approximate, within `slack` of the exact values that `exact(rows, columns)` returns:
    it screens the candidates, and the exact values choose among them. `sims` is overwritten."""
    r, c = sims.shape
    sims[np.arange(r), own] = -np.inf
    k = min(k, c - 1)
    if k <= 0 or r == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    # a bound no higher than each row's k-th largest: the k-th largest of every other column, less twice
    # the slack (selecting in whole rows costs more; in fewer columns, more candidates need exact values)
    sample = sims[:, ::2] if c >= 16 * k else sims
    bound = -np.partition(-sample, k - 1, axis=1)[:, k - 1] - 2 * slack
    if positive:
        bound = np.maximum(bound, 1e-12 - slack)
    rr, cc = np.divmod(np.flatnonzero(sims >= bound[:, None]), c)  # flat: several times faster than by row
    val = sims[rr, cc] if exact is None else exact(rr, cc)
    if positive:
        keep = val > 1e-12
        rr, cc, val = rr[keep], cc[keep], val[keep]
    order = np.lexsort((-val, rr))  # stable: within a row and a value, columns stay ascending
    rr, cc = rr[order], cc[order]
    take = np.arange(len(rr)) - np.searchsorted(rr, rr) < k
    return rr[take], cc[take]
