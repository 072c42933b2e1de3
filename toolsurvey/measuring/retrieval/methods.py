"""The ways a search scores a registry's tools for a query: BM25 (bm25s), an approximation of
Anthropic's regex variant, TF-IDF cosine, and a local model2vec embedding. Each method is built once
over the tools' texts and returns one score per tool for a query; 0 means "not retrieved"."""

from __future__ import annotations

import re

import numpy as np

from ...core.embedding import model2vec_encoder
from ...core.tfidf import Tfidf as TfidfRows
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
    """Cosine of the query's and each tool's TF-IDF vectors over search terms (`terms`), by the one
    engine (`core.tfidf`: scikit-learn's TfidfVectorizer(analyzer=terms, sublinear_tf=True) weights)."""

    def __init__(self, docs: list[str]):
        self._n = len(docs)
        try:
            self._engine: TfidfRows | None = TfidfRows(docs, max_features=None, analyzer=terms)
        except ValueError:  # no tool has a search term: every score is 0
            self._engine = None

    def scores(self, query: str) -> np.ndarray:
        return self._engine.scores(query) if self._engine is not None else np.zeros(self._n)


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
        self._encode = model2vec_encoder(model, purpose="retrieval method 'embedding'", setting="--model DIR")
        self._docs = self._encode(docs)

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
