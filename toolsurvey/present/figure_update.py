"""Copying a freshly built Figure into a FigureWidget in place, so a widget's chart redraws without
being rebuilt: only what changed is sent to the browser."""

from __future__ import annotations

from typing import Any


def _same(a: Any, b: Any) -> bool:
    import numpy as np

    if isinstance(a, (list, tuple, np.ndarray)) or isinstance(b, (list, tuple, np.ndarray)):
        try:
            return np.array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object))
        except ValueError:
            return False
    return a == b


def _changed(old: dict, new: dict) -> dict:
    return {k: v for k, v in new.items() if k not in old or not _same(old[k], v)}


def refresh(widget, fig) -> None:
    """Copy a freshly built Figure into a FigureWidget in place: only the trace and layout properties
    that changed are sent (same traces), else the traces are replaced."""
    with widget.batch_update():
        same = len(widget.data) == len(fig.data) and all(
            a.type == b.type for a, b in zip(widget.data, fig.data, strict=True))
        if same:
            for old, new in zip(widget.data, fig.data, strict=True):
                delta = _changed(old.to_plotly_json(), new.to_plotly_json())
                if delta:
                    old.update(delta, overwrite=True)
        else:
            widget.data = ()
            widget.add_traces(list(fig.data))
        delta = _changed(widget.layout.to_plotly_json(), fig.layout.to_plotly_json())
        if delta:
            widget.update_layout(delta, overwrite=True)


def update_steps(widget, steps) -> None:
    """Put a new task's per-request table into a `charts.task.step_area` FigureWidget. When it draws the
    same traces, only their x and y change in place: rebuilding the figure (subplots, validation)
    was most of a slider move."""
    from .charts.task import step_area, step_traces

    traces = step_traces(steps)
    if [t.name for t in widget.data] != [name for _, name, _, _ in traces]:
        refresh(widget, step_area(steps))
        return
    with widget.batch_update():
        for trace, (col, _, _, _) in zip(widget.data, traces, strict=True):
            trace.x, trace.y = steps["request"].to_numpy(), steps[col].to_numpy()


def _set_changed(trace, props: dict) -> None:
    """Set the trace properties in `props` that differ from the trace's (the rest send nothing)."""
    changed = {k: v for k, v in props.items() if not _same(trace[k], v)}
    if changed:
        trace.update(changed)


def update_field_costs(widget, ranked, *, top: int) -> None:
    """Put a new recipe's groups into a `charts.responses.field_costs(..., every_group=True)` FigureWidget.
    The same fields on the axis: only the groups whose bars changed are restyled, with no relayout
    (a field checkbox's redraw, which a full refresh made replace the traces)."""
    from .charts.responses import field_cost_bars, field_costs

    labels, bars = field_cost_bars(ranked, top=top, every_group=True)
    if [t.name for t in widget.data] != [b["name"] for b in bars] or list(widget.layout.yaxis.categoryarray) != labels:
        refresh(widget, field_costs(ranked, top=top, every_group=True))
        return
    with widget.batch_update():
        for trace, bar in zip(widget.data, bars, strict=True):
            _set_changed(trace, {k: v for k, v in bar.items() if k != "name"} | {"showlegend": bool(bar["x"])})


def update_trim_steps(widget, steps) -> None:
    """Put a new recipe's steps into a `charts.responses.trim_steps` FigureWidget: the waterfall's
    data changes in place, its layout (title, axes) stays."""
    from .charts.responses import step_bars

    with widget.batch_update():
        _set_changed(widget.data[0], step_bars(steps))
