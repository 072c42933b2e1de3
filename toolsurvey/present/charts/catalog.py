"""Charts of what descriptions and catalog size cost: description lengths, and simulated sweeps over
description tokens, visible tools and steps."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from .labels import safe_text, tool_label


def description_lengths(table: pd.DataFrame, *, band: tuple[float, float] | None = (50, 150),
                        target: float | None = None, title: str | None = None) -> go.Figure:
    """Histogram of description tokens per tool, with the recommended band shaded and a target line."""
    tools = table[table["kind"] == "tool"]
    d = tools["description"]
    fig = go.Figure(go.Histogram(x=d, name="tools", nbinsx=min(40, max(5, len(d))),
                                 customdata=safe_text(tool_label(tools)),
                                 hovertemplate="%{x} tokens: %{y} tools<extra></extra>"))
    if band is not None:
        inside = int(d.between(*band).sum())
        fig.add_vrect(x0=band[0], x1=band[1], fillcolor="green", opacity=0.12, line_width=0,
                      annotation_text=f"band {band[0]:g}-{band[1]:g}: {inside} of {len(d)} tools",
                      annotation_position="top left")
    if target is not None:
        fig.add_vline(x=target, line_dash="dash", line_color="black", annotation_text=f"target {target:g}")
    fig.update_layout(title=title or "Description length per tool against the recommended band",
                      xaxis_title="description tokens per tool", yaxis_title="tools", bargap=0.05)
    return fig


def description_tradeoff(grid: pd.DataFrame, *, target: float | None = None, title: str | None = None) -> go.Figure:
    """Tokens per request and cost per completed task as descriptions grow (`toolsurvey.description_sweep`)."""
    from plotly.subplots import make_subplots

    fig = make_subplots(specs=[[{"secondary_y": True}]])
    x = grid["description_tokens"]
    fig.add_trace(go.Scatter(x=x, y=grid["tool_tokens_per_request"], name="tool tokens per request",
                             mode="lines", hovertemplate="%{x:.0f} → %{y:,.0f} tokens<extra></extra>"),
                  secondary_y=False)
    fig.add_trace(go.Scatter(x=x, y=grid["cost_per_completed_task"], name="cost per completed task",
                             mode="lines", line_dash="dot",
                             hovertemplate="%{x:.0f} → $%{y:.4f}<extra></extra>"), secondary_y=True)
    if target is not None and len(grid):
        i = int((x - target).abs().to_numpy().argmin())
        fig.add_trace(go.Scatter(x=[x.iloc[i]], y=[grid["cost_per_completed_task"].iloc[i]], name="target",
                                 mode="markers", marker=dict(size=12, symbol="diamond"),
                                 hovertemplate="target %{x:.0f} tokens: $%{y:.4f}<extra></extra>"),
                      secondary_y=True)
    fig.update_xaxes(title_text="description tokens per tool")
    fig.update_yaxes(title_text="tool tokens per request", secondary_y=False)
    # Ticks of its own at round dollar values (plotly would otherwise align them to the left axis's grid).
    fig.update_yaxes(title_text="cost per completed task (USD)", secondary_y=True, tickmode="auto",
                     showgrid=False, tickprefix="$", tickformat=".2f")
    fig.update_layout(title=title or "As descriptions grow: tokens per request vs cost per completed task",
                      legend=dict(orientation="h", y=-0.25))
    return fig


# (sweep column, panel title, scale, hover format): the four panels of the catalog-size chart.
CATALOG_PANELS = (
    ("tool_tokens_per_request", "tool tokens per request", 1, ",.0f"),
    ("wrong_rate", "wrong-tool rate (%)", 100, ".1f"),
    ("success", "task success (%)", 100, ".1f"),
    ("cost_per_completed_task", "cost per completed task (USD)", 1, ".4f"),
)


def catalog_size(grid: pd.DataFrame, *, x: str = "visible", color: str = "strategy",
                 marker: float | None = None, title: str | None = None) -> go.Figure:
    """Four panels against visible tools (tokens per request, wrong-tool rate, success, cost per
    completed task), one line per `color` value; `marker` highlights one visible count."""
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=2, cols=2, subplot_titles=[p[1] for p in CATALOG_PANELS],
                        horizontal_spacing=0.1, vertical_spacing=0.14)
    palette = ("#636efa", "#ef553b", "#00cc96", "#ab63fa", "#ffa15a", "#19d3f3")
    groups = list(dict.fromkeys(grid[color]))
    for i, (col, label, scale, fmt) in enumerate(CATALOG_PANELS):
        row, c = divmod(i, 2)
        for j, g in enumerate(groups):
            part = grid[grid[color] == g].sort_values(x)
            fig.add_trace(go.Scatter(
                x=part[x], y=part[col] * scale, mode="lines", name=str(g), legendgroup=str(g),
                showlegend=i == 0, line_color=palette[j % len(palette)],
                hovertemplate=f"{g}: %{{x}} visible → %{{y:{fmt}}}<extra>{label}</extra>"), row=row + 1, col=c + 1)
        fig.update_xaxes(title_text="visible tools", row=row + 1, col=c + 1)
        fig.update_yaxes(title_text=label, row=row + 1, col=c + 1)
    if marker is not None:
        for i in range(len(CATALOG_PANELS)):
            fig.add_vline(x=marker, line_dash="dot", line_color="gray", row=i // 2 + 1, col=i % 2 + 1)
    fig.update_layout(title=title or "Catalog size: what more visible tools cost, per strategy",
                      legend=dict(title=color, orientation="h", y=-0.12), height=700)
    return fig


def cost_heatmap(grid: pd.DataFrame, *, x: str = "visible", y: str = "steps",
                 z: str = "cost_per_completed_task", title: str | None = None) -> go.Figure:
    """Heatmap of `z` (default cost per completed task, USD) over steps × visible tools. The columns are
    the swept values, one cell each, so the axis ends at the largest (the registry's size), not past it."""
    pivot = grid.pivot_table(index=y, columns=x, values=z, aggfunc="mean").sort_index().sort_index(axis=1)
    fig = go.Figure(go.Heatmap(
        x=list(pivot.columns), y=pivot.index, z=pivot.to_numpy(), colorscale="Viridis",
        colorbar_title="USD" if "cost" in z else z,
        hovertemplate=f"{y} %{{y}}, {x} %{{x}}: %{{z:.4f}}<extra>{z}</extra>"))
    fig.update_layout(title=title or "Cost per completed task (USD) by steps per task and visible tools",
                      xaxis_title="visible tools", yaxis_title="requests per task (steps)", xaxis_type="category")
    return fig


def cost_curve(grid: pd.DataFrame, *, x: str = "steps", y: str = "cost_per_task", today: tuple | None = None,
               today_label: str = "today", title: str | None = None) -> go.Figure:
    """One simulated cost (USD) against `steps` or `visible` from `toolsurvey.sweep`, with today's
    point `(x, y)` marked."""
    xlabel = {"steps": "requests per task", "visible": "tools visible per request"}.get(x, x)
    ylabel = {"cost_per_task": "cost per task attempt (USD)",
              "cost_per_completed_task": "cost per completed task (USD)"}.get(y, y)
    g = grid.sort_values(x)
    fig = go.Figure(go.Scatter(x=g[x], y=g[y], mode="lines+markers", name=ylabel, marker_size=5,
                               hovertemplate=f"%{{x:,.0f}} {xlabel}: $%{{y:,.4f}}<extra></extra>"))
    if today is not None:
        fig.add_trace(go.Scatter(x=[today[0]], y=[today[1]], mode="markers+text", name=today_label,
                                 text=[today_label], textposition="top left",
                                 marker=dict(size=13, symbol="diamond", color="#d4783b"),
                                 hovertemplate=f"{today_label}: %{{x:,.1f}}, $%{{y:,.4f}}<extra></extra>"))
    fig.update_layout(title=title or f"{ylabel[0].upper() + ylabel[1:]} against {xlabel}",
                      xaxis_title=xlabel, yaxis_title=ylabel, yaxis_tickprefix="$", yaxis_rangemode="tozero",
                      xaxis_rangemode="tozero", showlegend=False, height=380)
    return fig


def accuracy_curves(curves: dict, *, dashed: str | None = None, title: str | None = None) -> go.Figure:
    """Wrong-tool rate and task success against visible tools, one line per curve (`curves`: label ->
    AccuracyCurve, each drawn through its points); the curve labelled `dashed` (an assumed one) dashed.
    Labels are HTML-escaped: a measured curve's label carries a model name read from its file."""
    from plotly.subplots import make_subplots

    from .labels import safe_text

    fig = make_subplots(rows=1, cols=2, subplot_titles=("wrong-tool rate", "task success"), horizontal_spacing=0.12)
    palette = ("#7f7f7f", "#d62728", "#1f77b4", "#2ca02c")
    for j, (label, c) in enumerate(curves.items()):
        name = safe_text([label], 80)[0]
        for col, ys in ((1, c.wrong), (2, c.success)):
            fig.add_trace(go.Scatter(x=list(c.visible), y=list(ys), mode="lines+markers", name=name, legendgroup=name,
                                     showlegend=col == 1, line={"color": palette[j % len(palette)],
                                                               "dash": "dash" if label == dashed else "solid"},
                                     hovertemplate="%{x:.3g} tools: %{y:.1%}<extra>" + name + "</extra>"),
                          row=1, col=col)
    fig.update_yaxes(tickformat=".0%", range=[0, 1.02])
    fig.update_xaxes(title_text="visible tools")
    fig.update_layout(title=title or "The accuracy curve: assumed (dashed) and measured",
                      legend={"orientation": "h", "y": -0.2})
    return fig
