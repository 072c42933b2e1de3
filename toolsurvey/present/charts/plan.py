"""Charts of a consolidation plan: before and after, and each stage's simulated figure or saving."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from ..units import money
from .labels import safe_text


def plan_before_after(table: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Small multiples of the plan's before/after table (`Plan.table`): one panel per metric with its unit."""
    from plotly.subplots import make_subplots

    rows = table.dropna(subset=["before", "after"])
    scale = {"share": 100}
    unit = {"share": "%", "USD": "USD"}
    n, cols = len(rows), 4
    fig = make_subplots(rows=max(1, -(-n // cols)), cols=cols, vertical_spacing=0.12,
                        subplot_titles=[f"{m} ({unit.get(u, u)})" for m, u in zip(rows["metric"], rows["unit"], strict=True)])
    for i, r in enumerate(rows.itertuples()):
        k = scale.get(r.unit, 1)
        fig.add_trace(go.Bar(x=["before", "after"], y=[r.before * k, r.after * k], showlegend=False,
                             marker_color=["#8c8c8c", "#00cc96"],
                             hovertemplate=f"%{{x}}: %{{y:,.4g}} {unit.get(r.unit, r.unit)}<extra>{r.metric}</extra>"),
                      row=i // cols + 1, col=i % cols + 1)
    fig.update_annotations(font_size=11)
    fig.update_layout(title=title or "Consolidation plan: before and after", height=250 * max(1, -(-n // cols)))
    return fig


def plan_stages(stages: pd.DataFrame, *, y: str = "cost_per_completed_task", title: str | None = None) -> go.Figure:
    """Bars of one simulated figure after each stage of the plan (`Plan.stages`)."""
    labels = {"cost_per_completed_task": "cost per completed task (USD)",
              "tool_tokens_per_request": "tool tokens per request", "cost_per_task": "cost per task (USD)"}
    fig = go.Figure(go.Bar(x=safe_text(stages["stage"]), y=stages[y], text=stages[y].map(lambda v: f"{v:,.4g}"),
                           hovertemplate="%{x}: %{y:,.4g}<extra></extra>"))
    fig.update_layout(title=title or f"Plan stages: {labels.get(y, y)} after each group of actions",
                      xaxis_title="stage", yaxis_title=labels.get(y, y))
    return fig


def plan_waterfall(stages: pd.DataFrame, *, y: str = "cost_per_month_usd", labels: dict | None = None,
                   total: str = "after the plan", title: str | None = None) -> go.Figure:
    """The plan as a waterfall (USD): today's figure, each stage's change, and the result
    (`Plan.stages` with a cost column `y`, in stage order, the first row today)."""
    labels = labels or {}
    values = stages[y].astype(float).tolist()
    names = [labels.get(s, s) for s in stages["stage"]] + [total]
    steps = [values[0]] + [b - a for a, b in zip(values, values[1:], strict=False)] + [values[-1]]
    measure = ["absolute"] + ["relative"] * (len(values) - 1) + ["total"]
    fig = go.Figure(go.Waterfall(x=names, y=steps, measure=measure,
                                 text=[("+" if m == "relative" and v > 0 else "") + money(v)
                                       for v, m in zip(steps, measure, strict=True)],
                                 textposition="outside", connector_line_color="#9aa3af",
                                 decreasing_marker_color="#2ca02c", increasing_marker_color="#d62728",
                                 totals_marker_color="#3b6fd4",
                                 hovertemplate="%{x}: $%{y:,.0f}<extra></extra>"))
    fig.update_layout(title=title or "The plan, stage by stage: cost per month (USD)", showlegend=False,
                      yaxis_title="cost per month (USD)", yaxis_tickprefix="$", yaxis_tickformat=",.0f",
                      xaxis_title="stage of the plan", height=420)
    return fig
