"""Merging near-duplicates: the merged definition whose tokens the audit and the plan estimate, which
pairs a user may merge, the clusters to merge, and what a merge saves per request."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from ..core.registry import Registry, Tool
from ..errors import InputError
from .ownership import can_merge
from .similarity.folding import name_words
from .similarity.pairs import components
from .visibility import Visibility


def merge_tools(tools: list[Tool], name: str | None = None) -> Tool:
    """One tool standing for `tools`: the longest description, the union of their parameters (the
    first definition of a name wins), and only the parameters every tool requires as required.

    This is the merged definition whose tokens the plan and the audit estimate; a real merge is
    written by a person, so the estimate is a floor that keeps every parameter the model needs.
    """
    if not tools:
        raise InputError("nothing to merge: expected at least one tool")
    base = max(tools, key=lambda t: (len(t.description or ""), -tools.index(t)))
    props: dict = {}
    required: set | None = None
    for t in tools:
        s = t.input_schema if isinstance(t.input_schema, dict) else {}
        for k, v in (s.get("properties") or {}).items():
            props.setdefault(k, v)
        req = {r for r in s.get("required") or [] if isinstance(r, str)}
        required = req if required is None else required & req
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = [k for k in props if k in required]
    if all(isinstance(t.input_schema, dict) and t.input_schema.get("additionalProperties") is False
           for t in tools):
        schema["additionalProperties"] = False
    return replace(base, name=name or base.name, input_schema=schema, raw=None)


def access(tool: Tool, cfg: dict) -> str | None:
    """"read", "write" or None (cannot tell): the tool's readOnlyHint when given, else the first word of
    its name that is a read or a write verb (get_deploy_history reads; alerting_rules_write writes)."""
    ann = tool.annotations if isinstance(tool.annotations, dict) else {}
    if isinstance(ann.get("readOnlyHint"), bool):
        return "read" if ann["readOnlyHint"] else "write"
    read, write = set(cfg["access"]["read"]), set(cfg["access"]["write"])
    for w in name_words(tool.name):
        w = w.lower()
        if w in write or w in read:
            return "write" if w in write else "read"
    return None


def split_pairs(pairs: pd.DataFrame, reg: Registry, cfg: dict,
                own: frozenset[str] | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`similarity.similar_pairs` rows split into pairs the user can merge (re-clustered among
    themselves) and pairs they cannot (`can_merge`); read/write pairs are dropped from both
    (docs/audit.md: read and write tools are never paired)."""
    index = {(t.server, t.name): i for i, t in enumerate(reg)}
    kind = [access(t, cfg) for t in reg]  # once per tool, however many pairs it is in
    ends = [np.array([index[k] for k in zip(pairs[f"server_{e}"].tolist(), pairs[f"tool_{e}"].tolist(), strict=True)],
                     dtype=np.int64) for e in "ab"]
    same = np.array([kind[a] is None or kind[b] is None or kind[a] == kind[b]
                     for a, b in zip(ends[0].tolist(), ends[1].tolist(), strict=True)], dtype=bool)
    ok = same & np.array([can_merge(a, b, own) for a, b in zip(pairs["server_a"].tolist(), pairs["server_b"].tolist(),
                                                              strict=True)], dtype=bool)
    mergeable, other = pairs[ok].reset_index(drop=True), pairs[same & ~ok].reset_index(drop=True)
    # clusters again among the mergeable pairs only, so a pair the user cannot merge joins nothing
    a, b = np.minimum(ends[0][ok], ends[1][ok]), np.maximum(ends[0][ok], ends[1][ok])
    labels = np.asarray(components(len(reg.tools), a, b,
                                    (mergeable["basis"] == "same action and object").to_numpy(dtype=bool),
                                    mergeable["score"].to_numpy(dtype=float)), dtype=np.int64)
    cluster = np.where(labels[a] == labels[b], labels[a], 0) if len(a) else np.zeros(0, dtype=np.int64)
    mergeable = mergeable.assign(cluster=pd.array(cluster, dtype="int64"))
    other = other.assign(cluster=pd.array([0] * len(other), dtype="int64"))
    return mergeable, other


def merge_groups(mergeable: pd.DataFrame) -> tuple[list[list[str]], list[list[str]]]:
    """The clusters of a `split_pairs` mergeable table as tool keys: those to merge (every pair shares
    action and object) and those joined only by similar wording (clarify their descriptions instead)."""
    merge, clarify = [], []
    for _, grp in mergeable[mergeable["cluster"] > 0].groupby("cluster", sort=True):
        keys = list(dict.fromkeys([f"{s}/{t}" for s, t in zip(grp["server_a"], grp["tool_a"], strict=True)]
                                  + [f"{s}/{t}" for s, t in zip(grp["server_b"], grp["tool_b"], strict=True)]))
        (merge if (grp["basis"] == "same action and object").all() else clarify).append(keys)
    return merge, clarify


def merge_saving(tools: list[Tool], tokens_of, vis: Visibility | None = None, name: str | None = None) -> float:
    """Tokens per request saved by merging `tools` (the first survives, under `name`): their tokens
    minus the merged tool's, on the requests where all of them are visible (`vis`; None: every request).
    `tokens_of(tool)` measures one tool."""
    merged = merge_tools(tools, name=name or tools[0].name)
    saving = sum(tokens_of(t) for t in tools) - tokens_of(replace(merged, server=tools[0].server))
    return saving * (vis.share(*(t.key for t in tools)) if vis is not None else 1.0)
