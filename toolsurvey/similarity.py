"""Near-duplicate tools: candidates by sparse TF-IDF nearest neighbours, kept by a rule (same action and
object, or similar wording) or a fitted score, never read vs write; clustered."""

from __future__ import annotations

import math
import re
from array import array
from collections.abc import Iterator
from functools import lru_cache

import numpy as np
import pandas as pd

from .errors import InputError
from .registry import Registry, Tool

PAIR_COLUMNS = ["server_a", "tool_a", "server_b", "tool_b", "score", "basis", "cluster"]


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
        self.reads = set(cfg.get("read_actions", []))
        self.wildcards = set(cfg.get("wildcard_actions", []))

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
        """The name's verb class and the object it acts on (the last word that is not a qualifier). The
        verb is the first or second word (`crm_search_contacts`), or else the last (`issue_read`)."""
        ws = name_words(name)
        if ws and _stem(ws[0]) in self.verb:
            at, rest = 0, ws[1:]
        elif len(ws) > 2 and _stem(ws[1]) in self.verb:
            at, rest = 1, ws[2:]
        elif len(ws) > 1 and _stem(ws[-1]) in self.verb:
            at, rest = len(ws) - 1, ws[:-1]
        else:
            return None, None
        action = self.verb[_stem(ws[at])]
        rest = [w for w in rest if w not in self.qualifiers and not w.isdigit()]
        if not rest:
            return action, None
        raw = rest[-1]
        plural = _stem(raw) != raw and ws[-1] == raw  # get_users lists; get_users_id gets one
        if action == "get" and (ws[-1] in self.collections or plural):
            action = self.verb.get("list", action)  # get_active_alerts lists alerts
        return action, self.noun.get(_stem(raw), _stem(raw))

    def read_write(self, tool: Tool, action: str | None) -> str | None:
        """'read' or 'write': the tool's readOnlyHint annotation when it has one, else its action's class."""
        hint = tool.annotations.get("readOnlyHint") if isinstance(getattr(tool, "annotations", None), dict) else None
        if isinstance(hint, bool):
            return "read" if hint else "write"
        if action is None:
            return None
        return "read" if action in self.reads else "write"


# Weights of the "scored" method's duplicate score (logistic regression over the pair features below,
# every weight >= 0), fitted by `bench/similarity_eval.py --fit` on the `tune` half of
# tests/data/similarity_pairs.csv only.
WEIGHTS = {"bias": -5.18, "cosine": 0.44, "name": 1.29, "object": 0.21, "params": 0.0, "contain": 1.52,
           "extends": 1.47, "same_name": 3.41, "special": 3.46, "action": 0.0, "cross": 1.08}
FEATURES = ["cosine", "name", "object", "params", "contain", "extends", "same_name", "special", "action", "cross"]
METHODS = ("tfidf", "scored")
NEIGHBOURS = 20  # candidates per tool: its nearest TF-IDF neighbours (plus tools sharing action and object)
_CHUNK = 20000  # candidate pairs scored at once
_WORKING_MB = 8  # scikit-learn's working memory for the neighbour search: bounds memory at any size


def tfidf(texts: list[str], max_features: int = 50000):
    """L2-normalised TF-IDF rows of `texts` (scipy sparse; a dot product is the cosine), or None when
    every text is empty or only stop words."""
    from sklearn.feature_extraction.text import TfidfVectorizer  # heavy: imported only when used

    vec = TfidfVectorizer(stop_words="english", sublinear_tf=True, max_features=max_features, dtype=np.float64)
    try:
        return vec.fit_transform(texts)
    except ValueError:  # every text empty or only stop words: nothing can be similar
        return None


def neighbours(x, k: int = NEIGHBOURS) -> np.ndarray:
    """Pairs a < b where b is among a's `k` nearest rows by cosine (or a among b's), as sorted unique
    codes a * n + b, computed a slice of rows at a time (sparse top-k, never the dense n x n matrix)."""
    from sklearn import config_context
    from sklearn.neighbors import NearestNeighbors

    n = x.shape[0]
    if n < 2:
        return np.zeros(0, dtype=np.int64)
    nn = NearestNeighbors(n_neighbors=min(k + 1, n), metric="cosine", algorithm="brute").fit(x)
    with config_context(working_memory=_WORKING_MB):
        dist, idx = nn.kneighbors(x)
    a = np.repeat(np.arange(n, dtype=np.int64), idx.shape[1])
    b = idx.ravel().astype(np.int64)
    keep = (a != b) & (dist.ravel() < 1.0 - 1e-12)  # cosine 0: nothing in common, not a neighbour
    a, b = a[keep], b[keep]
    return np.unique(np.minimum(a, b) * n + np.maximum(a, b))


def _brands(tools: list[Tool]) -> dict[str, set[str]]:
    """Per server, the product names its descriptions keep naming (CamelCase or capitalised words
    mid-sentence, in at least a quarter of its tools and two): the system its tools act on (GitHub, GitLab)."""
    by: dict[str, list[Tool]] = {}
    for t in tools:
        by.setdefault(t.server, []).append(t)
    out = {}
    for server, ts in by.items():
        counts: dict[str, int] = {}
        for t in ts:
            desc = t.description if isinstance(t.description, str) else ""
            for w in set(re.findall(r"(?<=[a-z,;] )[A-Z][a-z]+\b|\b[A-Z][a-z]+[A-Z][A-Za-z]*\b", desc)):
                counts[w] = counts.get(w, 0) + 1
        out[server] = {w for w, n in counts.items() if n >= max(2, len(ts) / 4)}
    return out


def _prefixes(tools: list[Tool]) -> dict[str, set[str]]:
    """Per server, the first name word most of its tools share (`browser_`, `slack_`): it says nothing
    about one tool."""
    by: dict[str, list[str]] = {}
    for t in tools:
        ws = name_words(t.name)
        by.setdefault(t.server, []).append(ws[0] if len(ws) > 1 else "")
    out = {}
    for server, firsts in by.items():
        counts: dict[str, int] = {}
        for w in firsts:
            counts[w] = counts.get(w, 0) + 1
        out[server] = {w for w, n in counts.items() if w and len(firsts) >= 3 and n >= 0.6 * len(firsts)}
    return out


class _Profile:
    """What the pair features read from one tool."""

    __slots__ = ("action", "rw", "object", "core", "params", "text_lower")

    def __init__(self, tool: Tool, fold: Folder, prefix: set[str]):
        self.action, self.object = fold.action_object(tool.name)
        self.rw = fold.read_write(tool, self.action)
        words = [w for w in name_words(tool.name) if w not in prefix]
        if self.action is None and words:  # a verb the classes do not know (click, unresolve): itself
            self.action = "?" + words[0]
        self.core = {fold.word(w) for w in words if _stem(w) not in fold.verb}
        props = tool.input_schema.get("properties") if isinstance(tool.input_schema, dict) else None
        self.params = {p.lower() for p in props} if isinstance(props, dict) else set()
        self.text_lower = (tool.description if isinstance(tool.description, str) else "").lower()


def _jaccard(a: set, b: set) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def _never(p: _Profile, q: _Profile, fold: Folder) -> bool:
    """One reads and the other writes, or their actions differ (a `write`/`manage` name stands for any
    write action)."""
    if p.rw and q.rw and p.rw != q.rw:
        return True
    writes = "write" in (p.rw, q.rw)
    return bool(p.action and q.action and p.action != q.action and not (writes and {p.action, q.action} & fold.wildcards))


def pair_features(p: _Profile, q: _Profile, cosine: float, cross: bool, fold: Folder) -> dict[str, float] | None:
    """The features of a pair, or None when the pair can never be a duplicate: one reads and the other
    writes, or their actions differ (get vs list, update vs delete; a `write`/`manage` name stands for
    any write action)."""
    if _never(p, q, fold):
        return None
    writes = "write" in (p.rw, q.rw)
    small, large = sorted((p.params, q.params), key=len)
    short, long_ = sorted((p.core, q.core), key=len)
    return {"cosine": cosine, "name": _jaccard(p.core, q.core),
            "object": float(p.object is not None and p.object == q.object),
            "params": _jaccard(p.params, q.params),
            "contain": len(small & large) / len(small) if small else 0.0,
            # a write tool whose name extends the other's (update_pr_title vs update_pr): a special case of it
            "extends": float(writes and bool(short) and short < long_),
            "same_name": float(bool(short) and short == long_),
            "special": float(writes and bool(short) and short < long_ and bool(small) and small <= large),
            "action": float(p.action is not None and p.action == q.action), "cross": float(cross)}


def score(features: dict[str, float], weights: dict[str, float] = WEIGHTS) -> float:
    """Logistic duplicate score in 0..1 of a pair's features."""
    z = weights["bias"] + sum(weights[f] * features[f] for f in FEATURES)
    return 1.0 / (1.0 + math.exp(-z))


def _candidates(reg: Registry, config: dict | None, max_features: int, k: int):
    """(profiles, folder, candidates): the candidate pairs of `reg.tools` (see `scored_pairs`), a slice
    at a time as arrays: a, b, cosine, cross (different servers), other (servers naming different
    products: never a duplicate)."""
    fold = Folder(config or {})
    tools = reg.tools
    prefixes, brands = _prefixes(tools), _brands(tools)
    prof = [_Profile(t, fold, prefixes[t.server]) for t in tools]
    return prof, fold, _candidate_pairs(tools, prof, fold, brands, max_features, k)


def _candidate_pairs(tools: list[Tool], prof: list[_Profile], fold: Folder, brands: dict, max_features: int,
                     k: int) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Slices of candidate pairs as arrays (a, b, cosine, cross, other system)."""
    n = len(tools)
    x = tfidf([fold.text(t) for t in tools], max_features)
    codes = [neighbours(x, k)] if x is not None else []
    blocks: dict[tuple, list[int]] = {}
    for i, (t, p) in enumerate(zip(tools, prof, strict=True)):
        if p.action is not None and p.object is not None:
            blocks.setdefault(("ao", p.action, p.object), []).append(i)
        blocks.setdefault(("name", t.name), []).append(i)
    for m in blocks.values():
        if len(m) > 1:
            a, b = np.triu_indices(len(m), 1)
            codes.append(np.asarray(m, dtype=np.int64)[a] * n + np.asarray(m, dtype=np.int64)[b])
    if not codes:
        return
    codes = np.unique(np.concatenate(codes))
    server_ids = {s: i for i, s in enumerate(dict.fromkeys(t.server for t in tools))}
    server = np.array([server_ids[t.server] for t in tools], dtype=np.int64)
    names = list(server_ids)
    # servers whose descriptions name different products: only their pairs need the text check
    rival = np.array([[bool(brands[x] and brands[y] and not brands[x] & brands[y]) for y in names] for x in names])
    for start in range(0, len(codes), _CHUNK):
        a_idx, b_idx = np.divmod(codes[start:start + _CHUNK], n)
        cos = (np.asarray(x[a_idx].multiply(x[b_idx]).sum(axis=1)).ravel() if x is not None
               else np.zeros(len(a_idx)))
        cross = server[a_idx] != server[b_idx]
        other = np.zeros(len(a_idx), dtype=bool)
        for i in np.flatnonzero(rival[server[a_idx], server[b_idx]]).tolist():
            a, b = int(a_idx[i]), int(b_idx[i])
            other[i] = _other_system(tools[a].server, tools[b].server, brands, prof[a], prof[b])
        yield a_idx, b_idx, np.minimum(cos, 1.0), cross, other


def scored_pairs(reg: Registry, config: dict | None = None, max_features: int = 50000,
                 k: int = NEIGHBOURS) -> Iterator[tuple[int, int, dict[str, float] | None]]:
    """Every candidate pair (a, b) of `reg.tools` with its features (None: never a duplicate): each
    tool's `k` nearest neighbours by TF-IDF cosine of folded name + first description sentence, plus
    tools that share action and object, and tools of the same name. Yielded a slice at a time."""
    prof, fold, candidates = _candidates(reg, config, max_features, k)
    for a_idx, b_idx, cos, cross, other in candidates:
        for a, b, c, x, o in zip(a_idx.tolist(), b_idx.tolist(), cos.tolist(), cross.tolist(), other.tolist(),
                                 strict=True):
            yield a, b, None if o else pair_features(prof[a], prof[b], c, x, fold)


def _other_system(sa: str, sb: str, brands: dict[str, set[str]], p: _Profile, q: _Profile) -> bool:
    """Two servers whose descriptions name different products (GitHub vs GitLab) act on different systems."""
    ba, bb = brands[sa], brands[sb]
    return bool(ba and bb and not ba & bb and not any(w.lower() in q.text_lower for w in ba)
                and not any(w.lower() in p.text_lower for w in bb))


def similar_pairs(reg: Registry, *, threshold: float = 0.55, method: str = "tfidf", config: dict | None = None,
                  max_features: int = 50000) -> pd.DataFrame:
    """Pairs of tools that look like near-duplicates, with a cluster id per group of tools all paired
    with each other (0: the pair's tools ended up in different clusters; see `_components`).

    Candidates are each tool's nearest TF-IDF neighbours (sparse top-k, `neighbours`) plus tools that
    share action and object or name. Never paired: a read tool with a write tool, different actions,
    tools of servers that name different products (GitHub vs GitLab). `method`:
    - "tfidf": same action and either the same object or a TF-IDF cosine of the folded name words +
      first description sentence >= `threshold` (score: that cosine);
    - "scored": `score` of `pair_features` >= `threshold` (weights fitted on labelled real pairs).
    bench/similarity_eval.py prints the precision and recall of both.
    `config` is the `[similarity]` table of the audit config (verb classes, synonyms, qualifiers).
    Raises InputError for an unknown method or a threshold outside 0..1.
    """
    if method not in METHODS:
        raise InputError(f"unknown similarity method {method!r}; expected one of {', '.join(METHODS)}")
    if not 0.0 <= threshold <= 1.0:
        raise InputError(f"similarity threshold must be between 0 and 1, found {threshold}")
    tools = reg.tools
    hits_a, hits_b, scores, same = array("q"), array("q"), array("d"), bytearray()
    prof, fold, candidates = _candidates(reg, config, max_features, NEIGHBOURS)
    if method == "tfidf":  # same action and object, or same action and similar wording: per tool codes
        code = {}
        act, obj, rw = (np.array([-1 if v is None else code.setdefault(v, len(code)) for v in vals], dtype=np.int64)
                        for vals in ([p.action for p in prof], [p.object for p in prof], [p.rw for p in prof]))
    for a_idx, b_idx, cos, cross, other in candidates:
        if method == "scored":
            for a, b, c, x, o in zip(a_idx.tolist(), b_idx.tolist(), cos.tolist(), cross.tolist(), other.tolist(),
                                     strict=True):
                f = None if o else pair_features(prof[a], prof[b], c, x, fold)
                if f is not None and (s := score(f)) >= threshold - 1e-12:
                    hits_a.append(a), hits_b.append(b), scores.append(round(s, 4))
                    same.append(bool(f["object"] and f["action"]))
            continue
        # one action (so only a read/write clash can rule the pair out, see _never)
        both = (obj[a_idx] >= 0) & (obj[a_idx] == obj[b_idx])
        clash = (rw[a_idx] >= 0) & (rw[b_idx] >= 0) & (rw[a_idx] != rw[b_idx])
        hit = ~other & (act[a_idx] >= 0) & (act[a_idx] == act[b_idx]) & ~clash & (both | (cos >= threshold - 1e-12))
        hits_a.extend(a_idx[hit].tolist()), hits_b.extend(b_idx[hit].tolist())
        scores.extend(round(c, 4) for c in cos[hit].tolist()), same.extend(both[hit].tolist())
    a, b = np.frombuffer(hits_a, dtype=np.int64), np.frombuffer(hits_b, dtype=np.int64)
    sc, sm = np.frombuffer(scores, dtype=np.float64), np.frombuffer(bytes(same), dtype=np.uint8).astype(bool)
    labels = np.asarray(_components(len(tools), a, b, sm, sc), dtype=np.int64)
    servers = np.array([t.server for t in tools] or [""], dtype=object)
    names = np.array([t.name for t in tools] or [""], dtype=object)
    out = pd.DataFrame({"server_a": servers[a], "tool_a": names[a], "server_b": servers[b], "tool_b": names[b],
                        "score": sc, "basis": np.where(sm, "same action and object", "similar description"),
                        "cluster": np.where(labels[a] == labels[b], labels[a], 0)},
                       columns=PAIR_COLUMNS)
    out["basis"] = out["basis"].astype(object)
    out = out.sort_values(["cluster", "score", "server_a", "tool_a", "server_b", "tool_b"],
                          ascending=[True, False, True, True, True, True], kind="stable")
    out.attrs.update(method=f"{method}: see toolsurvey.similarity.similar_pairs", threshold=threshold)
    return out.reset_index(drop=True)


def _components(n: int, a: np.ndarray, b: np.ndarray, same: np.ndarray, score: np.ndarray) -> list[int]:
    """Cluster label of each of n nodes given pairs a[i] < b[i] (0: in no cluster). Pairs join in order of
    falling strength (same action and object first, then score), and two groups merge only when every
    member of one is paired with every member of the other, so a chain a~b~c never puts a and c
    together unless they are similar themselves."""
    edges = set((a * n + b).tolist())
    group: dict[int, set[int]] = {}
    for k in np.lexsort((b, a, -score, ~same)).tolist():
        x, y = int(a[k]), int(b[k])
        ga, gb = group.get(x, {x}), group.get(y, {y})
        if ga is gb or not all(min(p, q) * n + max(p, q) in edges for p in ga for q in gb):
            continue
        merged = ga | gb
        for i in merged:
            group[i] = merged
    firsts = sorted({min(g) for g in group.values()})
    number = {f: k + 1 for k, f in enumerate(firsts)}
    return [number[min(group[i])] if i in group else 0 for i in range(n)]


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
