"""Overlap rules: near-duplicate tools, those the user can merge and those on servers they cannot."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterator

import pandas as pd

from ...core.registry import Registry, Tool
from ...measuring.tool_tokens import tool_tokens
from ..merging import access, merge_groups, merge_saving, split_pairs
from ..ownership import can_merge
from ..similarity.pairs import similar_pairs
from .rule import Hit, short


def _identical_descriptions(reg: Registry, cfg: dict) -> list[list[Tool]]:
    """Groups of two or more tools of one server, all reading or all writing, whose (non-empty)
    descriptions are exactly the same."""
    groups: dict[tuple, list[Tool]] = {}
    for t in reg:  # only on servers the user may merge within; the others go through the pair search
        if (t.description or "").strip() and can_merge(t.server, t.server, cfg.get("_own")):
            groups.setdefault((t.server, t.description, access(t, cfg)), []).append(t)
    return [g for g in groups.values() if len(g) > 1]


def _pairs(reg: Registry, cfg: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Near-duplicate pairs the user can merge and pairs across servers they cannot (computed once per audit)."""
    memo = cfg.setdefault("_memo", {})
    if "pairs" not in memo:
        c = cfg["similarity"]
        twins = {t.key for g in _identical_descriptions(reg, cfg) for t in g[1:]}
        pairs = similar_pairs(reg.filter(lambda t: t.key not in twins), threshold=c["threshold"],
                              method=c["method"], config=c, max_features=c["max_features"])
        memo["pairs"] = split_pairs(pairs, reg, cfg, cfg.get("_own"))
    return memo["pairs"]


def _tuples(df: pd.DataFrame) -> Iterator[tuple]:
    """`df.itertuples(index=False)`, from plain lists: iterating pandas' string columns an element at a
    time costs more than the audit's own work on a pair."""
    row = namedtuple("row", df.columns)
    return map(row._make, zip(*(df[c].tolist() for c in df.columns), strict=True))


def _why(r, threshold: float) -> str:
    return (f"similarity {r.score:.2f} >= {threshold}" if r.basis == "similar description"
            else f"same action and object (similarity {r.score:.2f})")


def check_overlap(reg: Registry, cfg: dict, encoding: str):
    """Near-duplicates the user can merge. A cluster the plan merges carries the merge's saving once, on
    its first pair; other pairs carry 0 (their fix is a clearer description, not fewer tokens)."""
    # Tools of one server sharing one description are one finding per group, not n(n-1)/2 pairs
    # (1,000 copies would be 499,500 findings claiming many times the registry); the pair search
    # sees one tool of each group.
    for g in _identical_descriptions(reg, cfg):
        saving = merge_saving(g, lambda t: tool_tokens(t, encoding))
        names = ", ".join(t.name for t in g[1:6]) + (" …" if len(g) > 6 else "")
        yield Hit(f"{len(g)} tools share one description ({short(g[0].description, 60)}): "
                  f"{g[0].name} and {names}", round(saving), tool=g[0],
                  fix="merge them into one tool, or say in each description what it does that the others do not")
    mergeable, _ = _pairs(reg, cfg)
    if mergeable.empty:
        return
    by_key = {t.key: t for t in reg}
    merge, _ = merge_groups(mergeable)
    cluster_of = {k: i for i, keys in enumerate(merge) for k in keys}
    saving = [merge_saving([by_key[k] for k in keys], lambda t: tool_tokens(t, encoding)) for keys in merge]
    charged: set[int] = set()
    for r in _tuples(mergeable):
        a, b = by_key[f"{r.server_a}/{r.tool_a}"], by_key[f"{r.server_b}/{r.tool_b}"]
        c = cluster_of.get(a.key, -1)
        merged = c >= 0 and c == cluster_of.get(b.key)
        tokens = round(saving[c]) if merged and c not in charged else 0
        charged.add(c)
        where = f", cluster {r.cluster}" if r.cluster else ""
        fix = (f"merge {r.tool_a} and {r.tool_b} into one tool" if merged else
               f"add a 'does NOT …, use …' clause to {r.tool_a} and {r.tool_b}, each naming the other")
        yield Hit(f"{r.tool_a} and {r.server_b}/{r.tool_b}: {_why(r, cfg['similarity']['threshold'])}{where}",
                  tokens, tool=a, group=int(r.cluster) or None, fix=fix, other=b.key)


def check_overlap_across_servers(reg: Registry, cfg: dict, encoding: str):
    """Near-duplicates the user cannot merge (across servers, or on a server not in `own`): a merge is
    not theirs to make."""
    _, across = _pairs(reg, cfg)
    by_key = {t.key: t for t in reg}
    for r in _tuples(across):
        a, b = by_key[f"{r.server_a}/{r.tool_a}"], by_key[f"{r.server_b}/{r.tool_b}"]
        fix = (f"namespace them ({a.server}_{a.name}, {b.server}_{b.name}), drop one of {a.server} and "
               f"{b.server}, or gate them by phase so a request sees only one" if a.server != b.server else
               f"{a.server} is not among the servers you own: ask its maintainers to merge them, or gate them "
               "by phase so a request sees only one")
        yield Hit(f"{r.tool_a} and {r.server_b}/{r.tool_b}: {_why(r, cfg['similarity']['threshold'])}",
                  tool=a, other=b.key, fix=fix)
