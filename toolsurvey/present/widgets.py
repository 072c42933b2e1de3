"""Notebook dashboards: ipywidgets controls wired to the library and to `toolsurvey.present.charts`.

Each explorer returns an `ipywidgets.VBox` to display, with `.controls` (name -> widget) and
`.figures` (name -> `plotly.graph_objects.FigureWidget`) attributes. A control change calls the
library, rebuilds the chart with `charts` and copies it into the FigureWidget in place, so the
notebook never needs re-running. No modelling happens here.
"""

from __future__ import annotations

import dataclasses
import html
from typing import Any

from .units import money

# Choices offered by the response explorer: None means "off".
TRUNCATE_CHOICES = (("off", None), ("50 chars", 50), ("100 chars", 100), ("200 chars", 200),
                    ("500 chars", 500), ("1,000 chars", 1000))
LIST_CAP_CHOICES = (("off", None), ("1 item", 1), ("3 items", 3), ("5 items", 5), ("10 items", 10),
                    ("20 items", 20))


def sample_inputs(registry, *, scenario: Any = "auto", phases: Any = "auto", usage: Any = "auto",
                  queries: Any = "auto") -> dict:
    """A notebook's inputs: the loaded registry, its Scenario, and the phases, usage and queries paths.

    "auto" picks the bundled file that goes with a sample registry `data/registries/NAME.json`
    (`data/scenarios/NAME.toml`, `data/phases/NAME.toml`, `data/usage/NAME.jsonl`,
    `data/queries/NAME.jsonl`), or nothing
    (the Scenario defaults) when there is none. Raises InputError for unreadable files.
    """
    from pathlib import Path

    from ..inputs.formats import load
    from ..model.scenario import Scenario, load_scenario

    stem, data = Path(registry).stem, Path(registry).parent.parent
    beside = {"scenario": data / "scenarios" / f"{stem}.toml", "phases": data / "phases" / f"{stem}.toml",
              "usage": data / "usage" / f"{stem}.jsonl", "queries": data / "queries" / f"{stem}.jsonl"}
    given = {"scenario": scenario, "phases": phases, "usage": usage, "queries": queries}
    paths = {k: (str(beside[k]) if beside[k].is_file() else None) if v == "auto" else v for k, v in given.items()}
    sc = paths["scenario"]
    return {"registry": load(registry),
            "scenario": sc if isinstance(sc, Scenario) else load_scenario(sc) if sc else Scenario(),
            "phases": paths["phases"], "usage": paths["usage"], "queries": paths["queries"]}


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


def _update_steps(widget, steps) -> None:
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


def _require() -> None:
    from ..core.extras import require

    require("ipywidgets", "anywidget", purpose="the notebook widgets")


def _box(controls: dict, figures: dict, children: list):
    import ipywidgets as W

    from .display import show_with_static_copy

    box = W.VBox(children)
    box.controls, box.figures = controls, figures
    # Shown with a static copy of its charts, which exported notebooks keep (see toolsurvey.present.display).
    box._ipython_display_ = lambda: show_with_static_copy(box)
    return box


def _observe(controls: dict, names, callback) -> None:
    for name in names:
        controls[name].observe(lambda _change: callback(), names="value")


def visible_points(n: int, count: int = 25) -> list[int]:
    """About `count` visible-set sizes from 1 to n, denser where the accuracy curve bends (small n)."""
    import numpy as np

    return sorted({int(round(x)) for x in np.geomspace(1, max(n, 1), count)} | {max(n, 1)})


def catalog_explorer(reg, scenario=None, *, strategies=None, models=None):
    """Visible tools slider, strategy and model dropdowns, steps and caching: the catalog-size
    curves (one line per strategy) and the chosen task's per-request input tokens.

    Raises InputError (from the simulation) for an unknown model or a bad scenario.
    """
    _require()
    import ipywidgets as W
    import plotly.graph_objects as go

    from ..model.scenario import Scenario
    from ..model.simulate import simulate
    from ..model.sweeps import sweep
    from .charts.catalog import catalog_size
    from .charts.task import step_area

    sc = scenario or Scenario()
    n = max(len(reg), 1)
    strategies = list(strategies or [s for s in ("all", "phases", "retrieval", "tool_search")
                                     if s != "phases" or sc.phases])
    controls = _catalog_controls(sc, n, strategies, models)
    summary = W.HTML()

    def scenario_now(**extra) -> Scenario:
        c = controls
        return dataclasses.replace(sc, model=c["model"].value, steps=c["steps"].value,
                                   caching=c["caching"].value, **extra)

    def curves_fig():
        grid = sweep(reg, scenario_now(), visible=visible_points(n), strategy=strategies)
        return catalog_size(grid, marker=controls["visible"].value)

    def task_run():
        return simulate(reg, scenario_now(visible=controls["visible"].value, strategy=controls["strategy"].value))

    run = task_run()
    figures = {"curves": go.FigureWidget(curves_fig()), "steps": go.FigureWidget(step_area(run.steps))}
    summary.value = _run_summary(run)

    def on_task() -> None:
        r = task_run()
        _update_steps(figures["steps"], r.steps)
        summary.value = _run_summary(r)
        v = controls["visible"].value
        with figures["curves"].batch_update():
            figures["curves"].update_shapes(x0=v, x1=v)

    def on_scenario() -> None:
        refresh(figures["curves"], curves_fig())
        on_task()

    _observe(controls, ("visible", "strategy"), on_task)
    _observe(controls, ("model", "steps", "caching"), on_scenario)
    box = _box(controls, figures, [W.HBox([controls["visible"], controls["strategy"]]),
                                    W.HBox([controls["model"], controls["steps"], controls["caching"]]),
                                    summary, figures["steps"], figures["curves"]])
    box.update_task, box.update_scenario = on_task, on_scenario
    return box


def _catalog_controls(sc, n: int, strategies: list[str], models) -> dict:
    """The catalog explorer's controls, set to the scenario's values."""
    import ipywidgets as W

    from ..core.choices import CACHING
    from ..providers.prices import load_prices

    # The models of providers toolsurvey has rules for (LiteLLM's file prices thousands more).
    known = sorted(m for m, p in load_prices(sc.price_file, overrides=sc.prices).items()
                   if p.provider in ("anthropic", "openai", "google"))
    models = list(models or dict.fromkeys([sc.model, *known]))
    return {
        "visible": W.IntSlider(value=min(n, sc.visible or 12), min=1, max=n, description="visible tools",
                               continuous_update=False, style={"description_width": "initial"}),
        "strategy": W.Dropdown(options=strategies, value=sc.strategy if sc.strategy in strategies else strategies[0],
                               description="strategy"),
        "model": W.Dropdown(options=models, value=sc.model, description="model"),
        "steps": W.IntSlider(value=round(sc.steps.expected()), min=1, max=40, description="steps",
                             continuous_update=False),
        # "explicit" (a stored cache) exists only for some providers: offered when the scenario uses it
        "caching": W.Dropdown(options=[c for c in CACHING if c != "explicit" or sc.caching == c],
                              value=sc.caching, description="caching"),
    }


def _run_summary(run) -> str:
    """The catalog explorer's line about the chosen task (HTML)."""
    s = run.summary
    return (f"<b>{html.escape(str(s['strategy']))}</b>, {s['mean_visible']:.1f} tools visible on average: "
            f"{s['tool_tokens_per_request']:,.0f} tool tokens per request, "
            f"wrong-tool rate {s['wrong_rate']:.1%}, success {s['success']:.1%}, "
            f"{money(s['cost_per_completed_task'])} per completed task")


def description_explorer(reg, scenario=None, *, band=None, lengths=range(0, 401, 10), target=None):
    """Target description length and the accuracy assumption: the description-length histogram
    against the band, and tokens per request vs cost per completed task as descriptions grow.

    Raises InputError (from the simulation) for an unknown model or a bad scenario.
    """
    _require()
    import ipywidgets as W
    import plotly.graph_objects as go

    from ..advice.thresholds import load_config
    from ..measuring.footprint import footprint
    from ..model.scenario import Scenario
    from ..model.sweeps import description_sweep
    from .charts.catalog import description_lengths, description_tradeoff

    sc = scenario or Scenario()
    table = footprint(reg, encoding=sc.encoding, render="json" if sc.render == "auto" else sc.render)
    cfg = load_config()["description"]
    band = band or (cfg["min_tokens"], cfg["max_tokens"])
    lengths = list(lengths)
    controls = _description_controls(sc, max(len(reg), 1), band, lengths, target)

    def grid():
        c = controls
        s = dataclasses.replace(sc, visible=c["visible"].value, accuracy=c["accuracy"].value,
                                wrong_call_steps=c["wrong_call_steps"].value)
        return description_sweep(table, s, lengths, effect=None if c["effect"].value else False)

    state = {"grid": grid()}
    target = controls["target"].value
    figures = {"lengths": go.FigureWidget(description_lengths(table, band=band, target=target)),
               "tradeoff": go.FigureWidget(description_tradeoff(state["grid"], target=target))}

    def on_target() -> None:
        t = controls["target"].value
        refresh(figures["lengths"], description_lengths(table, band=band, target=t))
        refresh(figures["tradeoff"], description_tradeoff(state["grid"], target=t))

    def on_assumption() -> None:
        state["grid"] = grid()
        on_target()

    _observe(controls, ("target",), on_target)
    _observe(controls, ("visible", "accuracy", "wrong_call_steps", "effect"), on_assumption)
    note = W.HTML("Both effects are assumptions: the catalog-size curve (wrong calls and success against "
                  "visible tools) and the description effect, anchored on one measured rewrite (16% to 7% "
                  "wrong calls); beyond 150 tokens nothing was measured, so longer descriptions only cost.")
    box = _box(controls, figures, [controls["target"], W.HBox([controls["visible"], controls["wrong_call_steps"]]),
                                    controls["accuracy"], controls["effect"], note, figures["lengths"],
                                    figures["tradeoff"]])
    box.update_target, box.update_assumption = on_target, on_assumption
    return box


def _description_controls(sc, n: int, band, lengths: list[int], target) -> dict:
    """The description explorer's controls: the target length and the assumptions' switches."""
    import ipywidgets as W

    return {
        "target": W.IntSlider(value=int(band[1] if target is None else target), min=min(lengths), max=max(lengths), step=5,
                              description="target description tokens", continuous_update=False,
                              style={"description_width": "initial"}, layout={"width": "420px"}),
        "visible": W.IntSlider(value=min(n, sc.visible or n), min=1, max=n, description="visible tools",
                               continuous_update=False, style={"description_width": "initial"}),
        "accuracy": W.Checkbox(value=sc.accuracy, description="accuracy effect of catalog size (Interview Reference curve)",
                               indent=False, layout={"width": "480px"}),
        "wrong_call_steps": W.IntSlider(value=sc.wrong_call_steps, min=0, max=5, description="steps per wrong call",
                                        continuous_update=False, style={"description_width": "initial"}),
        "effect": W.Checkbox(value=True, description="description effect: fuller descriptions, fewer wrong calls "
                             "(Interview Reference rewrite, assumptions/description_effect.toml)", indent=False,
                             layout={"width": "640px"}),
    }


def response_explorer(*sources: Any, tool: str | None = None, cap: int = 25_000, encoding: str | None = None,
                      top: int = 15):
    """Field checkboxes, string truncation, list cap and serialization for one tool's results:
    cost by field and each result before/after the recipe against `cap`.

    Raises InputError for unreadable sources or when `tool` has no results.
    """
    _require()
    import ipywidgets as W
    import plotly.graph_objects as go

    from ..measuring.responses import field_costs, rank_fields
    from ..measuring.trimming.pipeline import trim_many
    from .charts import responses as charts

    tool, picked, tokens_before = _one_tools_results(sources, tool, cap, encoding)
    costs = field_costs(*picked, encoding=encoding)
    fields = rank_fields(costs)["path"].tolist()
    controls = _response_controls(fields)
    summary = W.HTML()

    def trimmed():
        """The recipe the controls say, applied: (recipe, tokens after, steps); the summary line follows."""
        kept = [f for f, box in controls["fields"].items() if box.value]
        r = {"keep": kept if len(kept) < len(fields) else None, "truncate": controls["truncate"].value,
             "max_items": controls["max_items"].value, "serialize": controls["serialize"].value}
        after, steps, warnings = trim_many(picked, encoding=encoding, **r)
        summary.value = (f"<b>{html.escape(tool)}</b>: {sum(tokens_before):,} → {sum(after):,} tokens over "
                         f"{len(after)} results" + "".join(f"<br>{html.escape(w)}" for w in warnings))
        return r, after, steps

    r, after, steps = trimmed()
    figures = {"fields": go.FigureWidget(charts.field_costs(rank_fields(costs, keep=r["keep"] or fields), top=top)),
               "results": go.FigureWidget(charts.trim_before_after(tokens_before, after, cap=cap)),
               "steps": go.FigureWidget(charts.trim_steps(steps))}

    def on_change() -> None:
        r, after, steps = trimmed()
        refresh(figures["fields"], charts.field_costs(rank_fields(costs, keep=r["keep"] or fields), top=top))
        with figures["results"].batch_update():  # same bars and cap line: only the trimmed sizes change
            figures["results"].data[1].y = after
            figures["results"].layout.title.text = charts.trim_title(tokens_before, after)
        refresh(figures["steps"], charts.trim_steps(steps))

    for box in controls["fields"].values():
        box.observe(lambda _c: on_change(), names="value")
    _observe(controls, ("truncate", "max_items", "serialize"), on_change)
    checks = W.GridBox(list(controls["fields"].values()),
                       layout=W.Layout(grid_template_columns="repeat(4, 230px)"))
    box = _box(controls, figures, [W.HTML("<b>keep fields</b> (untick to drop)"), checks,
                                    W.HBox([controls["truncate"], controls["max_items"], controls["serialize"]]),
                                    summary, figures["fields"], figures["results"], figures["steps"]])
    box.update = on_change
    return box


def _one_tools_results(sources, tool: str | None, cap: int, encoding: str | None) -> tuple[str, list, list[int]]:
    """(tool, its results, their tokens): `tool`, or the one whose results hold the most tokens.

    Raises InputError when the sources hold no results, or none of `tool`."""
    from ..errors import InputError
    from ..inputs.payload_sources import read_payloads
    from ..measuring.responses import measure_responses

    payloads, _ = read_payloads(*sources)
    if not payloads:
        raise InputError("response_explorer: the sources hold no results")
    before = measure_responses(*payloads, encoding=encoding, cap=cap)
    tool = tool or str(before.groupby("tool", sort=False)["tokens"].sum().idxmax())
    picked = [p for p, t in zip(payloads, before["tool"], strict=True) if t == tool]
    if not picked:
        raise InputError(f"response_explorer: no results for tool {tool!r}; found {', '.join(sorted(set(before['tool'])))}")
    return tool, picked, before.loc[before["tool"] == tool, "tokens"].tolist()


def _response_controls(fields: list[str]) -> dict[str, Any]:
    """A checkbox per field (all ticked), and the truncation, list cap and serialization choices."""
    import ipywidgets as W

    from ..core.choices import SERIALIZATIONS

    return {
        "fields": {f: W.Checkbox(value=True, description=f, indent=False, layout={"width": "220px"}) for f in fields},
        "truncate": W.Dropdown(options=TRUNCATE_CHOICES, value=None, description="truncate strings"),
        "max_items": W.Dropdown(options=LIST_CAP_CHOICES, value=None, description="list cap"),
        "serialize": W.Dropdown(options=list(SERIALIZATIONS), value="json", description="serialize"),
    }
