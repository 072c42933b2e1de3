"""Plotly figures of toolsurvey's tables: a tidy DataFrame in, a `go.Figure` out, never shown.

Every chart takes the table first and keyword-only options after it, named the same across
charts: `title` (None picks a descriptive one), `top` (how many rows to keep), `cap`/`band`
(reference lines). Charts only reshape and draw; measuring and modelling live in the library.
"""

from __future__ import annotations

import html

import pandas as pd
import plotly.graph_objects as go

from ..measuring.parts import PARTS

TOKENS = "tokens per request"
# One colour per part, stable across charts so "description" is the same blue everywhere.
PART_COLORS = dict(zip(PARTS, (
    "#636efa", "#ef553b", "#00cc96", "#ab63fa", "#ffa15a", "#19d3f3", "#ff6692", "#b6e880", "#fecb52", "#8c8c8c",
), strict=True))


LABEL_CHARS = 80  # a longer name is cut in a chart's axis or tile label; its hover text keeps it whole


def safe_text(values, limit: int | None = None) -> list[str]:
    """Third-party text as plotly shows it, literally: HTML-escaped (plotly renders <a href>,
    <span style> and <br> in labels, hover text and titles), cut to `limit` characters if given."""
    out = []
    for v in values:
        s = str(v)
        out.append(html.escape(s[: limit - 1] + "…" if limit and len(s) > limit else s, quote=False))
    return out


def _short_ticks(fig: go.Figure, axis: str, labels: list[str]) -> None:
    """Show `labels` (already escaped) cut to LABEL_CHARS on `axis`, keeping the full ones as categories."""
    shown = [html.escape(s[: LABEL_CHARS - 1] + "…", quote=False) if len(s) > LABEL_CHARS else html.escape(s, quote=False)
             for s in map(html.unescape, labels)]
    getattr(fig, f"update_{axis}axes")(tickmode="array", tickvals=labels, ticktext=shown)


# -- data preparation (pure reshaping of the footprint table) -------------------------------------

def tool_label(table: pd.DataFrame) -> pd.Series:
    """`server/tool` for every row, the label the charts show for a tool."""
    return table["server"].astype(str) + "/" + table["tool"].astype(str)


def pareto_table(table: pd.DataFrame) -> pd.DataFrame:
    """Tools ranked by tokens with the cumulative share of all tool tokens held by the top N."""
    tools = table[table["kind"] == "tool"]
    out = pd.DataFrame({"tool": tool_label(tools).values, "tokens": tools["tokens"].values})
    out = out.sort_values("tokens", ascending=False, kind="stable").reset_index(drop=True)
    out.insert(0, "rank", range(1, len(out) + 1))
    total = out["tokens"].sum()
    out["cumulative_share"] = out["tokens"].cumsum() / total if total else 0.0
    return out


def _parts_present(table: pd.DataFrame) -> list[str]:
    return [p for p in PARTS if p in table and table[p].sum() > 0]


# -- footprint -------------------------------------------------------------------------------------

def footprint_treemap(table: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Treemap of a footprint table: server, then tool, then part, sized by tokens per request."""
    parts = _parts_present(table)
    long = table[["server", "tool", *parts]].melt(id_vars=["server", "tool"], var_name="part", value_name="tokens")
    long = long[long["tokens"] > 0].groupby(["server", "tool", "part"], sort=False, as_index=False)["tokens"].sum()
    tools = long.groupby(["server", "tool"], sort=False, as_index=False)["tokens"].sum()
    servers = long.groupby("server", sort=False, as_index=False)["tokens"].sum()
    ids = safe_text(list(servers["server"]) + list(tools["server"] + "/" + tools["tool"]) + list(
        long["server"] + "/" + long["tool"] + "/" + long["part"]))
    labels = safe_text(list(servers["server"]) + list(tools["tool"]) + list(long["part"]), LABEL_CHARS)
    parents = [""] * len(servers) + safe_text(list(tools["server"]) + list(long["server"] + "/" + long["tool"]))
    values = [int(v) for v in (*servers["tokens"], *tools["tokens"], *long["tokens"])]
    total = int(table["tokens"].sum())
    fig = go.Figure(go.Treemap(
        ids=ids, labels=labels, parents=parents, values=values, branchvalues="total",
        hovertemplate="%{id}<br>%{value:,} tokens<br>%{percentRoot:.1%} of the request<extra></extra>",
    ))
    fig.update_layout(title=title or f"Where the {total:,} tokens per request go: server → tool → part",
                      margin=dict(t=50, l=10, r=10, b=10))
    return fig


def parts_bar(table: pd.DataFrame, *, top: int = 15, title: str | None = None) -> go.Figure:
    """Horizontal bars of the `top` tools by tokens, stacked by part (largest tool on top)."""
    tools = table[table["kind"] == "tool"].assign(label=lambda t: safe_text(tool_label(t)))
    tools = tools.sort_values("tokens", ascending=False, kind="stable").head(top).iloc[::-1]
    fig = go.Figure([
        go.Bar(name=part, y=tools["label"], x=tools[part], orientation="h", marker_color=PART_COLORS[part],
               hovertemplate="%{y}<br>" + part + ": %{x:,} tokens<extra></extra>")
        for part in _parts_present(tools)
    ])
    fig.update_layout(barmode="stack", title=title or f"Top {len(tools)} tools by definition tokens, by part",
                      xaxis_title=TOKENS, yaxis_title="tool (server/name)", legend_title="part",
                      height=max(300, 60 + 24 * len(tools)))
    _short_ticks(fig, "y", list(tools["label"]))
    return fig


def pareto(table: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Share of all tool-definition tokens held by the top N tools, against N."""
    p = pareto_table(table)
    fig = go.Figure(go.Scatter(
        x=p["rank"], y=p["cumulative_share"] * 100, mode="lines+markers", name="top N tools",
        customdata=p[["tool", "tokens"]].assign(tool=safe_text(p["tool"])), line_shape="hv",
        hovertemplate="top %{x} tools: %{y:.1f}% of tool tokens<br>#%{x}: %{customdata[0]} "
                      "(%{customdata[1]:,} tokens)<extra></extra>",
    ))
    if len(p):
        n80 = int((p["cumulative_share"] < 0.8).sum()) + 1
        fig.add_hline(y=80, line_dash="dot", line_color="gray",
                      annotation_text=f"80% of tokens in the top {min(n80, len(p))} of {len(p)} tools")
    fig.update_layout(title=title or "Pareto: share of tool-definition tokens held by the top N tools",
                      xaxis_title="top N tools (ranked by tokens)", yaxis_title="cumulative share of tool tokens (%)",
                      yaxis_range=[0, 102])
    return fig


# -- description length ----------------------------------------------------------------------------

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


# -- catalog size ----------------------------------------------------------------------------------

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
    """Heatmap of `z` (default cost per completed task, USD) over steps × visible tools."""
    pivot = grid.pivot_table(index=y, columns=x, values=z, aggfunc="mean").sort_index().sort_index(axis=1)
    fig = go.Figure(go.Heatmap(
        x=pivot.columns, y=pivot.index, z=pivot.to_numpy(), colorscale="Viridis",
        colorbar_title="USD" if "cost" in z else z,
        hovertemplate=f"{y} %{{y}}, {x} %{{x}}: %{{z:.4f}}<extra>{z}</extra>"))
    fig.update_layout(title=title or "Cost per completed task (USD) by steps per task and visible tools",
                      xaxis_title="visible tools", yaxis_title="requests per task (steps)")
    return fig


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


# -- responses -------------------------------------------------------------------------------------

def field_costs(ranked: pd.DataFrame, *, top: int = 15, title: str | None = None) -> go.Figure:
    """Horizontal bars of the costliest response fields (`toolsurvey.rank_fields` rows), coloured by
    whether a trimming recipe keeps them when a `keep` column is present."""
    rows = ranked.sort_values("tokens", ascending=False, kind="stable").head(top).iloc[::-1]
    label = pd.Series(safe_text(rows["tool"].astype(str) + " " + rows["path"].astype(str)), index=rows.index)
    colors = {"kept": "#00cc96", "part": "#ffa15a", "dropped": "#ef553b"}
    groups = rows["keep"] if "keep" in rows else pd.Series("all fields", index=rows.index)
    fig = go.Figure([
        go.Bar(y=label[groups == g], x=rows.loc[groups == g, "tokens"], orientation="h", name=str(g),
               marker_color=colors.get(g, "#636efa"), customdata=rows.loc[groups == g, "share"] * 100,
               hovertemplate="%{y}: %{x:,} tokens (%{customdata:.1f}%)<extra></extra>")
        for g in dict.fromkeys(groups)
    ])
    fig.update_layout(title=title or "Which response fields cost the tokens (all samples)", barmode="stack",
                      xaxis_title="tokens across all samples", yaxis_title="field (tool, JSON path)",
                      yaxis_categoryorder="array", yaxis_categoryarray=list(label),
                      legend_title="recipe", height=max(300, 60 + 24 * len(rows)))
    _short_ticks(fig, "y", list(label))
    return fig


def trim_before_after(before, after, *, labels=None, cap: float | None = 25_000,
                      title: str | None = None) -> go.Figure:
    """Tokens of each result before and after a trimming recipe, against a cap line."""
    before, after = list(before), list(after)
    labels = safe_text(labels if labels is not None else range(1, len(before) + 1))
    fig = go.Figure([
        go.Bar(x=labels, y=before, name="as received", marker_color="#8c8c8c",
               hovertemplate="%{x}: %{y:,} tokens<extra>as received</extra>"),
        go.Bar(x=labels, y=after, name="trimmed", marker_color="#00cc96",
               hovertemplate="%{x}: %{y:,} tokens<extra>trimmed</extra>"),
    ])
    if cap is not None:
        fig.add_hline(y=cap, line_dash="dash", line_color="red", annotation_text=f"cap {cap:,.0f} tokens")
    fig.update_layout(title=title or trim_title(before, after),
                      barmode="group", xaxis_title="result", yaxis_title="tokens per result")
    return fig


def trim_title(before, after) -> str:
    """`trim_before_after`'s default title: the totals before and after and the ratio."""
    total_b, total_a = sum(before), sum(after)
    ratio = f", {total_b / total_a:.1f}x smaller" if total_a else ""
    return f"Results before and after trimming: {total_b:,} → {total_a:,} tokens{ratio}"


def trim_steps(steps, *, title: str | None = None) -> go.Figure:
    """Waterfall of a trimming recipe: tokens as received, then what each step saved."""
    steps = list(steps)
    fig = go.Figure(go.Waterfall(
        x=safe_text(s["step"] for s in steps) + ["after"],
        y=[steps[0]["tokens"]] + [-s["saved"] for s in steps[1:]] + [steps[-1]["tokens"]],
        measure=["absolute"] + ["relative"] * (len(steps) - 1) + ["total"],
        hovertemplate="%{x}: %{y:,} tokens<extra></extra>"))
    fig.update_layout(title=title or "What each trimming step saves", xaxis_title="step", yaxis_title="tokens")
    return fig


# -- consolidation plan ----------------------------------------------------------------------------

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


# -- report charts ---------------------------------------------------------------------------------

STEP_LABELS = {"tools": "tool definitions", "history": "tool calls and results so far",
               "system": "system prompt", "user": "user message", "overhead": "provider overhead"}


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
                                 text=[f"{'' if m != 'relative' else '+' if v > 0 else '-'}${abs(v):,.0f}"
                                       for v, m in zip(steps, measure, strict=True)],
                                 textposition="outside", connector_line_color="#9aa3af",
                                 decreasing_marker_color="#2ca02c", increasing_marker_color="#d62728",
                                 totals_marker_color="#3b6fd4",
                                 hovertemplate="%{x}: $%{y:,.0f}<extra></extra>"))
    fig.update_layout(title=title or "The plan, stage by stage: cost per month (USD)", showlegend=False,
                      yaxis_title="cost per month (USD)", yaxis_tickprefix="$", yaxis_tickformat=",.0f",
                      xaxis_title="stage of the plan", height=420)
    return fig


def result_tokens(table: pd.DataFrame, *, x: str = "response_tokens_total", top: int = 15,
                  title: str | None = None) -> go.Figure:
    """Result tokens by tool from a usage summary (`toolsurvey.usage.summarize`), largest first."""
    rows = table.nlargest(top, x).iloc[::-1]
    label = safe_text(tool_label(rows))  # names from a usage log: shown literally, never as markup
    fig = go.Figure(go.Bar(x=rows[x], y=label, orientation="h",
                           hovertemplate="%{y}: %{x:,.0f} tokens<extra></extra>"))
    fig.update_layout(title=title or f"Result tokens in the usage log, top {len(rows)} tools",
                      xaxis_title="result tokens in the log", yaxis_title="tool (server/name)",
                      xaxis_tickformat=",.0f", height=max(300, 26 * len(rows) + 140))
    _short_ticks(fig, "y", label)
    return fig
