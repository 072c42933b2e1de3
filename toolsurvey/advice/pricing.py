"""What the audit, the plan and the report share, so that they cannot disagree: the audit thresholds,
the merge estimate, which near-duplicate pairs a user may merge, the baseline scenario (today's cost),
how often each tool is visible under it, and the one price of a finding.

This module sits below `auditing`, `planning` and `reporting`; it imports none of them.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.assumptions import bundled_toml, read_toml
from ..core.registry import Registry, Tool
from ..errors import InputError

# Rules that price the same text of a tool: the description. Only one of them charges for it.
DESCRIPTION_RULES = ("description-missing", "description-short", "description-long",
                     "description-restates-name", "description-token-band")


# --- configuration ----------------------------------------------------------------------------


def load_config(override: dict | str | Path | None = None) -> dict:
    """The bundled thresholds (assumptions/audit.toml), with `override` (a dict or TOML file) merged in.

    Raises InputError for an unreadable override or a key the bundled file does not have.
    """
    cfg = bundled_toml("audit.toml")
    if override is None:
        return cfg
    if not isinstance(override, dict):
        override = read_toml(override, "audit config")
    for section, values in override.items():
        if section not in cfg or not isinstance(values, dict):
            raise InputError(f"unknown audit config section {section!r}; expected one of: {', '.join(cfg)}")
        unknown = set(values) - set(cfg[section])
        if unknown:
            raise InputError(f"unknown key(s) {', '.join(sorted(unknown))} in [{section}]; "
                             f"expected: {', '.join(cfg[section])}")
        cfg[section] = {**cfg[section], **values}
    return cfg


# --- merging ----------------------------------------------------------------------------------


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


def owned(own: str | Iterable[str] | None) -> frozenset[str] | None:
    """The servers the user owns, from a comma-separated string or a list (None: not said)."""
    if own is None:
        return None
    names = own.split(",") if isinstance(own, str) else list(own)
    out = frozenset(str(n).strip() for n in names if str(n).strip())
    if not out:
        raise InputError(f"own must name at least one server (comma-separated), found {own!r}")
    return out


def check_owned(own: frozenset[str] | None, reg: Registry) -> None:
    """Raises InputError when `own` names a server the registry does not have."""
    unknown = sorted(set(own or ()) - set(reg.servers))
    if unknown:
        raise InputError(f"own names server(s) {', '.join(unknown)} that the registry does not have; "
                         f"servers: {', '.join(reg.servers)}")


def can_merge(server_a: str, server_b: str, own: frozenset[str] | None) -> bool:
    """Whether the user can merge a tool of `server_a` with one of `server_b`: without `own`, only
    within one server; with `own`, among the servers named (within or across them)."""
    if own is None:
        return server_a == server_b
    return server_a in own and server_b in own


def access(tool: Tool, cfg: dict) -> str | None:
    """"read", "write" or None (cannot tell): the tool's readOnlyHint when given, else the first word of
    its name that is a read or a write verb (get_deploy_history reads; alerting_rules_write writes)."""
    from .similarity import name_words

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
    from .similarity import _components

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
    labels = np.asarray(_components(len(reg.tools), a, b,
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


# --- the baseline -----------------------------------------------------------------------------


def log_result_mean(usage: Any, reg: Registry | None) -> float | None:
    """The mean tool-result tokens of the log's calls to tools of `reg` (every call when `reg` is None,
    average-size mode); None when the log gives no sizes."""
    from ..inputs.usage import resolve

    calls = resolve(usage, reg)[0] if reg is not None else usage.calls.assign(known=True)
    sizes = calls.loc[calls["known"], "response_tokens"].dropna()
    return float(sizes.mean()) if len(sizes) else None


def baseline(reg: Registry | None, scenario: Any = None, usage: Any = None) -> Any:
    """Today's scenario: `scenario` (a Scenario, a scenario file, or None for the defaults) with, when a
    usage log is given (a Usage, a log path or records), the log's mean tool result in place of the
    scenario's. The report's headline, the plan's "before" and `simulate` on it are the same run.

    Raises InputError for a scenario or log that cannot be read.
    """
    from ..inputs.usage import Usage, load_usage
    from ..model.scenario import Scenario, load_scenario

    if isinstance(scenario, (str, os.PathLike)):
        scenario = load_scenario(scenario)
    sc = scenario or Scenario()
    if usage is None:
        return sc
    if not isinstance(usage, Usage):
        usage = load_usage(usage)
    mean = log_result_mean(usage, reg)
    return sc if mean is None else dataclasses.replace(sc, response_tokens=mean)


# --- how often each tool is visible -----------------------------------------------------------


@dataclass
class Visibility:
    """Per slot of a task (a phase, or the whole task), its share of the task's requests and each
    tool's chance of being visible in it; `share(*keys)` is the share of requests showing them all."""

    weights: np.ndarray
    member: dict[str, np.ndarray]
    strategy: str = "all"

    @classmethod
    def everything(cls, reg: Registry) -> Visibility:
        return cls(np.ones(1), {t.key: np.ones(1) for t in reg})

    def share(self, *keys: str) -> float:
        p = np.ones_like(self.weights)
        for k in keys:
            p = p * self.member.get(k, np.zeros_like(self.weights))
        return float((self.weights * p).sum())


def visibility(reg: Registry, run: Any = None) -> Visibility:
    """How often each tool of `reg` is visible in `run` (a simulation Run of `reg`): by the run's own
    per-request phases and weights. Without a run every tool is visible on every request."""
    if run is None or not len(reg):
        return Visibility.everything(reg)
    from ..model.strategies import ToolTable, core_tools, matching, phase_tools

    sc = run.scenario
    keys = [t.key for t in reg]
    # which tools a phase, core or fixed set matches: names and tags only, so nothing is measured
    table = ToolTable(names=[t.name for t in reg], keys=keys, servers=[t.server for t in reg],
                      tags=[dict(t.tags) for t in reg], tokens=np.zeros(len(keys)))
    n = len(keys)
    if sc.strategy == "phases":
        st = run.steps
        w = st.groupby("phase", sort=False)["weight"].sum()
        phases = [p for p in sc.phase_list() if p.name in w.index]
        weights = np.array([w[p.name] for p in phases]) / float(w.sum())
        inside = np.zeros((n, len(phases)))
        for j, p in enumerate(phases):
            idx = phase_tools(table, p)
            inside[(idx if sc.visible is None else idx[:sc.visible]), j] = 1.0
    else:
        every = np.arange(n)
        if sc.strategy == "all":
            idx = every if sc.visible is None else every[:sc.visible]
            p = np.isin(every, idx).astype(float)
        elif sc.strategy == "fixed":
            idx = matching(table, sc.tools) if sc.tools else every
            p = np.isin(every, idx if sc.visible is None else idx[:sc.visible]).astype(float)
        else:  # retrieval and tool search: the core always, any other tool by its share of the picks
            core = core_tools(table, sc)
            pool = n - len(core)
            shown = float(run.summary["mean_visible"]) - len(core) - (sc.strategy == "tool_search")
            p = np.full(n, min(1.0, max(shown, 0.0) / pool) if pool else 0.0)
            p[core] = 1.0
        weights, inside = np.ones(1), p[:, None]
    return Visibility(weights, {k: inside[i] for i, k in enumerate(keys)}, sc.strategy)


# --- the price of a finding -------------------------------------------------------------------


def price_findings(findings: pd.DataFrame, vis: Visibility | None = None) -> pd.Series:
    """Tokens per request each finding's fix saves (negative: costs), counted once and weighted by how
    often its tool is visible (`vis`; None: every tool on every request).

    One finding charges per text: of the description rules on one tool only the first listed charges;
    of the pairs of one near-duplicate cluster only the first (its `tokens` is the cluster's merge).
    """
    if findings.empty:
        return pd.Series([], index=findings.index, dtype=float, name="tokens_per_request")
    key = findings["server"] + "/" + findings["tool"]
    rule = findings["rule"].astype(object)
    own = rule + "\x00" + pd.Series(np.arange(len(rule)).astype(str), index=findings.index, dtype=object)
    subject = key.astype(object) + "\x00" + own.where(~rule.isin(DESCRIPTION_RULES), "description")
    if "group" in findings:
        grouped = findings["group"].notna() & (findings["rule"] == "overlap")
        subject[grouped] = "overlap\x00" + findings.loc[grouped, "group"].astype(str)
    charged = ~subject.duplicated()
    tokens = findings["tokens"].astype(float).where(charged, 0.0)
    if vis is not None:
        # a merge saves only on the requests that show every member of its cluster
        members: dict = {}
        if "other" in findings and "group" in findings:
            for g, k, o in zip(findings["group"], key, findings["other"], strict=True):
                if pd.notna(g) and isinstance(o, str):
                    members.setdefault(int(g), set()).update((k, o))
        groups = findings["group"] if "group" in findings else pd.Series([None] * len(key), index=findings.index)
        share = [vis.share(k, *members.get(int(g), ())) if r == "overlap" and pd.notna(g) else vis.share(k)
                 for k, r, g in zip(key, findings["rule"], groups, strict=True)]
        tokens = tokens * np.asarray(share, dtype=float)
    return tokens.rename("tokens_per_request")
