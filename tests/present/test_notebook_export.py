"""Executed notebooks exported with `jupyter nbconvert --to html` show their charts, checked in Chromium.

Each notebook runs in a real kernel (test_notebooks.execute), is exported with nbconvert's HTML
exporter (the `--to html` default template), and the page is opened in headless Debian Chromium
with no network: every cell that displayed a chart must show a drawn plotly SVG with traces, and
plotly.js must be in the page exactly once. A full-page screenshot of each export goes to tests/artifacts/.
"""

from __future__ import annotations

import tempfile

import nbformat
import pytest
from _browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, needs_chromium
from _notebooks import PATHS, execute

PLOTLY_MIME = "application/vnd.plotly.v1+json"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"

pytestmark = needs_chromium

# Per exported cell (in order): how many plotly graphs it holds and how many of them drew traces.
DRAWN = """() => [...document.querySelectorAll('.jp-Cell.jp-CodeCell')].map(cell => {
  const graphs = [...cell.querySelectorAll('.js-plotly-plot')];
  const drawn = graphs.filter(gd => gd.data && gd.data.length > 0 && gd.querySelector('svg.main-svg')
    && gd.querySelectorAll('.main-svg .trace, .main-svg .hm, .main-svg .slice').length > 0);
  return [graphs.length, drawn.length];
})"""


def chart_cells(nb) -> list[int]:
    """Indexes (among code cells) of the cells that displayed a plotly figure or a widget with charts."""
    return [i for i, c in enumerate(x for x in nb.cells if x.cell_type == "code")
            if any(PLOTLY_MIME in o.get("data", {}) or WIDGET_MIME in o.get("data", {}) for o in c.get("outputs", []))]


@pytest.mark.parametrize("path", PATHS, ids=[p.name for p in PATHS])
def test_exported_notebook_draws_every_chart(path, tmp_path):
    from nbconvert import HTMLExporter
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    done = execute(nbformat.read(path, as_version=4))
    charts = chart_cells(done)
    assert charts, f"{path.name} displays no chart"
    body, _ = HTMLExporter().from_notebook_node(done)
    assert body.count("* plotly.js v") == 1, "plotly.js must be embedded exactly once"
    page_file = tmp_path / f"{path.stem}.html"
    page_file.write_text(body, encoding="utf-8")

    with sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
        ctx = p.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, headless=True,
                                                   args=CHROMIUM_ARGS, viewport={"width": 1280, "height": 900})
        try:
            page = ctx.new_page()
            # No network: an export must not need a CDN to draw.
            page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                       else route.abort())
            page.goto(page_file.as_uri())
            # Wait until every chart cell has drawn all its graphs; on a timeout, the assertions
            # below say which cell did not.
            try:
                page.wait_for_function(f"(cells) => {{ const d = ({DRAWN})(); "
                                       "return cells.every(i => d[i] && d[i][0] > 0 && d[i][0] === d[i][1]); }",
                                       arg=charts, timeout=90_000)
            except PlaywrightTimeout:
                pass
            drawn = page.evaluate(DRAWN)
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"notebook_{path.stem}_export.png"), full_page=True)
        finally:
            ctx.close()

    for i in charts:
        graphs, ok = drawn[i]
        assert graphs > 0 and ok == graphs, f"{path.name}: code cell {i} shows {ok} drawn of {graphs} charts"
