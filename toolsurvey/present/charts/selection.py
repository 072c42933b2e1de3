"""Charts of a selection eval. The confusion heatmap: expected tools (rows, "none" last) against the
tools called (columns, then "none" and "invalid"), each cell the number of answers. Measured rates
with their Wilson 95% intervals: against visible tools (a catalog-size sweep, beside an assumed curve
drawn dashed), by description length, deferred against loaded, and two registries side by side.
Tool names, model names and labels read from an eval file (third-party text) have control characters
escaped and are HTML-escaped, as plotly renders some tags in labels."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

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


NO_RATE = {"count": 0, "of": 0, "rate": None, "low": None, "high": None}  # not measured for that row


def _rates(rows: list[dict], key: str) -> tuple[list, list, list, list]:
    """(index, rate, low, high) of the rows whose `key` rate is defined (n > 0)."""
    keep = [(i, r[key]) for i, r in enumerate(rows) if r[key]["rate"] is not None]
    return ([i for i, _ in keep], [x["rate"] for _, x in keep], [x["low"] for _, x in keep], [x["high"] for _, x in keep])


def _band(fig, xs, low, high, name, color, **where) -> None:
    """A filled band from `low` to `high` over `xs`, not in the legend."""
    fig.add_trace(go.Scatter(x=list(xs) + list(xs)[::-1], y=list(high) + list(low)[::-1], fill="toself",
                             fillcolor=color, line={"width": 0}, hoverinfo="skip", showlegend=False, name=name),
                  **where)


def accuracy_by_visible(rows: list[dict], *, default=None, model: str = "", title: str | None = None) -> go.Figure:
    """The wrong-call rate and the right-tool rate against the tools offered, one point per size of a
    sweep (`SweepEval.by_size()`), each with its 95% interval as a band; `default` (an AccuracyCurve)
    drawn dashed beside them: its wrong rate, and its task success beside the right-tool rate."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=("wrong-call rate", "right tool (task success, K = 1)"),
                        horizontal_spacing=0.12)
    for col, key, color, band in ((1, "wrong_call_rate", "#d62728", "rgba(214,39,40,0.15)"),
                                  (2, "tool_accuracy", "#1f77b4", "rgba(31,119,180,0.15)")):
        idx, rate, low, high = _rates(rows, key)
        xs = [rows[i]["tools_offered"] for i in idx]
        counts = [f"{rows[i][key]['count']} of {rows[i][key]['of']}" for i in idx]
        _band(fig, xs, low, high, "95% interval", band, row=1, col=col)
        fig.add_trace(go.Scatter(x=xs, y=rate, mode="lines+markers", name="measured" if col == 1 else "measured ",
                                 line={"color": color}, customdata=counts, legendgroup="measured",
                                 hovertemplate="%{x:.3g} tools: %{y:.0%} (%{customdata})<extra></extra>"),
                      row=1, col=col)
        if default is not None:
            ys = default.wrong if col == 1 else default.success
            fig.add_trace(go.Scatter(x=list(default.visible), y=list(ys), mode="lines", line={"dash": "dash",
                                     "color": "#7f7f7f"}, name="default curve (assumed)", showlegend=col == 1,
                                     legendgroup="default", hovertemplate="%{x:g} tools: %{y:.0%}<extra>default</extra>"),
                          row=1, col=col)
    fig.update_yaxes(tickformat=".0%", range=[0, 1.02])
    fig.update_xaxes(title_text="tools offered")
    who = safe_text([model])[0] if model else "the model"
    fig.update_layout(title=title or f"What {who} picks as the catalog grows, measured (bands: 95% intervals)",
                      legend={"orientation": "h", "y": -0.2})
    return fig


def _bars(fig, labels, rows, key, name, **extra) -> None:
    idx, rate, low, high = _rates(rows, key)
    fig.add_trace(go.Bar(x=[labels[i] for i in idx], y=rate, name=name,
                         error_y={"type": "data", "symmetric": False,
                                  "array": [h - r for h, r in zip(high, rate, strict=True)],
                                  "arrayminus": [r - lo for r, lo in zip(rate, low, strict=True)]},
                         customdata=[f"{rows[i][key]['count']} of {rows[i][key]['of']}" for i in idx],
                         hovertemplate="%{x}: %{y:.0%} (%{customdata})<extra>" + name + "</extra>", **extra))


def deferred_against_loaded(rows: list[dict], *, title: str | None = None) -> go.Figure:
    """Accuracy with every tool loaded and with the tools deferred behind a search, per defer mode,
    and how often the model searched and the search found a gold tool (`selection_inputs.deferred_vs_loaded`)."""
    labels = safe_text(r["setup"] for r in rows)
    fig = go.Figure()
    _bars(fig, labels, rows, "accuracy", "accuracy")
    for key, name in (("searched", "searched"), ("found_gold", "search found a gold tool")):
        sub = [r if r[key] is not None else {**r, key: NO_RATE} for r in rows]
        _bars(fig, labels, sub, key, name)
    fig.update_layout(title=title or "Deferred behind a search against every tool loaded (bars: 95% intervals)",
                      barmode="group", yaxis_tickformat=".0%", yaxis_range=[0, 1.05])
    return fig


AB_RATES = (("accuracy", "accuracy"), ("tool_accuracy", "right tool"), ("skip_rate", "skip"),
            ("false_call_rate", "false call"), ("invalid_rate", "invalid"))


def two_registries(before: dict, after: dict, *, labels=("baseline", "this registry"),
                   title: str | None = None) -> go.Figure:
    """The headline rates of the same queries on two registries (eval summaries), side by side with
    their 95% intervals."""
    names = [label for _, label in AB_RATES]
    fig = go.Figure()
    for summ, label in ((before, labels[0]), (after, labels[1])):
        rows = [{"r": summ[key]} for key, _ in AB_RATES]
        _bars(fig, names, rows, "r", safe_text([label])[0])
    fig.update_layout(title=title or "The same queries on two registries (bars: 95% intervals)", barmode="group",
                      yaxis_tickformat=".0%", yaxis_range=[0, 1.05])
    return fig
