"""The one numpy TF-IDF engine against its oracle, scikit-learn's TfidfVectorizer (a dev dependency only):
rows, cosines and query scores, on the folded texts of 2,311 real tools (with ../shared/data) for the
similarity audit's analysis, and on the sample registry's tools and queries for the tool search's."""

import json

import numpy as np
import pytest
from _public_data import folded_real_tools
from conftest import ROOT, shared
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, TfidfVectorizer

from toolsurvey.advice.similarity.neighbours import tfidf
from toolsurvey.core.tfidf import Tfidf, stop_words
from toolsurvey.measuring.retrieval.text import terms, tool_text


@pytest.fixture(scope="module")
def texts():
    shared("tools")  # 176 of the 2,311 tools are there (tests/data/real_tools/README.md)
    out = folded_real_tools()
    assert len(out) == 2311
    return out


def dense(x: Tfidf) -> np.ndarray:
    out = np.zeros((x.n, x.v))
    for i in range(x.n):
        span = slice(x.indptr[i], x.indptr[i + 1])
        out[i, x.indices[span]] = x.data[span]
    return out


def sklearn_rows(texts, **kw):
    return TfidfVectorizer(stop_words="english", sublinear_tf=True, dtype=np.float64, **kw).fit_transform(texts)


def test_stop_words_are_scikit_learns():
    assert stop_words() == ENGLISH_STOP_WORDS


def test_weights_match_scikit_learn_on_real_tool_texts(texts):
    x, want = Tfidf(texts), sklearn_rows(texts)
    assert x.v == want.shape[1]
    np.testing.assert_allclose(dense(x), want.toarray(), rtol=0, atol=1e-15)


def test_max_features_keeps_the_most_frequent_terms_like_scikit_learn():
    texts = ["alpha alpha alpha beta beta gamma", "alpha beta delta delta delta delta", "epsilon alpha"]
    x, want = Tfidf(texts, max_features=3), sklearn_rows(texts, max_features=3)
    np.testing.assert_allclose(dense(x), want.toarray(), rtol=0, atol=1e-15)  # alpha 5, delta 4, beta 3


def test_only_stop_words_or_nothing_gives_no_rows():
    assert tfidf(["", "the and of", "a"]) is None


def test_pair_cosines_match_scikit_learn(texts):
    x, want = Tfidf(texts), sklearn_rows(texts)
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, len(texts), 5000), rng.integers(0, len(texts), 5000)
    expected = np.asarray(want[a].multiply(want[b]).sum(axis=1)).ravel()
    np.testing.assert_allclose(x.cosines(a, b), expected, rtol=0, atol=1e-15)
    assert (x.cosines(a, a)[np.diff(x.indptr)[a] > 0] == pytest.approx(1.0))


def test_similarities_by_product_and_by_postings_are_within_their_slack_of_the_dense_product(texts):
    """On 2,311 texts, terms in more than 16 rows go through the (float32) matrix product, the rest
    through their postings: both halves are exercised, and every entry is within `slack` of the exact
    cosine, the bound the neighbour search relies on to keep every true neighbour a candidate."""
    x, want = Tfidf(texts), sklearn_rows(texts)
    limit, frequent = x._frequent()
    assert 0 < frequent.shape[1] < x.v and (x.df <= limit).any()
    rows, cols = np.arange(0, len(texts), 3), np.arange(1, len(texts), 2)
    error = np.abs(x.similarities(rows, cols) - (want[rows] @ want[cols].T).toarray())
    assert error.max() < x.slack < 1e-4
    assert error.max() > 0  # float32: the screen is not exact, the chosen neighbours are (below)


def test_query_scores_match_scikit_learn_with_the_search_terms():
    """The tool search's analysis (identifiers split, stop words out): each of the 42 sample queries
    scored against the 63 sample tools as scikit-learn's transform([query]) @ rows.T."""
    import toolsurvey as ts

    docs = [tool_text(t) for t in ts.load(ROOT / "data" / "registries" / "ops_assistant.json")]
    queries = [json.loads(line)["query"] for line in
               (ROOT / "data" / "queries" / "ops_assistant.jsonl").read_text().splitlines() if line.strip()]
    vec = TfidfVectorizer(analyzer=terms, sublinear_tf=True, dtype=np.float64)
    rows = vec.fit_transform(docs)
    x = Tfidf(docs, max_features=None, analyzer=terms)
    np.testing.assert_allclose(dense(x), rows.toarray(), rtol=0, atol=1e-15)
    want = (vec.transform(queries) @ rows.T).toarray()
    got = np.array([x.scores(q) for q in queries])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)
    assert (got > 0).any(axis=1).sum() > 30 and not x.scores("zzz qqq").any()  # unknown words score 0
