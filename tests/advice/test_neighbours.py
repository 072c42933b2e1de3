"""The neighbour search over TF-IDF rows and embeddings against a brute-force dense top-k, with
scikit-learn's TfidfVectorizer (a dev dependency only) giving the exact cosines of the folded texts of
2,311 real tools (with ../shared/data)."""

import numpy as np
import pytest
from _public_data import folded_real_tools
from conftest import shared
from sklearn.feature_extraction.text import TfidfVectorizer

from toolsurvey.advice.similarity.neighbours import nearest_in, neighbours, top_k
from toolsurvey.core.tfidf import Tfidf


@pytest.fixture(scope="module")
def texts():
    shared("tools")  # 176 of the 2,311 tools are there (tests/data/real_tools/README.md)
    out = folded_real_tools()
    assert len(out) == 2311
    return out


def sklearn_rows(texts, **kw):
    return TfidfVectorizer(stop_words="english", sublinear_tf=True, dtype=np.float64, **kw).fit_transform(texts)


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
