"""Near-duplicate tools: deterministic TF-IDF cosine similarity of names and descriptions, clustered."""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np
import pandas as pd

from .errors import InputError
from .registry import Registry, Tool

PAIR_COLUMNS = ["server_a", "tool_a", "server_b", "tool_b", "score", "basis", "cluster"]
_BLOCK = 512  # rows of the similarity matrix computed at once: bounds memory at any registry size


def name_words(name: str) -> list[str]:
    """The words of a tool name: split at `_`, `-`, `.`, `/`, spaces and camelCase humps, lowercased."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", name)
    return [w.lower() for w in re.split(r"[\s_\-./:]+", spaced) if w]


@lru_cache(maxsize=1 << 16)  # vocabularies repeat: caching makes folding 2,000 tools several times faster
def _stem(word: str) -> str:
    """Fold plural and verb endings (gets -> get, queries -> query, records -> record)."""
    w = word.lower()
    if len(w) > 5 and w.endswith("ing"):
        return w[:-3]
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("ches", "shes", "sses", "xes", "zes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


class Folder:
    """Folds words to canonical forms (verb classes, noun synonyms) and names to (action, object)."""

    def __init__(self, cfg: dict):
        self.verb = {w: g[0] for g in cfg.get("verb_classes", []) for w in g}
        self.noun = {w: g[0] for g in cfg.get("noun_synonyms", []) for w in g}
        self.qualifiers = set(cfg.get("qualifiers", []))
        self.collections = set(cfg.get("collection_words", []))

    def word(self, w: str) -> str:
        s = _stem(w)
        return self.verb.get(s, self.noun.get(s, s))

    def text(self, tool: Tool) -> str:
        """Name words plus the description's first sentence, folded: what the model compares."""
        desc = tool.description if isinstance(tool.description, str) else ""
        first = re.split(r"(?<=[.!?])\s", desc.strip(), maxsplit=1)[0]
        words = name_words(tool.name) + re.findall(r"[A-Za-z][A-Za-z0-9]*", first)
        return " ".join(self.word(w) for w in words)

    def action_object(self, name: str) -> tuple[str | None, str | None]:
        """The name's verb class and the object it acts on (the last word that is not a qualifier)."""
        ws = name_words(name)
        at = 0 if ws and _stem(ws[0]) in self.verb else (1 if len(ws) > 2 and _stem(ws[1]) in self.verb else None)
        if at is None:
            return None, None
        action = self.verb[_stem(ws[at])]
        rest = [w for w in ws[at + 1:] if w not in self.qualifiers and not w.isdigit()]
        if not rest:
            return action, None
        raw = rest[-1]
        plural = _stem(raw) != raw and ws[-1] == raw  # get_users lists; get_users_id gets one
        if action == "get" and (ws[-1] in self.collections or plural):
            action = self.verb.get("list", action)  # get_active_alerts lists alerts
        return action, self.noun.get(_stem(raw), _stem(raw))


def similarity_matrix_blocks(texts: list[str], max_features: int = 50000):
    """Yield (row offset, dense cosine block) of the TF-IDF vectors of `texts`, one block at a time."""
    from sklearn.feature_extraction.text import TfidfVectorizer  # heavy: imported only when used

    vec = TfidfVectorizer(stop_words="english", sublinear_tf=True, max_features=max_features,
                          dtype=np.float64)
    try:
        x = vec.fit_transform(texts)  # rows are L2-normalised, so a dot product is the cosine
    except ValueError:  # every text empty or only stop words: nothing can be similar
        return
    xt = x.T.tocsc()
    for start in range(0, x.shape[0], _BLOCK):
        yield start, (x[start:start + _BLOCK] @ xt).toarray()


def similar_pairs(reg: Registry, *, threshold: float = 0.55, method: str = "tfidf", config: dict | None = None,
                  max_features: int = 50000) -> pd.DataFrame:
    """Pairs of tools that do the same action and either act on the same object or have descriptions
    whose TF-IDF cosine is at least `threshold`, with a cluster id per group of tools all paired with
    each other (0: the pair's tools ended up in different clusters; see `_components`).

    `config` is the `[similarity]` table of the audit config (verb classes, synonyms, qualifiers).
    Raises InputError for an unknown method or a threshold outside 0..1.
    """
    if method != "tfidf":
        raise InputError(f"unknown similarity method {method!r}; expected 'tfidf'")
    if not 0.0 <= threshold <= 1.0:
        raise InputError(f"similarity threshold must be between 0 and 1, found {threshold}")
    fold = Folder(config or {})
    tools = reg.tools
    ao = [fold.action_object(t.name) for t in tools]
    by_ao: dict[tuple, list[int]] = {}
    for i, (a, o) in enumerate(ao):
        if a is not None and o is not None:
            by_ao.setdefault((a, o), []).append(i)
    found: dict[tuple[int, int], tuple[float, str]] = {}
    for start, block in similarity_matrix_blocks([fold.text(t) for t in tools], max_features):
        for i, j in zip(*np.nonzero(block >= threshold - 1e-12), strict=True):
            a, b = start + int(i), int(j)
            if b > a and ao[a][0] == ao[b][0]:
                found[(a, b)] = (round(float(block[i, j]), 4), "similar description")
        for members in by_ao.values():  # same action and object, whatever the descriptions say
            for a in members:
                if start <= a < start + _BLOCK:
                    for b in members:
                        if b > a:
                            found[(a, b)] = (round(float(block[a - start, b]), 4), "same action and object")
    rows = sorted(found.items())
    # same action and object binds harder than similar wording, then higher score first
    labels = _components(len(tools), {k: (v[1] == "same action and object", v[0]) for k, v in rows})
    out = pd.DataFrame(
        [(tools[a].server, tools[a].name, tools[b].server, tools[b].name, s, basis,
          labels[a] if labels[a] == labels[b] else 0) for (a, b), (s, basis) in rows], columns=PAIR_COLUMNS)
    out = out.sort_values(["cluster", "score", "server_a", "tool_a", "server_b", "tool_b"],
                          ascending=[True, False, True, True, True, True], kind="stable")
    out.attrs.update(method="same verb class and object, or TF-IDF cosine (scikit-learn, sublinear tf, "
                            "English stop words) of folded name words + first description sentence",
                     threshold=threshold)
    return out.reset_index(drop=True)


def _components(n: int, edges: dict[tuple[int, int], tuple]) -> list[int]:
    """Cluster label of each node (0: in no cluster). Pairs join in order of falling strength, and two
    groups merge only when every member of one is paired with every member of the other, so a chain
    a~b~c never puts a and c together unless they are similar themselves."""
    group = {i: {i} for i in range(n)}
    for (a, b), _ in sorted(edges.items(), key=lambda kv: (tuple(-x for x in kv[1]), kv[0])):
        ga, gb = group[a], group[b]
        if ga is gb or not all((min(x, y), max(x, y)) in edges for x in ga for y in gb):
            continue
        merged = ga | gb
        for i in merged:
            group[i] = merged
    firsts = sorted({min(g) for g in group.values() if len(g) > 1})
    number = {f: k + 1 for k, f in enumerate(firsts)}
    return [number.get(min(group[i]), 0) if len(group[i]) > 1 else 0 for i in range(n)]


def clusters(pairs: pd.DataFrame) -> list[list[tuple[str, str]]]:
    """The (server, tool) members of each cluster in a `similar_pairs` table, in cluster order
    (pairs whose tools ended up in different clusters, cluster 0, are left out)."""
    out: dict[int, list[tuple[str, str]]] = {}
    for r in pairs[pairs["cluster"] > 0].itertuples(index=False):
        members = out.setdefault(r.cluster, [])
        for key in ((r.server_a, r.tool_a), (r.server_b, r.tool_b)):
            if key not in members:
                members.append(key)
    return [out[k] for k in sorted(out)]
