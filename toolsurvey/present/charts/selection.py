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


def description_measured(de, *, title: str | None = None) -> go.Figure:
    """A description-length sweep's measured points (`DescriptionEval.by_description()`): the wrong-call
    rate and the accuracy against the mean description tokens shown, each with its Wilson 95% interval."""
    rows = [r for r in de.by_description() if r["mean_description_tokens"] is not None]
    fig = go.Figure()
    for key, name in (("wrong_call_rate", "wrong-call rate"), ("accuracy", "accuracy")):
        pts = [r for r in rows if r[key]["rate"] is not None]
        x = [r["mean_description_tokens"] for r in pts]
        y = [100 * r[key]["rate"] for r in pts]
        fig.add_trace(go.Scatter(
            x=x, y=y, name=name, mode="lines+markers",
            error_y=dict(type="data", symmetric=False, array=[100 * r[key]["high"] - v for r, v in zip(pts, y, strict=True)],
                         arrayminus=[v - 100 * r[key]["low"] for r, v in zip(pts, y, strict=True)]),
            text=[f"{r['description_tokens']}: {r[key]['count']} of {r[key]['of']}" for r in pts],
            hovertemplate="%{text}<br>%{x:.1f} tokens → %{y:.1f}%<extra></extra>"))
    fig.update_layout(title=title or f"Measured: {safe_text([de.eval.model])[0]} against description length "
                                     "(95% intervals)",
                      xaxis_title=f"mean description tokens shown ({de.encoding})", yaxis_title="%",
                      legend=dict(orientation="h", y=-0.25))
    return fig
