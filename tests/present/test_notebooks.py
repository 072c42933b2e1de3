"""Execute every notebook top to bottom with a real Jupyter kernel, with its defaults and again
pointed at a second registry through its `parameters` cell (papermill-style injection)."""

from __future__ import annotations

import nbformat
import pytest
from _notebooks import NOTEBOOKS, OVERRIDES, PATHS, execute, with_parameters


@pytest.mark.parametrize("override", list(OVERRIDES))
@pytest.mark.parametrize("path", PATHS, ids=[p.name for p in PATHS])
def test_notebook_runs_top_to_bottom(path, override):
    nb = nbformat.read(path, as_version=4)
    if OVERRIDES[override] is not None:
        nb = with_parameters(nb, OVERRIDES[override])
    done = execute(nb)
    errors = [o for c in done.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert errors == []


@pytest.mark.parametrize("path", PATHS, ids=[p.name for p in PATHS])
def test_notebook_is_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    with_outputs = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
                    and (c.get("outputs") or c.get("execution_count") is not None)]
    assert with_outputs == [], f"{path.name}: clear the outputs of cells {with_outputs} before committing"


def test_footprint_notebook_shows_the_registry_it_was_given():
    nb = with_parameters(nbformat.read(NOTEBOOKS / "01_footprint.ipynb", as_version=4),
                         OVERRIDES["support_desk"])
    done = execute(nb)
    text = "".join(o.get("text", "") for c in done.cells if c.cell_type == "code" for o in c.get("outputs", [])
                   if o.get("output_type") == "stream")
    assert text.startswith("12 tools in 2 servers: ")
    figures = [o for c in done.cells for o in c.get("outputs", [])
               if "application/vnd.plotly.v1+json" in o.get("data", {})]
    assert len(figures) == 3


def _outputs(done) -> tuple[str, list[dict], str]:
    """(stream text, plotly figures, HTML) of an executed notebook."""
    outs = [o for c in done.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    text = "".join(o.get("text", "") for o in outs if o.get("output_type") == "stream")
    figures = [o["data"]["application/vnd.plotly.v1+json"] for o in outs
               if "application/vnd.plotly.v1+json" in o.get("data", {})]
    page = "".join(o.get("data", {}).get("text/html", "") for o in outs)
    return text, figures, page


def test_selection_notebook_shows_the_recorded_eval_and_says_whose_it_is():
    """No model and no eval file: the recorded eval of the sample (data/evals), said to come from a
    model that is not an agent's; the heatmap, the sweep with the default curve, and the A/B drawn."""
    import json

    done = execute(nbformat.read(NOTEBOOKS / "08_selection.ipynb", as_version=4))
    text, figures, _ = _outputs(done)
    assert "the recorded eval of the bundled sample" in text and "not an agent's model" in " ".join(text.split())
    recorded = json.loads((NOTEBOOKS.parent / "data" / "evals" / "ops_assistant.eval.json").read_text())
    heat = next(f for f in figures if f["data"][0]["type"] == "heatmap")
    assert heat["data"][0]["z"] == recorded["confusion"]["counts"]
    curve = next(f for f in figures if any(t.get("name") == "default curve (assumed)" for t in f["data"]))
    dashed = [t for t in curve["data"] if t.get("name") == "default curve (assumed)"]
    assert all(t["line"]["dash"] == "dash" for t in dashed) and dashed[0]["x"] == [6, 12, 25, 40, 63]
    assert any(t.get("name") == "this registry" for f in figures for t in f["data"])  # the A/B
    assert "--description-tokens" in text and "--defer client" in text  # what would draw the two others


def test_selection_notebook_draws_description_and_defer_records(tmp_path):
    import json

    def rec(i, outcome, **extra):
        return {"id": f"q{i}", "query": "<script>x</script>", "gold": ["a/x"], "outcome": outcome, "expected": "a/x",
                "called": "a/x" if outcome == "right" else "none", "tools_offered": ["a/x", "a/y"],
                "args_valid": None, "args_match": None, **extra}

    desc, defer = tmp_path / "desc.jsonl", tmp_path / "defer.jsonl"
    desc.write_text("".join(json.dumps(rec(i, o, description_tokens=n, description_mean_tokens=t)) + "\n"
                            for i, (o, n, t) in enumerate([("right", "full", 30), ("skip", 10, 9), ("right", 10, 9),
                                                           ("skip", "none", 0)])))
    defer.write_text("".join(json.dumps(rec(i, o, defer={"mode": "client", "searched": s, "found_gold": s,
                                                         "extra_requests": 1, "extra_input_tokens": 500})) + "\n"
                             for i, (o, s) in enumerate([("right", True), ("skip", False)])))
    nb = with_parameters(nbformat.read(NOTEBOOKS / "08_selection.ipynb", as_version=4),
                         f"eval_file = [{str(desc)!r}, {str(defer)!r}]")
    text, figures, page = _outputs(execute(nb))
    by_len = next(t for f in figures for t in f["data"] if t.get("name") == "accuracy" and t["type"] == "scatter")
    # at the mean tokens shown: none 0 of 1 right, 10 tokens 1 of 2, full 1 of 1 (percent)
    assert by_len["x"] == [0, 9, 30] and by_len["y"] == [0, 50, 100]
    bars = next(f for f in figures if f["data"][0]["type"] == "bar")
    assert bars["data"][0]["x"] == ["deferred (client)"] and bars["data"][0]["y"] == [0.5]
    assert "deferred (client): 1.00 extra requests, 500 extra input tokens per query" in text
    assert "<script>x" not in page  # the queries (third-party text) are escaped wherever shown


def test_catalog_notebook_prices_with_a_given_curve(tmp_path):
    """With `curve`, every figure uses it and its source is printed; the default is drawn beside it, dashed."""
    curve = tmp_path / "curve.toml"
    curve.write_text('source = "measured: <script>m</script> on your registry, 5 queries, 2026-12-06"\n'
                     'as_of = "2026-12-06"\n[[points]]\nvisible = 5\nwrong = 0.3\nsuccess = 0.5\n'
                     "[[points]]\nvisible = 63\nwrong = 0.6\nsuccess = 0.2\n")
    nb = with_parameters(nbformat.read(NOTEBOOKS / "03_catalog_size.ipynb", as_version=4), f"curve = {str(curve)!r}")
    text, figures, page = _outputs(execute(nb))
    assert "accuracy curve: measured: <script>m</script> on your registry" in text  # a stream: shown as text
    assert "<script>m" not in page and "&lt;script&gt;m" in page  # escaped in the HTML table
    both = next(f for f in figures if any(t.get("name") == "default (assumed)" for t in f["data"]))
    measured = next(t for t in both["data"] if t.get("name") == "measured")
    assert measured["x"] == [5, 63] and measured["y"] == [0.3, 0.6]
