"""Charts of a registry's footprint: where the tokens per request go, by server, tool and part."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from ...measuring.parts import PARTS
from .labels import LABEL_CHARS, safe_text, short_ticks, tool_label

TOKENS = "tokens per request"
# One colour per part, stable across charts so "description" is the same blue everywhere.
PART_COLORS = dict(zip(PARTS, (
    "#636efa", "#ef553b", "#00cc96", "#ab63fa", "#ffa15a", "#19d3f3", "#ff6692", "#b6e880", "#fecb52", "#8c8c8c",
), strict=True))


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
    short_ticks(fig, "y", list(tools["label"]))
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
