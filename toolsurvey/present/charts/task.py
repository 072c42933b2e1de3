"""Charts of the requests of one simulated task: where each request's input tokens go, and their cache state."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

# Request components of the simulation's per-step table, bottom to top.
STEP_COMPONENTS = ("overhead", "tools", "system", "user", "history")
CACHE_STATES = (("uncached", "uncached input"), ("cache_write", "cache write"), ("cache_read", "cache read"))


def step_traces(steps: pd.DataFrame) -> list[tuple[str, str, str, int]]:
    """(column, trace name, stack group, subplot row) of each trace `step_area` draws for `steps`."""
    comps = [(c, c, "component", 1) for c in STEP_COMPONENTS if c in steps and steps[c].sum() > 0]
    return comps + [(col, label, "cache", 2) for col, label in CACHE_STATES]


def step_area(steps: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Input tokens of each request of a task (a simulation's `run.steps`): stacked by component
    (overhead, tools, system, user, history) on top, and by cache state underneath."""
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=("input tokens by component", "input tokens by cache state"))
    x = steps["request"]
    for col, name, group, row in step_traces(steps):
        fig.add_trace(go.Scatter(x=x, y=steps[col], name=name, stackgroup=group, legendgroup=group,
                                 legendgrouptitle_text=group,
                                 hovertemplate=f"request %{{x}}: %{{y:,.0f}}<extra>{name}</extra>"), row=row, col=1)
    fig.update_xaxes(title_text="request within the task", row=2, col=1)
    fig.update_yaxes(title_text="input tokens", row=1, col=1)
    fig.update_yaxes(title_text="input tokens", row=2, col=1)
    fig.update_layout(title=title or "Input tokens per request across a task, cached and uncached", height=600)
    return fig


STEP_LABELS = {"tools": "tool definitions", "history": "tool calls and results so far",
               "system": "system prompt", "user": "user message", "overhead": "provider overhead"}


def request_tokens(steps: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Where each request's input tokens go (a simulation's `run.steps`), stacked bars per request."""
    fig = go.Figure()
    for comp in ("tools", "history", "system", "user", "overhead"):
        if comp in steps and steps[comp].sum() > 0:
            label = STEP_LABELS[comp]
            fig.add_trace(go.Bar(x=steps["request"], y=steps[comp], name=label,
                                 hovertemplate=f"request %{{x}}: %{{y:,.0f}} tokens<extra>{label}</extra>"))
    fig.update_layout(barmode="stack", title=title or "Where each request's input tokens go, across one task",
                      xaxis_title="request within the task", yaxis_title="input tokens per request",
                      xaxis_dtick=1, yaxis_tickformat=",.0f", height=420,
                      legend=dict(orientation="h", y=-0.22, traceorder="normal"))  # bottom of the stack first
    return fig
