"""Executed notebooks exported with the documented command show their charts, checked in Chromium.

Each notebook runs in a real kernel (_notebooks.execute) without storing widget state, as
`jupyter nbconvert --to html --execute --ExecutePreprocessor.store_widget_state=False` does (and as
JupyterLab saves a notebook by default), is exported with nbconvert's HTML exporter (the `--to html`
default template), and the page is opened in headless Debian Chromium with no network: every cell
that displayed a chart must show a drawn plotly SVG with traces (an explorer's static copy), plotly.js
must be in the page exactly once, every paged table (itables) must draw from the embedded bundle, and
the page must be at most 6 MB (6,000,000 bytes). A full-page screenshot of each export goes to
tests/artifacts/, with its size in bytes.
"""

from __future__ import annotations

import tempfile

import nbformat
import pytest
from _browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, needs_chromium
from _notebooks import PATHS, execute

PLOTLY_MIME = "application/vnd.plotly.v1+json"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
# The bound for one exported notebook, "at most 6 MB" (decimal). Saved widget state (nbconvert
# --execute's default) would add 10-15 MB: the explorers' static copies keep their charts without it.
# plotly.js is 4.8 MB of each export; itables' bundle, gzipped (display.gzipped_bundle), 0.26 MB.
MAX_EXPORT_BYTES = 6_000_000

pytestmark = needs_chromium

# Per exported cell (in order): how many plotly graphs it holds and how many of them drew traces.
DRAWN = """() => [...document.querySelectorAll('.jp-Cell.jp-CodeCell')].map(cell => {
  const graphs = [...cell.querySelectorAll('.js-plotly-plot')];
  const drawn = graphs.filter(gd => gd.data && gd.data.length > 0 && gd.querySelector('svg.main-svg')
    && gd.querySelectorAll('.main-svg .trace, .main-svg .hm, .main-svg .slice').length > 0);
  return [graphs.length, drawn.length];
})"""

# The paged tables (itables) of the page: [how many, how many DataTables drew from the embedded bundle].
PAGED = """() => { const ids = [...document.querySelectorAll('div[id$="_fallback"]')].map(d => d.id.slice(0, -9));
  return [ids.length, ids.filter(id => document.getElementById(id)?.classList.contains('dataTable')).length]; }"""


def chart_cells(nb) -> list[int]:
    """Indexes (among code cells) of the cells that displayed a plotly figure or a widget with charts."""
    return [i for i, c in enumerate(x for x in nb.cells if x.cell_type == "code")
            if any(PLOTLY_MIME in o.get("data", {}) or WIDGET_MIME in o.get("data", {}) for o in c.get("outputs", []))]


@pytest.mark.parametrize("path", PATHS, ids=[p.name for p in PATHS])
def test_exported_notebook_draws_every_chart(path, tmp_path):
    from nbconvert import HTMLExporter
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    done = execute(nbformat.read(path, as_version=4), store_widget_state=False)
    charts = chart_cells(done)
    assert charts, f"{path.name} displays no chart"
    body, _ = HTMLExporter().from_notebook_node(done)
    assert body.count("* plotly.js v") == 1, "plotly.js must be embedded exactly once"
    size = len(body.encode("utf-8"))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"notebook_{path.stem}_export_bytes.txt").write_text(f"{size}\n")
    assert size <= MAX_EXPORT_BYTES, f"{path.name} exports to {size:,} bytes"
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
                page.wait_for_function(f"() => {{ const [n, ok] = ({PAGED})(); return n === ok; }}", timeout=30_000)
            except PlaywrightTimeout:
                pass
            drawn, paged = page.evaluate(DRAWN), page.evaluate(PAGED)
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"notebook_{path.stem}_export.png"), full_page=True)
        finally:
            ctx.close()

    for i in charts:
        graphs, ok = drawn[i]
        assert graphs > 0 and ok == graphs, f"{path.name}: code cell {i} shows {ok} drawn of {graphs} charts"
    assert paged[0] == paged[1], f"{path.name}: {paged[1]} of {paged[0]} paged tables drew"
