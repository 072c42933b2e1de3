"""Charts of what a search finds and what that does to cost: hit@k against k by method, cost per
completed task against the tools loaded per search, and deferred against all-visible per provider."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go


def hit_by_k(curve: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """hit@k (a needed tool in the top k) against k, one line per method (`hit_curve`)."""
    fig = go.Figure()
    for method, g in curve.groupby("method", sort=False):
        fig.add_trace(go.Scatter(x=g["k"], y=g["hit_at_k"], name=str(method), mode="lines+markers",
                                 hovertemplate="top %{x}: %{y:.0%}<extra>" + str(method) + "</extra>"))
    fig.update_layout(title=title or "How often a search finds a needed tool in its top k",
                      xaxis_title="k (tools a search returns)", yaxis_title="hit@k", yaxis_tickformat=".0%",
                      yaxis_range=[0, 1.02])
    return fig


def cost_by_k(costs: pd.DataFrame, *, baseline: float | None = None, title: str | None = None) -> go.Figure:
    """Cost per completed task against the tools loaded per search (`cost_by_search_k`), with today's
    cost as a line when given."""
    measured = bool(costs["measured"].all()) if len(costs) else False
    fig = go.Figure(go.Scatter(x=costs["k"], y=costs["cost_per_completed_task"], mode="lines+markers",
                               name="deferred", customdata=costs["hit_at_k"],
                               hovertemplate="k %{x}: $%{y:.4f} at hit@k %{customdata:.0%}<extra></extra>"))
    if baseline is not None:
        fig.add_hline(y=baseline, line_dash="dash", annotation_text="today")
    fig.update_layout(title=title or ("Cost per completed task against k, at the measured hit@k" if measured
                                      else "Cost per completed task against k, assuming every search finds the tool"),
                      xaxis_title="tools loaded per search (k)", yaxis_title="cost per completed task (USD)",
                      yaxis_tickprefix="$")
    return fig


def deferred_vs_visible(table: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Cost per completed task with every tool visible and with every tool deferred, per provider search."""
    fig = go.Figure()
    for strategy, g in table.groupby("strategy", sort=False):
        fig.add_trace(go.Bar(x=g["search"] + " (" + g["model"] + ")", y=g["cost_per_completed_task"],
                             name=str(strategy), hovertemplate="%{x}: $%{y:.4f}<extra>" + str(strategy) + "</extra>"))
    fig.update_layout(title=title or "Every tool visible against every tool deferred, per provider's search",
                      barmode="group", yaxis_title="cost per completed task (USD)", yaxis_tickprefix="$")
    return fig
