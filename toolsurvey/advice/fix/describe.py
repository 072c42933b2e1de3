"""The review file for descriptions: descriptions are never rewritten automatically. Each tool of an
owned server that the audit flags gets the five elements of “Tool registry design” in order (what it
does, what it returns, when to use it, what it does not do with the neighbour named, constraints),
the neighbour filled in from the near-duplicate finding and the rest left for a person to write."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from ...core.registry import Registry

DESCRIPTION_RULES = ("description-missing", "description-short", "description-long", "description-restates-name",
                     "description-token-band")
NEIGHBOUR_RULES = ("overlap", "overlap-across-servers")
ELEMENTS = ("What it does", "What it returns", "When to use it", "What it does not do", "Constraints")
TODO = "(to write)"


@dataclass
class Review:
    """One flagged tool: why, its description today, and the five elements, filled where known."""

    key: str
    description: str
    findings: list[str]
    neighbours: list[str] = field(default_factory=list)
    elements: dict[str, str] = field(default_factory=dict)


def reviews(reg: Registry, findings: pd.DataFrame, own: frozenset[str]) -> list[Review]:
    """One Review per tool of an owned server with a description or near-duplicate finding, in the
    order of the registry."""
    mine = findings[findings["server"].isin(own) & findings["rule"].isin(DESCRIPTION_RULES + NEIGHBOUR_RULES)]
    out = []
    for tool in reg:
        rows = mine[(mine["server"] == tool.server) & (mine["tool"] == tool.name)]
        back = mine[mine["other"] == tool.key]  # pairs reported on the other tool
        if rows.empty and back.empty:
            continue
        neighbours = list(dict.fromkeys([*(o for o in rows["other"].dropna() if o),
                                         *(f"{x.server}/{x.tool}" for x in back.itertuples())]))
        said = [f"{x.rule}: {x.evidence}" for x in rows.itertuples()]
        said += [f"{x.rule}: near-duplicate of {x.server}/{x.tool}" for x in back.itertuples()]
        r = Review(tool.key, tool.description or "", said, neighbours)
        r.elements = {e: TODO for e in ELEMENTS}
        if neighbours:
            r.elements["What it does not do"] = (f"Does NOT {TODO}; for that, use "
                                                 + " or ".join(n.split("/", 1)[1] if n.startswith(tool.server + "/")
                                                               else n for n in neighbours) + ".")
        out.append(r)
    return out
