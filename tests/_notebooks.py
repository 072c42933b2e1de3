"""Running notebooks in tests: a real Jupyter kernel, and parameters injected after the cell tagged
`parameters` (papermill-style). Shared by the notebook tests of every layer."""

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


def execute(nb, **options):
    """Run `nb` in a fresh kernel with notebooks/ as working directory (`options`: more NotebookClient
    settings); fail with the cell's error."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    client = NotebookClient(nb, timeout=TIMEOUT, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOKS)}}, **options)
    try:
        client.execute()
    except CellExecutionError as e:
        pytest.fail(f"a cell failed:\n{e}", pytrace=False)
    return nb
