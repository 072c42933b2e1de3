"""Charts of agent traces: billed cost over time, input by part, tool results, and billed vs simulated.

Session ids, model and tool names come from the trace files: they are shown literally
(`labels.safe_text`), never read as plotly's HTML-like label markup."""

from __future__ import annotations

import pandas as pd

from .labels import safe_text


def cost_over_time(requests: pd.DataFrame, *, title: str | None = None):
    """Cumulative billed cost over time, one line per session."""
    import plotly.express as px

    r = requests.dropna(subset=["timestamp"]).sort_values("timestamp")
    r = r.assign(cumulative_cost=r["cost"].fillna(0).cumsum(), session=lambda d: safe_text(d["session"]),
                 model=lambda d: safe_text(d["model"]))
    return px.line(r, x="timestamp", y="cumulative_cost", markers=True, hover_data=["session", "model"],
                   title=title or "Billed cost over time (cumulative, USD)",
                   labels={"cumulative_cost": "USD", "timestamp": ""})


def input_shares(split: pd.DataFrame, *, title: str | None = None):
    """Billed input per session, stacked: fixed prefix, history, new text (from fit.input_split)."""
    import plotly.express as px

    long = split.groupby("session")[["prefix", "history", "new"]].sum().reset_index().melt(
        id_vars="session", var_name="part", value_name="tokens")
    long["session"] = safe_text(long["session"])
    return px.bar(long, x="session", y="tokens", color="part", title=title or "Billed input tokens by part",
                  labels={"session": ""})


def tool_results(totals: pd.DataFrame, *, top: int = 15, title: str | None = None):
    """Result tokens per tool (from Traces.totals('tool')), largest first."""
    import plotly.express as px

    t = totals.head(top).assign(label=lambda d: safe_text(d["server"] + "/" + d["tool"]))
    return px.bar(t, x="result_tokens", y="label", orientation="h", hover_data=["calls", "errors", "repeated"],
                  title=title or "Costliest tools by result tokens",
                  labels={"label": "", "result_tokens": "result tokens"}).update_yaxes(autorange="reversed")


def measured_vs_simulated(table: pd.DataFrame, *, title: str | None = None):
    """Billed vs simulated cost per session (from compare), the total left out."""
    import plotly.express as px

    t = table[table["session"] != "(total)"].melt(id_vars="session", value_vars=["billed", "simulated"],
                                                  var_name="cost", value_name="USD")
    t["session"] = safe_text(t["session"])
    return px.bar(t, x="session", y="USD", color="cost", barmode="group",
                  title=title or "Billed vs simulated cost per session", labels={"session": ""})
