"""Near-duplicate tools: candidates by sparse TF-IDF nearest neighbours, kept by a fitted score of name,
schema and wording features (or the older action/object rule), never read vs write; clustered."""

from __future__ import annotations

import math
import re
from array import array
from collections.abc import Iterator
from functools import lru_cache

import numpy as np
import pandas as pd

from ..core.registry import Registry, Tool
from ..errors import InputError
from .tfidf import BLOCK, Tfidf, top_k

PAIR_COLUMNS = ["server_a", "tool_a", "server_b", "tool_b", "score", "basis", "cluster"]


def name_words(name: str) -> list[str]:
    """The words of a tool name: split at `_`, `-`, `.`, `/`, spaces and camelCase humps, lowercased."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", name)
    return [w.lower() for w in re.split(r"[\s_\-./:]+", spaced) if w]


def first_sentence(text: str) -> str:
    """Up to the first `.`, `!` or `?` followed by a space: what the tool does."""
    return re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0]


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
        self.classes = set(self.verb.values())
        self.noun = {w: g[0] for g in cfg.get("noun_synonyms", []) for w in g}
        self.qualifiers = set(cfg.get("qualifiers", []))
        self.collections = set(cfg.get("collection_words", []))
        self.reads = set(cfg.get("read_actions", []))
        self.wildcards = set(cfg.get("wildcard_actions", []))
        self.batch = set(cfg.get("batch_words", []))

    def word(self, w: str) -> str:
        s = _stem(w)
        return self.verb.get(s, self.noun.get(s, s))

    def text(self, tool: Tool) -> str:
        """Name words plus the description's first sentence, folded: what the model compares."""
        desc = tool.description if isinstance(tool.description, str) else ""
        words = name_words(tool.name) + re.findall(r"[A-Za-z][A-Za-z0-9]*", first_sentence(desc))
        return " ".join(self.word(w) for w in words)

    def _verb_at(self, ws: list[str]) -> int | None:
        """Where the verb stands among a name's words: first or second (`crm_search_contacts`), else last
        (`issue_read`); None when no word is a known verb."""
        if ws and _stem(ws[0]) in self.verb:
            return 0
        if len(ws) > 2 and _stem(ws[1]) in self.verb:
            return 1
        if len(ws) > 1 and _stem(ws[-1]) in self.verb:
            return len(ws) - 1
        return None

    def verb_class(self, name: str) -> str | None:
        """The class of the name's own verb (`get_users` -> get; `action_object` would say list)."""
        ws = name_words(name)
        at = self._verb_at(ws)
        return None if at is None else self.verb[_stem(ws[at])]

    def action_object(self, name: str) -> tuple[str | None, str | None]:
        """The name's verb class and the object it acts on (the last word that is not a qualifier)."""
        ws = name_words(name)
        at = self._verb_at(ws)
        if at is None:
            return None, None
        action = self.verb[_stem(ws[at])]
        rest = [w for i, w in enumerate(ws) if i > at or (at == len(ws) - 1 and i < at)]
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
WEIGHTS = {"bias": -5.51, "cosine": 2.18, "object": 0.65, "contain": 1.31, "special": 4.62, "same_name": 3.67,
           "cross": 1.3, "replaces": 2.32}
FEATURES = ["cosine", "object", "contain", "special", "same_name", "cross", "replaces"]
# each method with its default threshold: "scored"'s chosen by cross-validation on labelled real pairs
# (bench/similarity_eval.py --fit), "tfidf"'s calibrated on the bundled samples (docs/audit.md#calibration)
# "embedding"'s 0.85 is the “Tool registry design” chapter's embedding cosine (not measured here: no model)
METHODS = {"scored": 0.65, "tfidf": 0.55, "embedding": 0.85}
NEIGHBOURS = 20  # candidates per tool: its nearest TF-IDF neighbours (plus tools sharing action and object)
_CHUNK = 20000  # candidate pairs scored at once


def tfidf(texts: list[str], max_features: int = 50000) -> Tfidf | None:
    """L2-normalised TF-IDF rows of `texts` (scikit-learn's weights, computed with numpy alone), or None
    when every text is empty or only stop words."""
    try:
        return Tfidf(texts, max_features)
    except ValueError:  # every text empty or only stop words: nothing can be similar
        return None


def embeddings(texts: list[str], model: str) -> np.ndarray:
    """L2-normalised rows of `texts` embedded by the model2vec model in local directory `model` (a dot
    product is the cosine). Never downloads: raises InputError when the directory or model2vec is missing."""
    from pathlib import Path

    if not model or not Path(model).is_dir():
        raise InputError(f"similarity method 'embedding' needs [similarity] model = the directory of a "
                         f"model2vec model on this machine; found {model!r}. Use method 'scored' without one")
    try:
        from model2vec import StaticModel  # optional: pip install 'toolsurvey[embeddings]'
    except ImportError:
        raise InputError("similarity method 'embedding' needs model2vec: pip install 'toolsurvey[embeddings]'") from None
    try:
        x = StaticModel.from_pretrained(model).encode(texts)
    except Exception as e:  # a directory that is not a model2vec model: say so, do not guess
        raise InputError(f"could not load a model2vec model from {model}: {e}") from None
    x = np.asarray(x, dtype=np.float64)
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)


def _top(x: Tfidf | np.ndarray | None, rows: np.ndarray, cols: np.ndarray, own: np.ndarray, k: int,
         positive: bool) -> tuple[np.ndarray, np.ndarray]:
    """`top_k` of rows against cols: TF-IDF cosines screened in float32 and chosen by exact ones."""
    if isinstance(x, Tfidf):
        return top_k(x.similarities(rows, cols), own, k, positive,
                     exact=lambda r, c: x.cosines(rows[r], cols[c]), slack=x.slack)
    sims = np.zeros((len(rows), len(cols))) if x is None else x[rows] @ x[cols].T
    return top_k(sims, own, k, positive)


def _slices(x: Tfidf | np.ndarray | None, rows: np.ndarray, width: int) -> list[slice]:
    """`rows` in slices whose similarities to `width` columns fit a few tens of MB."""
    if isinstance(x, Tfidf):
        return x.slices(rows, width)
    step = max(1, BLOCK // max(width, 1))
    return [slice(i, i + step) for i in range(0, len(rows), step)]


def neighbours(x: Tfidf | np.ndarray, k: int = NEIGHBOURS) -> np.ndarray:
    """Pairs a < b where b is among a's `k` nearest rows by cosine (or a among b's; ties: the lower
    row; a cosine of 0 is no neighbour), as sorted unique codes a * n + b: exact, computed a slice of
    rows at a time (never the dense n x n matrix)."""
    n = x.shape[0] if isinstance(x, np.ndarray) else x.n
    everyone = np.arange(n, dtype=np.int64)
    codes = [np.zeros(0, dtype=np.int64)]
    for part in _slices(x, everyone, n):
        rows = everyone[part]
        r, c = _top(x, rows, everyone, rows, k, positive=True)
        a, b = rows[r], c
        codes.append(np.minimum(a, b) * n + np.maximum(a, b))
    return np.unique(np.concatenate(codes))


def _nearest_in(x: Tfidf | np.ndarray | None, m: np.ndarray, k: int, n: int) -> np.ndarray:
    """Pairs of block `m` (row indices of `x`) where one is among the other's `k` nearest members by
    cosine (ties: the earlier member; `x` None: every cosine is 0), as codes a * n + b with a < b,
    computed a slice of members at a time."""
    codes = []
    where = np.arange(len(m), dtype=np.int64)
    for part in _slices(x, m, len(m)):
        at = where[part]
        r, c = _top(x, m[at], m, at, k, positive=False)
        a, b = m[at[r]], m[c]
        codes.append(np.minimum(a, b) * n + np.maximum(a, b))
    return np.concatenate(codes)


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

    __slots__ = ("name", "verb", "action", "rw", "object", "core", "words", "params", "required", "fields", "ops", "text_lower", "first")

    def __init__(self, tool: Tool, fold: Folder, prefix: set[str]):
        self.name = tool.name.lower()
        # the server's common prefix (`slack_`, `browser_`) says nothing about the tool, unless it is a verb
        words = [w for w in name_words(tool.name) if w not in prefix or _stem(w) in fold.verb]
        self.action, self.object = fold.action_object("_".join(words))
        self.verb = fold.verb_class("_".join(words))
        self.rw = fold.read_write(tool, self.action)
        if self.action is None and words:  # a verb the classes do not know (click, unresolve): itself
            self.action = "?" + words[0]
        # a batch of one is the same operation (read_multiple_files / read_file); qualifiers decorate
        # the object (get_incident_details / get_incident)
        self.words = {fold.word(w) for w in words if w not in fold.batch and w not in fold.qualifiers}
        self.core = {w for w in self.words if w not in fold.classes}
        props = tool.input_schema.get("properties") if isinstance(tool.input_schema, dict) else None
        props = props if isinstance(props, dict) else {}
        # parameter names folded to stemmed words (pullNumber = pull_number, paths = path)
        self.params = {"_".join(_stem(w) for w in name_words(p)) for p in props}
        required = tool.input_schema.get("required") if isinstance(tool.input_schema, dict) else None
        self.required = ({"_".join(_stem(w) for w in name_words(p)) for p in required if isinstance(p, str)}
                         if isinstance(required, list) else self.params)
        # what the tool can be told to act on: the words of its parameters' names (fields a write sets)
        # and of their enum values (`pull_request_read`'s method enum holds get_comments, get_status)
        enums = [v for spec in props.values() if isinstance(spec, dict) and isinstance(spec.get("enum"), list)
                 for v in spec["enum"] if isinstance(v, str)]
        self.fields = {fold.word(w) for p in props for w in name_words(p)}
        self.ops = {fold.word(w) for v in enums for w in name_words(v)}
        self.text_lower = (tool.description if isinstance(tool.description, str) else "").lower()
        self.first = first_sentence(self.text_lower)


_REPLACES = re.compile(r"\b(?:instead|prefer\w*|deprecated|replac\w*|supersed\w*)\b")


def _replaces(text: str, name: str) -> bool:
    """Whether a sentence of `text` names tool `name` and says one replaces the other."""
    return name in text and any(_REPLACES.search(s) and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", s)
                                for s in re.split(r"(?<=[.!?:])\s", text) if name in s)


def _covers(g: _Profile, s: _Profile, writes: bool, fold: Folder) -> float:
    """How far general tool `g` does what specific tool `s` does: 0 unless `g` can be told, by an enum
    value or (both writing) a parameter, to do all that `s`'s name says (`issue_write`, a write of any
    kind with a `state` parameter, and `update_issue_state`; `pull_request_review_write`, whose method
    enum holds resolve_thread, and `resolve_review_thread`), else the share of the parameters `s`
    requires that `g` takes."""
    if not (s.core & g.core) or s.core <= g.core:
        return 0.0
    need = s.words - {g.verb} - ({s.verb} if g.verb in fold.wildcards else set())
    if not need <= g.core | g.ops | (g.fields if writes else set()):
        return 0.0
    return len(s.required & g.params) / len(s.required) if s.required else 1.0


def pair_features(p: _Profile, q: _Profile, cosine: float, cross: bool, fold: Folder) -> dict[str, float] | None:
    """The features of a pair, or None when the pair can never be a duplicate: one reads and the other
    writes, or both their names' verbs and their actions differ (update vs delete, get vs list; but
    `get_active_alerts` lists, like `list_alerts`; a `write`/`manage` name stands for any write action)."""
    if p.rw and q.rw and p.rw != q.rw:
        return None
    writes = "write" in (p.rw, q.rw)
    if p.verb and q.verb and p.verb != q.verb and p.action != q.action \
            and not (writes and {p.verb, q.verb} & fold.wildcards):
        return None
    small, large = sorted((p.params, q.params), key=len)
    contain = len(small & large) / len(small) if small else 0.0
    short, long_ = sorted((p.core, q.core), key=len)
    return {"cosine": cosine, "object": float(p.object is not None and p.object == q.object),
            "contain": contain,  # the share of one tool's parameters the other also takes
            "special": max(_covers(p, q, writes, fold), _covers(q, p, writes, fold)),
            "same_name": float(bool(short) and short == long_),
            # one description says it replaces the other ("DEPRECATED: use read_text_file instead")
            "replaces": float(_replaces(p.text_lower, q.name) or _replaces(q.text_lower, p.name)),
            "action": float(p.action is not None and p.action == q.action), "cross": float(cross)}


def score(features: dict[str, float], weights: dict[str, float] = WEIGHTS) -> float:
    """Logistic duplicate score in 0..1 of a pair's features."""
    z = weights["bias"] + sum(weights[f] * features[f] for f in FEATURES)
    return 1.0 / (1.0 + math.exp(-z))


def scored_pairs(reg: Registry, config: dict | None = None, max_features: int = 50000,
                 k: int = NEIGHBOURS, model: str | None = None) -> Iterator[tuple[int, int, dict[str, float] | None]]:
    """Every candidate pair (a, b) of `reg.tools` with its features (None: never a duplicate): each
    tool's `k` nearest neighbours by TF-IDF cosine of folded name + first description sentence (with
    `model`, the embedding cosine of name words + first sentence instead), plus tools that share action
    and object, and tools of the same name: every pair of such a block of up to `k` + 1 tools, in a larger
    block each member's `k` nearest members (all pairs of a large block would make time quadratic).
    Yielded a slice at a time."""
    cfg = config or {}
    fold = Folder(cfg)
    tools = reg.tools
    n = len(tools)
    prefixes, brands = _prefixes(tools), _brands(tools)
    named: dict[str, set[str]] = {}  # per server, the words its descriptions use
    for t in tools:
        named.setdefault(t.server, set()).update(re.findall(r"\w+", (t.description or "").lower()
                                                            if isinstance(t.description, str) else ""))
    prof = [_Profile(t, fold, prefixes[t.server]) for t in tools]
    if model is not None:
        x = embeddings([" ".join(name_words(t.name)) + ". " + p.first for t, p in zip(tools, prof, strict=True)], model)
    else:
        x = tfidf([fold.text(t) for t in tools], max_features)
    codes = [neighbours(x, k)] if x is not None else []
    blocks: dict[tuple, list[int]] = {}
    for i, (t, p) in enumerate(zip(tools, prof, strict=True)):
        if p.action is not None and p.object is not None:
            blocks.setdefault(("ao", p.action, p.object), []).append(i)
        blocks.setdefault(("name", t.name), []).append(i)
    for m in blocks.values():
        if len(m) > k + 1:  # a large block: each member with its k nearest members (all pairs would be quadratic)
            codes.append(_nearest_in(x, np.asarray(m, dtype=np.int64), k, n))
        elif len(m) > 1:
            a, b = np.triu_indices(len(m), 1)
            codes.append(np.asarray(m, dtype=np.int64)[a] * n + np.asarray(m, dtype=np.int64)[b])
    if not codes:
        return
    codes = np.unique(np.concatenate(codes))
    for start in range(0, len(codes), _CHUNK):
        a_idx, b_idx = np.divmod(codes[start:start + _CHUNK], n)
        if x is None:
            cos = np.zeros(len(a_idx))
        elif isinstance(x, np.ndarray):  # dense embeddings
            cos = np.einsum("ij,ij->i", x[a_idx], x[b_idx])
        else:
            cos = x.cosines(a_idx, b_idx)
        for a, b, c in zip(a_idx.tolist(), b_idx.tolist(), cos.tolist(), strict=True):
            cross = tools[a].server != tools[b].server
            if cross and _other_system(tools[a].server, tools[b].server, brands, named, prof[a], prof[b]):
                yield a, b, None
            else:
                yield a, b, pair_features(prof[a], prof[b], min(c, 1.0), cross, fold)


def _other_system(sa: str, sb: str, brands: dict[str, set[str]], named: dict[str, set[str]],
                  p: _Profile, q: _Profile) -> bool:
    """Two tools act on different systems when their servers' descriptions name different products
    (GitHub vs GitLab), or when one tool names its server's product and the other server never names it
    (GitHub's `create_branch` vs the local git server's `git_create_branch`)."""
    ba, bb = brands[sa], brands[sb]
    if not (ba or bb):  # neither server names a product: nothing below can tell them apart
        return False
    if ba and bb and not ba & bb and not any(w.lower() in q.text_lower for w in ba) \
            and not any(w.lower() in p.text_lower for w in bb):
        return True
    return any(any(w.lower() in t.first for w in b) and not {w.lower() for w in b} & named[other]
               for t, b, other in ((p, ba, sb), (q, bb, sa)))


def similar_pairs(reg: Registry, *, threshold: float | None = None, method: str = "scored",
                  config: dict | None = None, max_features: int = 50000) -> pd.DataFrame:
    """Pairs of tools that look like near-duplicates, with a cluster id per group of tools all paired
    with each other (0: the pair's tools ended up in different clusters; see `_components`).

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
