"""Charts of tool results: which fields cost the tokens, what trimming saves, and result tokens per tool."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from .labels import CHART_HEIGHT, safe_text, short_names, short_ticks, tool_label

STEP_CHARS = 24  # a longer step name ("keep a,b,c,...") shows as "keep 6 fields" on the axis


RECIPE_GROUPS = {"kept": "#00cc96", "part": "#ffa15a", "dropped": "#ef553b"}  # a field under a recipe: its colour


def field_cost_bars(ranked: pd.DataFrame, *, top: int = 15, every_group: bool = False) -> tuple[list[str], list[dict]]:
    """`field_costs`' bars: the axis's labels (bottom to top) and, per group ("kept", "part", "dropped";
    "all fields" without a `keep` column), its name, y (labels), x (tokens) and customdata (share in %).
    With `every_group`, all three recipe groups, empty ones too, so a widget can restyle them in place."""
    rows = ranked.sort_values("tokens", ascending=False, kind="stable").head(top).iloc[::-1]
    label = pd.Series(safe_text(rows["tool"].astype(str) + " " + rows["path"].astype(str)), index=rows.index)
    groups = rows["keep"] if "keep" in rows else pd.Series("all fields", index=rows.index)
    names = list(RECIPE_GROUPS) if every_group and "keep" in rows else list(dict.fromkeys(groups))
    return list(label), [{"name": str(g), "y": label[groups == g].tolist(), "x": rows.loc[groups == g, "tokens"].tolist(),
                          "customdata": (rows.loc[groups == g, "share"] * 100).tolist()} for g in names]


def field_costs(ranked: pd.DataFrame, *, top: int = 15, title: str | None = None, every_group: bool = False) -> go.Figure:
    """Horizontal bars of the costliest response fields (`toolsurvey.rank_fields` rows), coloured by
    whether a trimming recipe keeps them when a `keep` column is present (`every_group`: see
    `field_cost_bars`; an empty group stays out of the legend)."""
    labels, bars = field_cost_bars(ranked, top=top, every_group=every_group)
    fig = go.Figure([
        go.Bar(**bar, orientation="h", marker_color=RECIPE_GROUPS.get(bar["name"], "#636efa"), showlegend=bool(bar["x"]),
               hovertemplate="%{y}: %{x:,} tokens (%{customdata:.1f}%)<extra></extra>")
        for bar in bars
    ])
    fig.update_layout(title=title or "Which response fields cost the tokens (all samples)", barmode="stack",
                      xaxis_title="tokens across all samples", yaxis_title="field (tool, JSON path)",
                      yaxis_categoryorder="array", yaxis_categoryarray=labels,
                      legend_title="recipe", height=max(300, 60 + 24 * len(labels)))
    short_ticks(fig, "y", labels)
    return fig


def trim_before_after(before, after, *, labels=None, cap: float | None = 25_000,
                      title: str | None = None) -> go.Figure:
    """Tokens of each result before and after a trimming recipe, against a cap line. `labels` (e.g.
    file paths) show short on the axis (a file's name) and whole in the hover text."""
    before, after = list(before), list(after)
    full = [str(x) for x in (labels if labels is not None else range(1, len(before) + 1))]
    short, whole = safe_text(short_names(full)), safe_text(full)
    fig = go.Figure([
        go.Bar(x=short, y=before, name="as received", marker_color="#8c8c8c", customdata=whole,
               hovertemplate="%{customdata}: %{y:,} tokens<extra>as received</extra>"),
        go.Bar(x=short, y=after, name="trimmed", marker_color="#00cc96", customdata=whole,
               hovertemplate="%{customdata}: %{y:,} tokens<extra>trimmed</extra>"),
    ])
    if cap is not None:
        fig.add_hline(y=cap, line_dash="dash", line_color="red", annotation_text=f"cap {cap:,.0f} tokens")
    fig.update_layout(title=title or trim_title(before, after), height=CHART_HEIGHT,
                      barmode="group", xaxis_title="result", yaxis_title="tokens per result")
    fig.update_xaxes(automargin=True, tickangle=0 if len(short) <= 8 else -30)
    return fig


def trim_title(before, after) -> str:
    """`trim_before_after`'s default title: the totals before and after and the ratio."""
    total_b, total_a = sum(before), sum(after)
    ratio = f", {total_b / total_a:.1f}x smaller" if total_a else ""
    return f"Results before and after trimming: {total_b:,} → {total_a:,} tokens{ratio}"


def step_label(step: str) -> str:
    """A trimming step's short name for an axis: "keep 6 fields" for "keep number,title,...";
    names of at most STEP_CHARS characters as they are."""
    for verb in ("keep ", "drop "):
        if step.startswith(verb) and step != "drop empty" and len(step) > STEP_CHARS:
            n = len(step[len(verb):].split(","))
            return f"{verb}{n} field{'s' * (n != 1)}"
    return step if len(step) <= STEP_CHARS else step[:STEP_CHARS - 1] + "…"


def step_bars(steps) -> dict:
    """`trim_steps`' waterfall as trace properties (x, y, measure, text, customdata): tokens as received,
    then what each step saved, then the total."""
    steps = list(steps)
    names = [s["step"] for s in steps]
    said = [f"{steps[0]['tokens']:,} tokens"] + [
        "saves nothing" if s["saved"] == 0 else f"{-s['saved']:+,}" for s in steps[1:]] + [f"{steps[-1]['tokens']:,}"]
    return {"x": safe_text(step_label(n) for n in names) + ["after"],
            "y": [steps[0]["tokens"]] + [-s["saved"] for s in steps[1:]] + [steps[-1]["tokens"]],
            "measure": ["absolute"] + ["relative"] * (len(steps) - 1) + ["total"],
            "text": said, "customdata": safe_text(names + ["after every step"])}


def trim_steps(steps, *, title: str | None = None) -> go.Figure:
    """Waterfall of a trimming recipe: tokens as received, then what each step saved, each bar
    labelled with its saving ("saves nothing" where a step changed nothing); the full step names in
    the hover text."""
    fig = go.Figure(go.Waterfall(**step_bars(steps), textposition="outside",
                                 hovertemplate="%{customdata}: %{text}<extra></extra>"))
    fig.update_layout(title=title or "What each trimming step saves", xaxis_title="step", yaxis_title="tokens",
                      height=CHART_HEIGHT, yaxis_rangemode="tozero")
    fig.update_xaxes(automargin=True, tickangle=0)
    return fig


def result_tokens(table: pd.DataFrame, *, x: str = "response_tokens_total", top: int = 15,
                  title: str | None = None) -> go.Figure:
    """Result tokens by tool from a usage summary (`toolsurvey.inputs.usage.summarize`), largest first."""
    rows = table.nlargest(top, x).iloc[::-1]
    label = safe_text(tool_label(rows))  # names from a usage log: shown literally, never as markup
    fig = go.Figure(go.Bar(x=rows[x], y=label, orientation="h",
                           hovertemplate="%{y}: %{x:,.0f} tokens<extra></extra>"))
    fig.update_layout(title=title or f"Result tokens in the usage log, top {len(rows)} tools",
                      xaxis_title="result tokens in the log", yaxis_title="tool (server/name)",
                      xaxis_tickformat=",.0f", height=max(300, 26 * len(rows) + 140))
    short_ticks(fig, "y", label)
    return fig
