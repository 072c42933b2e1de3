"""Notebook 02 given a measured description sweep and its fitted effect (through its `parameters`
cell): it plots the sweep's measured points with their Wilson intervals, recounted here from the
hand-written log, and its explorer prices the fitted effect and names its source."""

from __future__ import annotations

import json
import math

import nbformat
from _notebooks import NOTEBOOKS, execute, with_parameters
from _oracle import wilson

# (variant, mean tokens shown, outcomes of ten queries that each need tool s/t)
SWEEP = [("none", 0.0, ["right"] * 3 + ["wrong"] * 3 + ["skip"] * 4),
         (10, 12.0, ["right"] * 6 + ["wrong"] * 2 + ["invalid", "skip"]),
         ("full", 30.0, ["right"] * 8 + ["wrong", "skip"])]




def test_notebook_02_plots_the_measured_points_and_prices_the_fitted_effect(tmp_path):
    log = tmp_path / "sweep.jsonl"
    log.write_text("".join(json.dumps({
        "id": f"q{i}", "model": "tiny-model", "repeat": 0, "gold": ["s/t"], "outcome": o, "expected": "s/t",
        "called": "s/t" if o == "right" else "s/u", "args_valid": None, "args_match": None,
        "tools_offered": ["s/t", "s/u"], "description_tokens": label, "description_mean_tokens": mean}) + "\n"
        for label, mean, outs in SWEEP for i, o in enumerate(outs)))
    effect = tmp_path / "effect.toml"
    effect.write_text('source = "measured: tiny-model on your registry, 10 queries, 2026-12-06"\nas_of = "2026-12-06"\n'
                      "[[points]]\ntokens = 0\nwrong = 4.5\nfailure = 3.5\n"
                      "[[points]]\ntokens = 12\nwrong = 3\nfailure = 2\n"
                      "[[points]]\ntokens = 30\nwrong = 1\nfailure = 1\n")
    nb = with_parameters(nbformat.read(NOTEBOOKS / "02_description_length.ipynb", as_version=4),
                         f"eval_file = {str(log)!r}\neffect = {str(effect)!r}")
    done = execute(nb)
    figures = [o["data"]["application/vnd.plotly.v1+json"] for c in done.cells for o in c.get("outputs", [])
               if "application/vnd.plotly.v1+json" in o.get("data", {})]
    measured = [f for f in figures if "Measured: tiny-model" in str(f["layout"].get("title"))]
    assert len(measured) == 1
    traces = {t["name"]: t for t in measured[0]["data"]}
    # wrong calls: (wrong + invalid) of the calls made; accuracy: right of the ten
    expected = {"wrong-call rate": [(3, 6), (3, 9), (1, 9)], "accuracy": [(3, 10), (6, 10), (8, 10)]}
    for name, counts in expected.items():
        t = traces[name]
        assert t["x"] == [0.0, 12.0, 30.0]
        for y, hi, lo, (k, n) in zip(t["y"], t["error_y"]["array"], t["error_y"]["arrayminus"], counts, strict=True):
            low, high = wilson(k, n)
            assert math.isclose(y, 100 * k / n, abs_tol=1e-9)
            assert math.isclose(y + hi, 100 * high, abs_tol=1e-9) and math.isclose(y - lo, 100 * low, abs_tol=1e-9)


def test_notebook_02_without_an_eval_file_says_so():
    done = execute(nbformat.read(NOTEBOOKS / "02_description_length.ipynb", as_version=4))
    text = "".join(o.get("text", "") for c in done.cells for o in c.get("outputs", []) if o.get("output_type") == "stream")
    assert "no eval file: set eval_file to a description-length sweep" in text
    assert "the explorer above uses the bundled assumption" in text


def test_the_explorer_prices_the_effect_given_and_names_its_source(tmp_path):
    import dataclasses
    import warnings

    import ipywidgets as W

    import toolsurvey as ts
    from toolsurvey.present import widgets

    effect = tmp_path / "effect.toml"
    effect.write_text('source = "measured: tiny-<b>model on your registry, 10 queries, 2026-12-06"\nas_of = "2026-12-06"\n'
                      "[[points]]\ntokens = 0\nwrong = 4.5\nfailure = 3.5\n"
                      "[[points]]\ntokens = 30\nwrong = 1\nfailure = 1\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        inputs = widgets.sample_inputs(str(NOTEBOOKS.parent / "data" / "registries" / "ops_assistant.json"))
        reg, sc = inputs["registry"], inputs["scenario"]
        box = widgets.description_explorer(reg, sc, lengths=[0, 15, 30], effect=effect)
        bundled = widgets.description_explorer(reg, sc, lengths=[0, 15, 30])

        def walk(w):
            yield w
            for c in getattr(w, "children", ()):
                yield from walk(c)

        notes = [w.value for w in walk(box) if isinstance(w, W.HTML)]
        assert any("the description effect is measured: tiny-&lt;b&gt;model on your registry" in n for n in notes)
        cost = lambda b: list(next(t for t in b.figures["tradeoff"].data if t.name == "cost per completed task").y)
        c = box.controls
        s = dataclasses.replace(sc, visible=c["visible"].value, accuracy=c["accuracy"].value,
                                wrong_call_steps=c["wrong_call_steps"].value)
        table = ts.footprint(reg, encoding=sc.encoding, render="json" if sc.render == "auto" else sc.render)
        mine = ts.description_sweep(table, s, [0, 15, 30], effect=effect)
    assert cost(box) == list(mine["cost_per_completed_task"])
    assert cost(box) != cost(bundled)
