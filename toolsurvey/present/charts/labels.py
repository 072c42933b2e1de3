"""Labels from third-party text, as plotly shows them: escaped so they stay literal, and cut to a width."""

from __future__ import annotations

import html
from pathlib import PurePath
from typing import Any

import pandas as pd

LABEL_CHARS = 80  # a longer name is cut in a chart's axis or tile label; its hover text keeps it whole
CHART_HEIGHT = 450  # px: a chart whose axis labels could take room keeps at least this plot height
SHORT_CHARS = 28  # a category label (a result's file, a step) on an axis of many


def safe_text(values, limit: int | None = None) -> list[str]:
    """Third-party text as plotly shows it, literally: HTML-escaped (plotly renders <a href>,
    <span style> and <br> in labels, hover text and titles), cut to `limit` characters if given."""
    out = []
    for v in values:
        s = str(v)
        out.append(html.escape(s[: limit - 1] + "…" if limit and len(s) > limit else s, quote=False))
    return out


def short_ticks(fig: Any, axis: str, labels: list[str]) -> None:
    """Show `labels` (already escaped) cut to LABEL_CHARS on `axis`, keeping the full ones as categories."""
    shown = [html.escape(s[: LABEL_CHARS - 1] + "…", quote=False) if len(s) > LABEL_CHARS else html.escape(s, quote=False)
             for s in map(html.unescape, labels)]
    getattr(fig, f"update_{axis}axes")(tickmode="array", tickvals=labels, ticktext=shown)


def tool_label(table: pd.DataFrame) -> pd.Series:
    """`server/tool` for every row, the label the charts show for a tool."""
    return table["server"].astype(str) + "/" + table["tool"].astype(str)


def short_names(values: list[str]) -> list[str]:
    """Labels short enough for an axis of many: a path's file name (with its folder where two share a
    name), cut to SHORT_CHARS characters; the same labels stay distinct."""
    names = [PurePath(v).stem if ("/" in v or "\\" in v) else v for v in values]
    if len(set(names)) < len(set(values)):
        names = ["/".join(PurePath(v).parts[-2:]) for v in values]
    cut = [n if len(n) <= SHORT_CHARS else n[:SHORT_CHARS - 1] + "…" for n in names]
    return cut if len(set(cut)) == len(set(values)) else [f"{i + 1}. {c}" for i, c in enumerate(cut)]
