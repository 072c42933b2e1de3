"""The ways a search scores a registry's tools for a query: BM25 (bm25s), an approximation of
Anthropic's regex variant, TF-IDF cosine, and a local model2vec embedding. Each method is built once
over the tools' texts and returns one score per tool for a query; 0 means "not retrieved"."""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path

import numpy as np

from ...errors import InputError
from .text import split_identifiers, terms

METHODS = ("bm25", "regex", "tfidf", "embedding")
REGEX_MAX = 200  # characters in a regex pattern (Anthropic's documented limit)


class BM25:
    """Okapi BM25 as bm25s computes it (its defaults: Lucene variant, k1 = 1.5, b = 0.75)."""

    def __init__(self, docs: list[str]):
        import bm25s  # imported where used: `toolsurvey --help` loads no search engine

        self._engine = bm25s.BM25()
        tokens = [terms(d) for d in docs]
        # bm25s needs one token somewhere; a registry of empty texts scores 0 everywhere
        self._engine.index(tokens if any(tokens) else [["\x00"]] * len(docs), show_progress=False)
        self._vocab = self._engine.vocab_dict
        self._n = len(docs)

    def scores(self, query: str) -> np.ndarray:
        ids = [self._vocab[t] for t in terms(query) if t in self._vocab]
        if not ids:
            return np.zeros(self._n, dtype=np.float64)
        return self._engine.get_scores_from_ids(ids).astype(np.float64)


class Tfidf:
    """Cosine of TF-IDF vectors with the project's weights (sublinear term frequency, smoothed idf,
    L2-normalised rows, as scikit-learn's TfidfVectorizer(sublinear_tf=True) computes them)."""

    def __init__(self, docs: list[str]):
        counts = [Counter(terms(d)) for d in docs]
        self._vocab: dict[str, int] = {}
        for c in counts:
            for w in c:
                self._vocab.setdefault(w, len(self._vocab))
        n, v = len(docs), len(self._vocab)
        df = np.zeros(v)
        rows, cols, vals = [], [], []
        for i, c in enumerate(counts):
            for w, k in c.items():
                rows.append(i), cols.append(self._vocab[w]), vals.append(math.log(k) + 1.0)
        cols_a = np.asarray(cols, dtype=np.int64)
        np.add.at(df, cols_a, 1.0)
        self._idf = np.log((n + 1) / (df + 1.0)) + 1.0
        data = np.asarray(vals) * self._idf[cols_a] if vals else np.zeros(0)
        rows_a = np.asarray(rows, dtype=np.int64)
        norm = np.sqrt(np.bincount(rows_a, weights=data * data, minlength=n)) if n else np.zeros(0)
        data = data / np.where(norm > 0, norm, 1.0)[rows_a] if len(data) else data
        # by term: the rows that hold it and their weights, for a sparse query x documents product
        order = np.argsort(cols_a, kind="stable")
        self._ptr = np.concatenate(([0], np.cumsum(np.bincount(cols_a, minlength=v)))).astype(np.int64)
        self._rows, self._data, self._n = rows_a[order], data[order], n

    def scores(self, query: str) -> np.ndarray:
        c = Counter(t for t in terms(query) if t in self._vocab)
        out = np.zeros(self._n)
        if not c:
            return out
        ids = np.fromiter((self._vocab[w] for w in c), dtype=np.int64, count=len(c))
        w = np.fromiter((math.log(k) + 1.0 for k in c.values()), dtype=np.float64, count=len(c)) * self._idf[ids]
        w /= np.linalg.norm(w)
        for t, wt in zip(ids, w, strict=True):
            a, b = self._ptr[t], self._ptr[t + 1]
            np.add.at(out, self._rows[a:b], wt * self._data[a:b])
        return out


def regex_pattern(query: str) -> str:
    """The pattern toolsurvey writes for a query in place of the model: its distinct terms as
    alternatives, `(?i)(?:t1|t2|...)`, cut to whole terms within the 200-character limit."""
    words, out = list(dict.fromkeys(terms(query))), []
    for w in words:
        candidate = "(?i)(?:" + "|".join([*out, re.escape(w)]) + ")"
        if len(candidate) > REGEX_MAX:
            break
        out.append(re.escape(w))
    return "(?i)(?:" + "|".join(out) + ")" if out else ""


class Regex:
    """An approximation of Anthropic's regex variant: the query's terms as one pattern (regex_pattern),
    `re.search`ed in each tool's text; a tool's score is how many of the terms it contains. The real
    variant has the model write the pattern, and its order among matches is not documented."""

    def __init__(self, docs: list[str]):
        self._docs = [split_identifiers(d).lower() for d in docs]

    def scores(self, query: str) -> np.ndarray:
        pattern = regex_pattern(query)
        if not pattern:
            return np.zeros(len(self._docs))
        rx = re.compile(pattern)
        return np.fromiter((len(set(m.lower() for m in rx.findall(d))) for d in self._docs), dtype=np.float64,
                           count=len(self._docs))


class Embedding:
    """Cosine of model2vec embeddings from a model directory on this machine (never downloaded);
    a cosine of 0 or less counts as not retrieved."""

    def __init__(self, docs: list[str], model: str | None):
        if not model or not Path(model).is_dir():
            raise InputError(f"retrieval method 'embedding' needs the directory of a model2vec model on this "
                             f"machine (--model DIR); found {model!r}. Nothing is downloaded")
        try:
            from model2vec import StaticModel  # optional: pip install 'toolsurvey[embeddings]'
        except ImportError:
            raise InputError("retrieval method 'embedding' needs model2vec: pip install 'toolsurvey[embeddings]'") from None
        try:
            self._model = StaticModel.from_pretrained(model)
        except Exception as e:  # a directory that is not a model2vec model: say so, do not guess
            raise InputError(f"could not load a model2vec model from {model}: {e}") from None
        self._docs = self._encode(docs)

    def _encode(self, texts: list[str]) -> np.ndarray:
        x = np.asarray(self._model.encode(texts), dtype=np.float64)
        return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)

    def scores(self, query: str) -> np.ndarray:
        return np.maximum(self._docs @ self._encode([query])[0], 0.0)


def scorer(method: str, docs: list[str], model: str | None = None):
    """The scorer of `method` over the tools' texts; raises InputError for an unknown method."""
    if method == "bm25":
        return BM25(docs)
    if method == "regex":
        return Regex(docs)
    if method == "tfidf":
        return Tfidf(docs)
    if method == "embedding":
        return Embedding(docs, model)
    raise InputError(f"unknown retrieval method {method!r}; expected one of {', '.join(METHODS)}")
