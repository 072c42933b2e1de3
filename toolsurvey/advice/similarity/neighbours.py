"""Nearest neighbours of tools by cosine, over sparse TF-IDF rows or dense embeddings, a slice of rows
at a time (never the dense n x n matrix)."""

from __future__ import annotations

import numpy as np

from ...errors import InputError
from .tfidf import BLOCK, Tfidf, top_k

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
    product is the cosine). Never downloads: raises InputError when the directory or model2vec is missing."""
    from pathlib import Path

    if not model or not Path(model).is_dir():
        raise InputError(f"similarity method 'embedding' needs [similarity] model = the directory of a "
                         f"model2vec model on this machine; found {model!r}. Use method 'scored' without one")
    try:
        from model2vec import StaticModel  # optional: pip install 'toolsurvey[embeddings]'
    except ImportError:
        raise InputError("similarity method 'embedding' needs model2vec: pip install 'toolsurvey[embeddings]'") from None
    try:
        x = StaticModel.from_pretrained(model).encode(texts)
    except Exception as e:  # a directory that is not a model2vec model: say so, do not guess
        raise InputError(f"could not load a model2vec model from {model}: {e}") from None
    x = np.asarray(x, dtype=np.float64)
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)


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
