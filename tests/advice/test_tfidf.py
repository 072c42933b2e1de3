"""The numpy TF-IDF and neighbour search against independent oracles: scikit-learn's TfidfVectorizer
(a dev dependency only) on the folded texts of 2,311 real tools (with ../shared/data), and a brute-force
dense top-k."""

import numpy as np
import pytest
from _public_data import load_real_tools
from conftest import shared
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, TfidfVectorizer

from toolsurvey.advice.similarity.folding import Folder
from toolsurvey.advice.similarity.neighbours import nearest_in, neighbours, tfidf
from toolsurvey.advice.similarity.tfidf import Tfidf, stop_words, top_k
from toolsurvey.advice.thresholds import load_config


@pytest.fixture(scope="module")
def texts():
    shared("tools")  # 176 of the 2,311 tools are there (tests/data/real_tools/README.md)
    fold = Folder(load_config()["similarity"])
    out = [fold.text(t) for t in load_real_tools()]
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


def brute_top_k(sims: np.ndarray, k: int, positive: bool) -> set[tuple[int, int]]:
    """The oracle: per row, a stable sort by falling similarity, itself left out."""
    out = set()
    for i, row in enumerate(sims):
        row = row.copy()
        row[i] = -np.inf
        order = [j for j in np.argsort(-row, kind="stable")[:k] if not positive or row[j] > 1e-12]
        out |= {(i, int(j)) for j in order}
    return out


def test_top_k_takes_the_largest_and_breaks_ties_by_the_lower_column():
    sims = np.array([[1.0, 0.5, 0.5, 0.5, 0.0, 0.9],
                     [0.2, 1.0, 0.0, 0.0, 0.0, 0.0],
                     [0.3, 0.3, 1.0, 0.3, 0.3, 0.3]])
    r, c = top_k(sims.copy(), np.arange(3), 2, positive=True)
    assert set(zip(r.tolist(), c.tolist(), strict=True)) == {(0, 5), (0, 1), (1, 0), (2, 0), (2, 1)}
    r, c = top_k(np.zeros((2, 5)), np.arange(2), 2, positive=False)  # nothing in common: still k each
    assert set(zip(r.tolist(), c.tolist(), strict=True)) == {(0, 1), (0, 2), (1, 0), (1, 2)}
    r, c = top_k(np.zeros((2, 5)), np.arange(2), 2, positive=True)
    assert len(r) == 0


@pytest.mark.parametrize("k", [1, 5, 20])
def test_neighbours_are_the_brute_force_top_k_on_real_tool_texts(texts, k):
    want = sklearn_rows(texts)
    sims = (want @ want.T).toarray()
    expected = {(min(i, j), max(i, j)) for i, j in brute_top_k(sims, k, positive=True)}
    n = len(texts)
    got = {divmod(int(c), n) for c in neighbours(Tfidf(texts), k)}
    # a different summation order can flip a tie in its last bit: every difference must be such a tie
    for a, b in got ^ expected:
        kth = [np.sort(np.delete(sims[i], i))[::-1][k - 1] for i in (a, b)]
        assert min(abs(sims[a, b] - kth[0]), abs(sims[a, b] - kth[1])) < 1e-12, (a, b)
    assert len(got ^ expected) <= 2


def test_neighbours_of_dense_embeddings_are_the_brute_force_top_k():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(300, 8))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    expected = {(min(i, j), max(i, j)) for i, j in brute_top_k(x @ x.T, 5, positive=True)}
    assert {divmod(int(c), 300) for c in neighbours(x, 5)} == expected


def test_nearest_in_a_block_keeps_k_members_each_even_with_nothing_in_common(texts):
    x = Tfidf(texts)
    m = np.arange(100, 160, dtype=np.int64)
    sims = (sklearn_rows(texts)[m] @ sklearn_rows(texts)[m].T).toarray()
    expected = {(int(m[min(i, j)]), int(m[max(i, j)])) for i, j in brute_top_k(sims, 4, positive=False)}
    n = len(texts)
    assert {divmod(int(c), n) for c in nearest_in(x, m, 4, n)} == expected
    blank = {divmod(int(c), n) for c in nearest_in(None, m, 4, n)}  # every cosine 0: the first members
    assert blank == {(int(m[min(i, j)]), int(m[max(i, j)])) for i, j in brute_top_k(np.zeros((60, 60)), 4, False)}
