"""The one price of a finding, shared by the audit, the plan and the report so that they cannot disagree:
the tokens per request its fix saves, each text charged once, weighted by how often its tool is visible."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .visibility import Visibility

# Rules that price the same text of a tool: the description. Only one of them charges for it.
DESCRIPTION_RULES = ("description-missing", "description-short", "description-long",
                     "description-restates-name", "description-token-band")

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
