"""Labels from third-party text, as plotly shows them: escaped so they stay literal, and cut to a width."""

from __future__ import annotations

import html
from typing import Any

import pandas as pd

LABEL_CHARS = 80  # a longer name is cut in a chart's axis or tile label; its hover text keeps it whole


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
