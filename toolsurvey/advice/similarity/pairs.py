"""Near-duplicate tools: candidates by sparse TF-IDF nearest neighbours, kept by a fitted score of name,
schema and wording features (or the older action/object rule), never read vs write; clustered."""

from __future__ import annotations

from array import array

import numpy as np
import pandas as pd

from ...core.registry import Registry
from ...errors import InputError
from .pair_features import score, scored_pairs

PAIR_COLUMNS = ["server_a", "tool_a", "server_b", "tool_b", "score", "basis", "cluster"]
# each method with its default threshold: "scored"'s chosen by cross-validation on labelled real pairs
# (bench/similarity_eval.py --fit), "tfidf"'s calibrated on the bundled samples (docs/audit.md#calibration)
# "embedding"'s 0.85 is the “Tool registry design” chapter's embedding cosine (not measured here: no model)
METHODS = {"scored": 0.65, "tfidf": 0.55, "embedding": 0.85}


def similar_pairs(reg: Registry, *, threshold: float | None = None, method: str = "scored",
                  config: dict | None = None, max_features: int = 50000) -> pd.DataFrame:
    """Pairs of tools that look like near-duplicates, with a cluster id per group of tools all paired
    with each other (0: the pair's tools ended up in different clusters; see `components`).

    Candidates are each tool's nearest TF-IDF neighbours (sparse top-k, `neighbours`) plus tools that
    share action and object or name (in a group of more than 21 such tools, each tool's 20 nearest of
    them, so a cluster there has about 21 members at most). Never paired: a read tool with a write tool, names whose verbs are
    of different classes, tools of different products (GitHub vs GitLab, `_other_system`). `method`:
    - "scored" (the default): `score` of `pair_features` >= `threshold`; the weights were fitted, and
      the default threshold 0.65 chosen by cross-validation, on labelled real pairs;
    - "tfidf": same action and either the same object or a TF-IDF cosine of the folded name words +
      first description sentence >= `threshold` (score: that cosine; default 0.55).
    - "embedding": same action and object, or a cosine of model2vec embeddings of the name words +
      first sentence >= `threshold` (default 0.85) whatever the verbs (`puppeteer_fill`/`browser_type`);
      needs `config["model"]`, the directory of a local model2vec model (nothing is downloaded), and
      model2vec installed.
    `threshold` None: the method's default (`METHODS`).
    bench/similarity_eval.py prints the precision and recall of both.
    `config` is the `[similarity]` table of the audit config (verb classes, synonyms, qualifiers).
    Raises InputError for an unknown method, a threshold outside 0..1, or a missing embedding model.
    """
    if method not in METHODS:
        raise InputError(f"unknown similarity method {method!r}; expected one of {', '.join(METHODS)}")
    threshold = METHODS[method] if threshold is None else threshold
    if not 0.0 <= threshold <= 1.0:
        raise InputError(f"similarity threshold must be between 0 and 1, found {threshold}")
    tools = reg.tools
    hits_a, hits_b, scores, same = array("q"), array("q"), array("d"), bytearray()
    model = ((config or {}).get("model") or "") if method == "embedding" else None
    for a, b, f in scored_pairs(reg, config, max_features, model=model):
        if f is None:
            continue
        both = bool(f["object"] and f["action"])
        if method == "scored":
            s = score(f)
            hit = s >= threshold - 1e-12
        else:  # same action and object, or similar wording: same action and TF-IDF cosine, or embedding cosine
            s = f["cosine"]
            hit = both or ((method == "embedding" or bool(f["action"])) and s >= threshold - 1e-12)
        if hit:
            hits_a.append(a), hits_b.append(b), scores.append(round(s, 4)), same.append(both)
    a, b = np.frombuffer(hits_a, dtype=np.int64), np.frombuffer(hits_b, dtype=np.int64)
    sc, sm = np.frombuffer(scores, dtype=np.float64), np.frombuffer(bytes(same), dtype=np.uint8).astype(bool)
    labels = np.asarray(components(len(tools), a, b, sm, sc), dtype=np.int64)
    servers = np.array([t.server for t in tools] or [""], dtype=object)
    names = np.array([t.name for t in tools] or [""], dtype=object)
    out = pd.DataFrame({"server_a": servers[a], "tool_a": names[a], "server_b": servers[b], "tool_b": names[b],
                        "score": sc, "basis": np.where(sm, "same action and object", "similar description"),
                        "cluster": np.where(labels[a] == labels[b], labels[a], 0)},
                       columns=PAIR_COLUMNS)
    out["basis"] = out["basis"].astype(object)
    out = out.sort_values(["cluster", "score", "server_a", "tool_a", "server_b", "tool_b"],
                          ascending=[True, False, True, True, True, True], kind="stable")
    out.attrs.update(method=f"{method}: see toolsurvey.advice.similarity.pairs.similar_pairs", threshold=threshold)
    return out.reset_index(drop=True)


def components(n: int, a: np.ndarray, b: np.ndarray, same: np.ndarray, score: np.ndarray) -> list[int]:
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
