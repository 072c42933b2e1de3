"""TF-IDF rows, their cosines and a query's scores with numpy alone, so the core install needs neither
scipy nor scikit-learn (about 190 MB). The one engine of the similarity audit (advice.similarity) and
the tool search (measuring.retrieval). The weights are scikit-learn's
`TfidfVectorizer(stop_words="english", sublinear_tf=True)`, or with `analyzer=` a callable as
scikit-learn's `analyzer=`: tests/core/test_tfidf.py checks rows, cosines and query scores against it."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from functools import lru_cache

import numpy as np

from .assumptions import bundled_text

TOKEN = re.compile(r"(?u)\b\w\w+\b")  # scikit-learn's (and bm25s's) default token pattern
BLOCK = 1 << 22  # cells (similarities or expanded postings) held at once per slice of rows: tens of MB


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """The English stop words (scikit-learn's list, assumptions/english_stop_words.txt)."""
    text = bundled_text("english_stop_words.txt")
    return frozenset(w for w in text.split("\n") if w and not w.startswith("#"))


def words(text: str) -> list[str]:
    """scikit-learn's default analysis: lower case, words of two or more characters, no stop words."""
    stop = stop_words()
    return [w for w in TOKEN.findall(text.lower()) if w not in stop]


def _spread(starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """The positions starts[i] .. starts[i] + lens[i] - 1 for every i, concatenated."""
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(np.cumsum(lens) - lens, lens)
    return np.repeat(starts, lens) + (np.arange(total, dtype=np.int64) - offsets)


class Tfidf:
    """L2-normalised TF-IDF rows of some texts, stored by row (CSR: `indptr`, `indices`, `data`, terms
    sorted within a row) and by term (`tptr`, `trows`, `tdata`); a dot product of two rows is their cosine.
    `analyzer` turns a text into its terms (default: `words`); `max_features` keeps only that many of the
    most frequent terms (None: all). Raises ValueError when no text has a term."""

    def __init__(self, texts: list[str], max_features: int | None = 50000,
                 analyzer: Callable[[str], list[str]] = words):
        vocab: dict[str, int] = {}
        counts = []
        for text in texts:
            row: dict[int, int] = {}
            for w in analyzer(text):
                t = vocab.setdefault(w, len(vocab))
                row[t] = row.get(t, 0) + 1
            counts.append(row)
        if not vocab:
            raise ValueError("every text is empty or only stop words")
        self.analyzer = analyzer
        names = list(vocab)
        total = np.zeros(len(names))
        for row in counts:
            for t, c in row.items():
                total[t] += c
        keep = np.arange(len(names))
        # over max_features: the most frequent terms over all texts (ties: first in the alphabet)
        if max_features is not None and len(names) > max_features:
            alpha = np.argsort(np.array(names, dtype=object), kind="stable")
            keep = alpha[np.argsort(-total[alpha], kind="stable")[:max_features]]
        column = np.full(len(names), -1, dtype=np.int64)
        kept = sorted(keep.tolist(), key=names.__getitem__)  # columns in alphabetical order, as scikit-learn
        column[kept] = np.arange(len(kept))
        self.vocabulary = {names[t]: j for j, t in enumerate(kept)}  # term -> column
        self.n, self.v = len(texts), len(kept)
        lens, indices, tf = np.zeros(self.n, dtype=np.int64), [], []
        for i, row in enumerate(counts):
            cols = sorted((int(column[t]), c) for t, c in row.items() if column[t] >= 0)
            lens[i] = len(cols)
            indices.extend(c for c, _ in cols)
            tf.extend(math.log(c) + 1.0 for _, c in cols)  # sublinear term frequency
        self.indptr = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
        self.indices = np.asarray(indices, dtype=np.int64)
        self.df = np.bincount(self.indices, minlength=self.v)
        self.idf = idf = np.log((self.n + 1) / (self.df + 1.0)) + 1.0  # smoothed: as if one more text held every term
        data = np.asarray(tf, dtype=np.float64) * idf[self.indices]
        rows = np.repeat(np.arange(self.n), lens)
        norm = np.sqrt(np.bincount(rows, weights=data * data, minlength=self.n))
        self.data = data / np.where(norm > 0, norm, 1.0)[rows]
        order = np.lexsort((rows, self.indices))  # by term, then row
        self.tptr = np.concatenate(([0], np.cumsum(self.df))).astype(np.int64)
        self.trows, self.tdata = rows[order], self.data[order]
        self._keys = rows * self.v + self.indices  # sorted: rows in order, terms sorted within a row
        self._dense: tuple[int, np.ndarray] | None = None

    def scores(self, query: str) -> np.ndarray:
        """The cosine of every row with the TF-IDF vector of `query` (its terms weighted with the rows'
        idf, terms no row has left out), as scikit-learn's `transform([query]) @ rows.T`; all 0 when the
        query shares no term with the rows."""
        c = Counter(t for t in self.analyzer(query) if t in self.vocabulary)
        out = np.zeros(self.n)
        if not c:
            return out
        ids = np.fromiter((self.vocabulary[w] for w in c), dtype=np.int64, count=len(c))
        w = np.fromiter((math.log(k) + 1.0 for k in c.values()), dtype=np.float64, count=len(c)) * self.idf[ids]
        w /= np.linalg.norm(w)
        for t, wt in zip(ids.tolist(), w.tolist(), strict=True):
            span = slice(self.tptr[t], self.tptr[t + 1])
            np.add.at(out, self.trows[span], wt * self.tdata[span])
        return out

    def cosines(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The cosine of rows a[i] and b[i] for every i: their products summed term by term, in term order."""
        lens = np.diff(self.indptr)[a]
        pos = _spread(self.indptr[a], lens)
        pair = np.repeat(np.arange(len(a), dtype=np.int64), lens)
        key = b[pair] * self.v + self.indices[pos]
        at = np.minimum(np.searchsorted(self._keys, key), max(len(self._keys) - 1, 0))
        hit = self._keys[at] == key
        return np.bincount(pair[hit], weights=self.data[pos[hit]] * self.data[at[hit]], minlength=len(a))

    def _frequent(self) -> tuple[int, np.ndarray]:
        """(limit, the terms in more than `limit` rows as a dense rows x terms float32 matrix): a matrix
        product costs a term about n/1,000 pairings of its rows one by one, so a term in more rows goes
        dense (at most 8M cells, 32 MB)."""
        if self._dense is None:
            most = max(1, (1 << 23) // max(self.n, 1))
            limit = max(16, self.n // 1024, int(np.sort(self.df)[-most]) if self.v > most else 0)
            terms = np.flatnonzero(self.df > limit)
            dense = np.zeros((self.n, len(terms)), dtype=np.float32)
            for j, t in enumerate(terms.tolist()):
                span = slice(self.tptr[t], self.tptr[t + 1])
                dense[self.trows[span], j] = self.tdata[span]
            self._dense = limit, dense
        return self._dense

    @property
    def slack(self) -> float:
        """How far an entry of `similarities` can be from the exact cosine: float32 rounding of the
        weights and of a sum of (dense terms) products of unit vectors, at most (terms + 2) units of
        2^-24 by the standard bound, plus two roundings of the rest (with a margin)."""
        return (self._frequent()[1].shape[1] + 8) * 2.0 ** -24 * 1.01 + 1e-12

    def similarities(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """The cosines of every row in `rows` with every row in `cols` (len(rows) x len(cols)) in float32,
        each within `slack` of the exact cosine, to screen candidates (`cosines` gives exact ones):
        frequent terms by a matrix product, the rest by pairing the rows that hold each term."""
        limit, frequent = self._frequent()
        every = len(cols) == self.n and bool((cols == np.arange(self.n)).all())
        out = frequent[rows] @ (frequent if every else frequent[cols]).T  # all: no copy of the dense terms
        lens = np.diff(self.indptr)[rows]
        pos = _spread(self.indptr[rows], lens)
        t = self.indices[pos]
        rare = self.df[t] <= limit
        if not rare.any():
            return out
        place = np.full(self.n, -1, dtype=np.int64)
        place[cols] = np.arange(len(cols))
        pos, t = pos[rare], t[rare]
        row = np.repeat(np.arange(len(rows), dtype=np.int64), lens)[rare]
        plen = self.df[t]
        post = _spread(self.tptr[t], plen)
        col = place[self.trows[post]]
        there = col >= 0
        weight = np.repeat(self.data[pos], plen) * self.tdata[post]
        flat = np.repeat(row, plen)[there] * len(cols) + col[there]
        out += np.bincount(flat, weights=weight[there], minlength=out.size).reshape(out.shape).astype(np.float32)
        return out

    def slices(self, rows: np.ndarray, width: int) -> list[slice]:
        """Consecutive slices of `rows` whose similarities to `width` columns, and whose expanded
        postings, stay within a few tens of MB."""
        limit = self._frequent()[0]
        lens = np.diff(self.indptr)[rows]
        t = self.indices[_spread(self.indptr[rows], lens)]
        cost = np.bincount(np.repeat(np.arange(len(rows)), lens), weights=np.minimum(self.df[t], limit),
                           minlength=len(rows)) + width
        out, start, used = [], 0, 0.0
        for i, c in enumerate(cost.tolist()):
            if i > start and used + c > BLOCK:
                out.append(slice(start, i))
                start, used = i, 0.0
            used += c
        return out + [slice(start, len(rows))] if len(rows) else out
