"""The features of a candidate pair of tools (name, schema and wording) and the fitted duplicate score;
the candidate pairs of a registry with their features."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

import numpy as np

from ...core.registry import Registry, Tool
from .folding import Folder, first_sentence, name_words, stem
from .neighbours import NEIGHBOURS, embeddings, nearest_in, neighbours, tfidf

# Weights of the "scored" method's duplicate score (logistic regression over the pair features below,
# every weight >= 0), fitted by `bench/similarity_eval.py --fit` on the `tune` half of
# tests/data/similarity_pairs.csv only.
WEIGHTS = {"bias": -5.51, "cosine": 2.18, "object": 0.65, "contain": 1.31, "special": 4.62, "same_name": 3.67,
           "cross": 1.3, "replaces": 2.32}
FEATURES = ["cosine", "object", "contain", "special", "same_name", "cross", "replaces"]
_CHUNK = 20000  # candidate pairs scored at once


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
        words = [w for w in name_words(tool.name) if w not in prefix or stem(w) in fold.verb]
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
        self.params = {"_".join(stem(w) for w in name_words(p)) for p in props}
        required = tool.input_schema.get("required") if isinstance(tool.input_schema, dict) else None
        self.required = ({"_".join(stem(w) for w in name_words(p)) for p in required if isinstance(p, str)}
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
            codes.append(nearest_in(x, np.asarray(m, dtype=np.int64), k, n))
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

