"""Measure a Registry: exact tokens per tool and per part, under a named rendering."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.frames import ViewableFrame
from ..core.registry import Registry
from ..errors import InputError
from .parts import PARTS, TEXT_COLUMNS, footprint_columns


class Footprint(ViewableFrame):
    """The table `toolsurvey.footprint` returns: one row per tool, instructions and overhead."""

    view_name = "footprint"


def footprint(reg: Registry, *, encoding: str | None = None, render: str = "json",
              model: str | None = None, tool_choice: str = "auto", parts: bool = True) -> pd.DataFrame:
    """One row per tool with its tokens by part, plus rows for server instructions and the
    per-request overhead, so that `table.tokens.sum()` is the tokens one request carries.

    `parts=False` skips the part breakdown (faster): tool rows then carry only `tokens`.
    Raises InputError for an unknown rendering, encoding or model.
    """
    columns, attrs = footprint_columns(reg, encoding=encoding, render=render, model=model,
                                       tool_choice=tool_choice, parts=parts)
    table = pd.DataFrame({c: v if c in TEXT_COLUMNS else np.array(v, dtype=np.int64) for c, v in columns.items()})
    table.attrs.update(attrs)
    return Footprint.of(table)


def tools_only(table: pd.DataFrame) -> pd.DataFrame:
    """The per-tool rows of a footprint table."""
    return table[table["kind"] == "tool"]


def request_total(table: pd.DataFrame) -> int:
    """Tokens one request carries for the whole tool surface (tools, instructions, overhead)."""
    return int(table["tokens"].sum())


def by_server(table: pd.DataFrame) -> pd.DataFrame:
    """Per server: tools, tokens (with instructions), share of the request, median and p90 per tool."""
    t = table[table["kind"] != "overhead"]
    tools = tools_only(table).groupby("server", sort=False)["tokens"]
    out = pd.DataFrame({
        "tools": tools.size(),
        "tokens": t.groupby("server", sort=False)["tokens"].sum(),
        "median": tools.median(),
        "p90": tools.quantile(0.9),
    }).fillna(0)
    out["tools"] = out["tools"].astype("int64")
    total = request_total(table)
    out["share"] = out["tokens"] / total if total else 0.0
    out = out.sort_values("tokens", ascending=False)
    out.index.name = "server"
    return out.reset_index()[["server", "tools", "tokens", "share", "median", "p90"]]


def by_part(table: pd.DataFrame) -> pd.DataFrame:
    """Tokens per part across the request, with their share; raises InputError for a totals-only table."""
    if table.attrs.get("parts") is False:
        raise InputError("this footprint was measured with parts=False; measure with parts=True for parts")
    sums = table[list(PARTS)].sum()
    total = int(sums.sum())
    out = pd.DataFrame({"part": sums.index, "tokens": sums.values.astype("int64")})
    out["share"] = out["tokens"] / total if total else 0.0
    return out[out["tokens"] != 0].reset_index(drop=True)
