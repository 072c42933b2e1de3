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
