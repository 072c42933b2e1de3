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

from . import controls as C
from .figure_update import refresh, update_field_costs, update_steps, update_trim_steps
from .units import money


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
    summary, quiet = W.HTML(), {"on": False}

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
    _show_task(figures["steps"], summary, run)

    def on_task() -> None:
        _show_task(figures["steps"], summary, task_run())
        v = controls["visible"].value
        with figures["curves"].batch_update():
            figures["curves"].update_shapes(x0=v, x1=v)

    def on_scenario() -> None:
        if not quiet["on"]:  # not while the caching labels follow a new model
            refresh(figures["curves"], curves_fig())
            on_task()

    _observe(controls, ("visible", "strategy"), on_task)
    _observe(controls, ("steps", "caching"), on_scenario)
    # "auto" caching means something else for another provider: its label says what
    _observe(controls, ("model",), lambda: _caching_follows(controls, _prices(sc), quiet, then=on_scenario))
    box = _box(controls, figures, [W.HBox([controls["visible"], controls["strategy"]]),
                                    W.HBox([controls["model"], controls["steps"], controls["caching"]]),
                                    summary, figures["steps"], figures["curves"]])
    box.update_task, box.update_scenario = on_task, on_scenario
    return box


def _show_task(widget, summary, run) -> None:
    """A task's run in the explorer: its per-request chart (the request axis says what wrong calls add)
    and its summary line."""
    update_steps(widget, run.steps)
    widget.layout.xaxis2.title.text = C.request_axis(run.summary, searches=_searches(run.scenario))
    summary.value = C.text(_run_summary(run))


def _caching_follows(controls: dict, prices, quiet: dict, *, then) -> None:
    """Relabel the caching choices for the model now chosen, keeping the chosen mode (`quiet` is on
    meanwhile, so the caching observer does not redraw), then call `then`."""
    from ..core.choices import CACHING

    dropdown, mode = controls["caching"], controls["caching"].value
    provider = getattr(prices.get(controls["model"].value), "provider", "")
    quiet["on"] = True
    try:
        dropdown.options = C.caching_options(provider, CACHING, mode)
        dropdown.value = mode  # setting options picks the first one
    finally:
        quiet["on"] = False
    then()


def _prices(sc) -> dict:
    return sc.price_table()


def _searches(sc) -> int:
    return int(sc.searches) if sc.strategy == "tool_search" else 0


def _catalog_controls(sc, n: int, strategies: list[str], models) -> dict:
    """The catalog explorer's controls, set to the scenario's values."""
    import ipywidgets as W

    from ..core.choices import CACHING

    prices = _prices(sc)
    options = [(m, m) for m in dict.fromkeys([sc.model, *models])] if models else C.model_options(sc.model, prices)
    provider = getattr(prices.get(sc.model), "provider", "")
    return {
        "visible": W.IntSlider(value=min(n, sc.visible or 12), min=1, max=n, description="visible tools",
                               continuous_update=False, style=C.LABEL),
        "strategy": W.Dropdown(options=strategies, value=sc.strategy if sc.strategy in strategies else strategies[0],
                               description="strategy", style=C.LABEL),
        "model": W.Dropdown(options=options, value=sc.model, description="model", style=C.LABEL,
                            layout={"width": "max-content"}),
        "steps": W.IntSlider(value=round(sc.steps.expected()), min=1, max=40, description="steps",
                             continuous_update=False, style=C.LABEL),
        # "explicit" (a stored cache) exists only for some providers: offered when the scenario uses it
        "caching": W.Dropdown(options=C.caching_options(provider, CACHING, sc.caching), value=sc.caching,
                              description="caching", style=C.LABEL, layout={"width": "max-content"}),
    }


def _run_summary(run) -> str:
    """The catalog explorer's line about the chosen task (HTML)."""
    s = run.summary
    return (f"<b>{html.escape(str(s['strategy']))}</b>, {s['mean_visible']:.1f} tools visible on average: "
            f"{s['tool_tokens_per_request']:,.0f} tool tokens per request, "
            f"wrong-tool rate {s['wrong_rate']:.1%}, success {s['success']:.1%}, "
            f"{money(s['cost_per_completed_task'])} per completed task")


def description_explorer(reg, scenario=None, *, band=None, lengths=range(0, 401, 10), target=None, effect=None):
    """Target description length and the accuracy assumption: the description-length histogram
    against the band, and tokens per request vs cost per completed task as descriptions grow.
    `effect`: the description effect used when its switch is on (a path, e.g. a fitted one from
    `eval --fit-descriptions`, or a DescriptionEffect); None: the bundled assumption.

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
        return description_sweep(table, s, lengths, effect=effect if c["effect"].value else False)

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
    note = W.HTML(C.text("Both effects are assumptions: the catalog-size curve (wrong calls and success against "
                  "visible tools) and the description effect, anchored on one measured rewrite (16% to 7% "
                  "wrong calls); beyond 150 tokens nothing was measured, so longer descriptions only cost."
                  if effect is None else
                  "The catalog-size curve is an assumption unless it was measured; the description effect is "
                  f"{_effect_source(effect)}"))
    box = _box(controls, figures, [controls["target"], W.HBox([controls["visible"], controls["wrong_call_steps"]]),
                                    controls["accuracy"], controls["effect"], note, figures["lengths"],
                                    figures["tradeoff"]])
    box.update_target, box.update_assumption = on_target, on_assumption
    return box


def _effect_source(effect) -> str:
    """The description effect's source, as its file or value says (read once more: it is small)."""
    from ..model.accuracy import DescriptionEffect, load_description_effect

    eff = effect if isinstance(effect, DescriptionEffect) else load_description_effect(effect)
    return html.escape(f"{eff.source} ({eff.as_of})" if eff.as_of else eff.source)


def _description_controls(sc, n: int, band, lengths: list[int], target) -> dict:
    """The description explorer's controls: the target length and the assumptions' switches."""
    import ipywidgets as W

    return {
        "target": W.IntSlider(value=int(band[1] if target is None else target), min=min(lengths), max=max(lengths), step=5,
                              description="target description tokens", continuous_update=False,
                              style=C.LABEL, layout={"width": "420px"}),
        "visible": W.IntSlider(value=min(n, sc.visible or n), min=1, max=n, description="visible tools",
                               continuous_update=False, style=C.LABEL),
        "accuracy": C.check("accuracy effect of catalog size (Interview Reference curve)", sc.accuracy),
        "wrong_call_steps": W.IntSlider(value=sc.wrong_call_steps, min=0, max=5, description="steps per wrong call",
                                        continuous_update=False, style=C.LABEL),
        "effect": C.check("description effect: fuller descriptions, fewer wrong calls (Interview Reference "
                          "rewrite, assumptions/description_effect.toml)"),
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

    def recipe() -> dict:
        kept = [f for f, box in controls["fields"].items() if box.value]
        return {"keep": kept if len(kept) < len(fields) else None, "truncate": C.chosen(controls["truncate"].value),
                "max_items": C.chosen(controls["max_items"].value), "serialize": controls["serialize"].value}

    def trimmed(r: dict):
        """The recipe `r` applied: (tokens after, steps); the summary line follows."""
        after, steps, warnings = trim_many(picked, encoding=encoding, **r)
        summary.value = C.text(f"<b>{html.escape(tool)}</b>: {sum(tokens_before):,} → {sum(after):,} tokens over "
                               f"{len(after)} results" + "".join(f"<br>{html.escape(w)}" for w in warnings))
        return after, steps

    r = recipe()
    after, steps = trimmed(r)
    figures = {"fields": go.FigureWidget(charts.field_costs(rank_fields(costs, keep=r["keep"] or fields), top=top,
                                                            every_group=True)),
               "results": go.FigureWidget(charts.trim_before_after(tokens_before, after, cap=cap)),
               "steps": go.FigureWidget(charts.trim_steps(steps))}

    def on_change() -> None:
        r = recipe()
        # First the chart a checkbox is about, which needs no trimming; each chart sends only what changed.
        update_field_costs(figures["fields"], rank_fields(costs, keep=r["keep"] or fields), top=top)
        after, steps = trimmed(r)
        with figures["results"].batch_update():  # same bars and cap line: only the trimmed sizes change
            figures["results"].data[1].y = after
            figures["results"].layout.title.text = charts.trim_title(tokens_before, after)
        update_trim_steps(figures["steps"], steps)

    for box in controls["fields"].values():
        box.observe(lambda _c: on_change(), names="value")
    _observe(controls, ("truncate", "max_items", "serialize"), on_change)
    checks = W.GridBox(list(controls["fields"].values()),
                       layout=W.Layout(grid_template_columns="repeat(auto-fill, minmax(14em, 1fr))", width="100%"))
    box = _box(controls, figures, [W.HTML(C.text("<b>keep fields</b> (untick to drop)")), checks,
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
    """A checkbox per field (all ticked), and the truncation, list cap and serialization choices, each "off"
    or the default to start."""
    import ipywidgets as W

    from ..core.choices import SERIALIZATIONS

    return {
        "fields": {f: C.check(f) for f in fields},
        "truncate": W.Dropdown(options=C.TRUNCATE_CHOICES, value=C.OFF, description="truncate strings", style=C.LABEL),
        "max_items": W.Dropdown(options=C.LIST_CAP_CHOICES, value=C.OFF, description="list cap", style=C.LABEL),
        "serialize": W.Dropdown(options=list(SERIALIZATIONS), value="json", description="serialize", style=C.LABEL),
    }
