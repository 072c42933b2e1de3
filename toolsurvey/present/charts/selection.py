"""The confusion heatmap of a selection eval: expected tools (rows, "none" last) against the tools
called (columns, then "none" and "invalid"), each cell the number of answers. Tool names
(third-party text) have control characters escaped and are HTML-escaped, as plotly renders some tags in labels."""

from __future__ import annotations

import plotly.graph_objects as go

from ..markdown import visible
from .labels import safe_text


def confusion_heatmap(ev, *, title: str | None = None) -> go.Figure:
    """A heatmap of `ev.confusion()`."""
    c = ev.confusion()
    cols, rows = safe_text(map(visible, c["columns"])), safe_text(map(visible, c["rows"]))
    fig = go.Figure(go.Heatmap(z=c["counts"], x=cols, y=rows, colorscale="Blues", text=c["counts"],
                               texttemplate="%{text}", hovertemplate="expected %{y}<br>called %{x}: %{z}<extra></extra>"))
    fig.update_layout(title=title or f"Which tool {safe_text([ev.model])[0]} called, for the tool each query needs",
                      xaxis_title="called", yaxis_title="expected", yaxis_autorange="reversed",
                      height=max(360, 28 * len(rows) + 160))
    return fig
