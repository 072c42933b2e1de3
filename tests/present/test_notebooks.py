"""Execute every notebook top to bottom with a real Jupyter kernel, with its defaults and again
pointed at a second registry through its `parameters` cell (papermill-style injection)."""

from __future__ import annotations

import json

import nbformat
import pytest
from conftest import ROOT

NOTEBOOKS = ROOT / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))
OVERRIDES = {"defaults": None, "support_desk": 'registry = "../data/registries/support_desk.json"'}
TIMEOUT = 300  # seconds per cell


def with_parameters(nb, source: str):
    """A copy of `nb` with `source` in a new cell right after the cell tagged `parameters`."""
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    tagged = [i for i, c in enumerate(nb.cells) if "parameters" in c.get("metadata", {}).get("tags", [])]
    if not tagged:
        pytest.fail("no cell tagged 'parameters': every notebook needs one, so that it can be run "
                    "against another registry (tag the cell that sets `registry = ...`)")
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["tags"] = ["injected-parameters"]
    nb.cells.insert(tagged[0] + 1, cell)
    return nb


def execute(nb):
    """Run `nb` in a fresh kernel with notebooks/ as working directory; fail with the cell's error."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    client = NotebookClient(nb, timeout=TIMEOUT, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    try:
        client.execute()
    except CellExecutionError as e:
        pytest.fail(f"a cell failed:\n{e}", pytrace=False)
    return nb


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
