"""Near-duplicate tools: deterministic TF-IDF cosine similarity of names and descriptions, clustered."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .errors import InputError
from .registry import Registry, Tool

PAIR_COLUMNS = ["server_a", "tool_a", "server_b", "tool_b", "score", "cluster"]
_BLOCK = 512  # rows of the similarity matrix computed at once: bounds memory at any registry size


def name_words(name: str) -> list[str]:
    """The words of a tool name: split at `_`, `-`, `.`, `/`, spaces and camelCase humps, lowercased."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", name)
    return [w.lower() for w in re.split(r"[\s_\-./:]+", spaced) if w]


def tool_text(tool: Tool) -> str:
    """What the model reads to tell tools apart: the name's words and the description."""
    desc = tool.description if isinstance(tool.description, str) else ""
    return " ".join(name_words(tool.name)) + ". " + desc


def similarity_matrix_blocks(texts: list[str], max_features: int = 50000):
    """Yield (row offset, dense cosine block) of the TF-IDF vectors of `texts`, one block at a time."""
    from sklearn.feature_extraction.text import TfidfVectorizer  # heavy: imported only when used

    vec = TfidfVectorizer(stop_words="english", ngram_range=(1, 2), sublinear_tf=True,
                          max_features=max_features, dtype=np.float64)
    try:
        x = vec.fit_transform(texts)  # rows are L2-normalised, so a dot product is the cosine
    except ValueError:  # every text empty or only stop words: nothing can be similar
        return
    xt = x.T.tocsc()
    for start in range(0, x.shape[0], _BLOCK):
        yield start, (x[start:start + _BLOCK] @ xt).toarray()


def similar_pairs(reg: Registry, *, threshold: float = 0.5, method: str = "tfidf",
                  max_features: int = 50000) -> pd.DataFrame:
    """Pairs of tools whose similarity is at least `threshold`, with a cluster id per connected group.

    Raises InputError for an unknown method or a threshold outside 0..1.
    """
    if method != "tfidf":
        raise InputError(f"unknown similarity method {method!r}; expected 'tfidf'")
    if not 0.0 <= threshold <= 1.0:
        raise InputError(f"similarity threshold must be between 0 and 1, found {threshold}")
    tools = reg.tools
    texts = [tool_text(t) for t in tools]
    rows = []
    for start, block in similarity_matrix_blocks(texts, max_features):
        for i, j in zip(*np.nonzero(block >= threshold - 1e-12), strict=True):
            a, b = start + int(i), int(j)
            if b > a:
                rows.append((a, b, round(float(block[i, j]), 4)))
    labels = _components(len(tools), [(a, b) for a, b, _ in rows])
    out = pd.DataFrame(
        [(tools[a].server, tools[a].name, tools[b].server, tools[b].name, s, labels[a])
         for a, b, s in rows], columns=PAIR_COLUMNS)
    out = out.sort_values(["cluster", "score", "server_a", "tool_a", "server_b", "tool_b"],
                          ascending=[True, False, True, True, True, True], kind="stable")
    out.attrs.update(method="TF-IDF cosine (scikit-learn, unigrams+bigrams, sublinear tf, English "
                            "stop words) of name words + description", threshold=threshold)
    return out.reset_index(drop=True)


def _components(n: int, edges: list[tuple[int, int]]) -> list[int]:
    """Connected-component label of each node, numbered 1.. in order of each group's first member."""
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    roots = sorted({find(i) for e in edges for i in e})
    number = {r: k + 1 for k, r in enumerate(roots)}
    return [number.get(find(i), 0) for i in range(n)]


def clusters(pairs: pd.DataFrame) -> list[list[tuple[str, str]]]:
    """The (server, tool) members of each cluster in a `similar_pairs` table, in cluster order."""
    out: dict[int, list[tuple[str, str]]] = {}
    for r in pairs.itertuples(index=False):
        members = out.setdefault(r.cluster, [])
        for key in ((r.server_a, r.tool_a), (r.server_b, r.tool_b)):
            if key not in members:
                members.append(key)
    return [out[k] for k in sorted(out)]
