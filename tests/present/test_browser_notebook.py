"""Every notebook in a real JupyterLab and a real headless Chromium, as a reader sees it.

Each notebook is opened in JupyterLab 4 (a copy, so autosave never touches the repository), run
top to bottom, and checked: no toolsurvey output was typeset by MathJax (no `mjx-container`: money
such as "$0.29 → $0.18" must not become a formula), no output is wider than the notebook panel
(1,200 px window, file browser closed), every widget control holds a value and a label without
invisible characters, nothing logged a console error, and one change of each kind of widget (slider,
dropdown, checkbox) redraws its chart within 300 ms. Screenshots go to tests/artifacts/; with
TOOLSURVEY_DOC_SCREENSHOTS=1 each notebook's first screen is also written to docs/notebooks/.
"""

from __future__ import annotations

import json
import os
import re
import shutil

import pytest
from _browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, ROOT, needs_chromium
from _lab import TOKEN, jupyterlab

pytestmark = needs_chromium

NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
WINDOW = {"width": 1200, "height": 900}
UPDATE_MS = 300  # the bound for one widget change to redraw its chart, on this machine
DOCS = ROOT / "docs" / "notebooks"

# Every code cell of the notebook has run (its prompt shows an execution count).
ALL_RUN = """() => {
  const prompts = Array.from(document.querySelectorAll('.jp-CodeCell .jp-InputPrompt'));
  return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
}"""
# The notebook's kernel is connected and idle (the toolbar says "idle" before it has connected).
KERNEL_READY = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return !!k && k.connectionStatus === 'connected' && k.status === 'idle';
}"""
# The live widgets' plotly graphs (not the static copy an explorer carries for exported notebooks,
# which hides itself once the widget draws) have all drawn, as many as the static copies hold.
LIVE = """Array.from(document.querySelectorAll('.widget-box .js-plotly-plot, .widget-vbox .js-plotly-plot'))
  .filter(gd => !gd.closest('.toolsurvey-static-copy'))"""
WIDGETS_DRAWN = f"""() => {{
  const live = {LIVE};
  const copies = Array.from(document.querySelectorAll('.toolsurvey-static-copy'));
  const expected = copies.reduce((n, c) => n + c.querySelectorAll('.plotly-graph-div').length, 0);
  return live.length === expected && copies.every(c => getComputedStyle(c).display === 'none')
    && live.every(gd => gd.data && gd.data.length && gd.querySelector('.main-svg'));
}}"""
# What the checks read from the page: MathJax output inside outputs, outputs wider than the panel,
# and every widget control's value and label.
MEASURE = """() => {
  const panel = document.querySelector('.jp-NotebookPanel-notebook') || document.querySelector('.jp-Notebook');
  const right = panel.getBoundingClientRect().right;
  const outputs = Array.from(document.querySelectorAll('.jp-OutputArea-output'));
  const wide = outputs.filter(o => o.offsetParent !== null)
    .map(o => ({cell: o.closest('.jp-Cell') ? [...document.querySelectorAll('.jp-Cell')].indexOf(o.closest('.jp-Cell')) : -1,
                scroll: o.scrollWidth, client: o.clientWidth, right: Math.round(o.getBoundingClientRect().right),
                widest: Math.max(0, ...[...o.querySelectorAll('table, .js-plotly-plot, .widget-box, .dataTables_wrapper, .dt-container')]
                                 .filter(e => !e.closest('.toolsurvey-static-copy')).map(e => Math.round(e.getBoundingClientRect().right)))}))
    .filter(o => o.scroll > o.client + 1 || o.right > right + 1 || o.widest > right + 1);
  const controls = Array.from(document.querySelectorAll('.jupyter-widgets.widget-inline-hbox, .toolsurvey-check'))
    .filter(w => !w.closest('.toolsurvey-static-copy') && w.querySelector('select, .widget-readout, input'));
  const widgets = controls.map(w => {
    const select = w.querySelector('select');
    const readout = w.querySelector('.widget-readout');
    const box = w.querySelector('input[type=checkbox]');
    const label = w.querySelector('.widget-label') || w;
    const text = label.innerText;  // what a reader sees (and copies)
    const value = select ? (select.selectedIndex >= 0 ? select.options[select.selectedIndex].textContent : '')
      : readout ? readout.textContent : box ? String(box.checked) : (w.querySelector('input') || {}).value;
    const cut = [...w.querySelectorAll('.widget-label, label, select, .widget-readout, span')]
      .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent);
    return {label: (w.textContent || '').trim(), value: (value || '').trim(),
            invisible: /[\u200b-\u200f\u2060\ufeff]/.test(w.textContent + value), cut};
  });
  return {mathjax: document.querySelectorAll('.jp-OutputArea mjx-container').length, wide,
          panel: Math.round(panel.getBoundingClientRect().width), widgets};
}"""


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    with jupyterlab(tmp_path_factory.mktemp("lab")) as base:
        yield base


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium")), executable_path=CHROMIUM, headless=True,
            args=CHROMIUM_ARGS, viewport=WINDOW)
        try:
            yield ctx
        finally:
            ctx.close()


def _run_notebook(browser, lab, name: str):
    """Open `name`, run every cell, and wait until the kernel is idle and every widget chart drew.
    Returns (page, console errors)."""
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    # A workspace of its own: JupyterLab would otherwise reopen the notebooks earlier pages opened,
    # and the run-all command could reach one of those instead.
    page.goto(f"{lab}/lab/workspaces/{name.removesuffix('.ipynb')}/tree/notebooks/{name}?token={TOKEN}")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    page.wait_for_function(KERNEL_READY, timeout=90_000)
    page.wait_for_function("(name) => window.jupyterapp.shell.currentWidget.context.path.endsWith(name)",
                           arg=name, timeout=30_000)
    page.evaluate("() => window.jupyterapp.shell.collapseLeft()")  # the file browser closed: the panel is the window
    # Not awaited: the command's promise settles only when every cell has run.
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    try:
        page.wait_for_function(ALL_RUN, timeout=480_000)
        page.wait_for_function(KERNEL_READY, timeout=120_000)
        page.wait_for_function(WIDGETS_DRAWN, timeout=60_000)
    except Exception:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"lab_{name.removesuffix('.ipynb')}_stuck.png"))
        raise
    page.wait_for_timeout(1500)  # MathJax typesets outputs after they are added: give it its chance
    return page, errors


def _first_screen(page, name: str) -> None:
    """The notebook as it opens (scrolled to the top), for tests/artifacts and, on request, docs/."""
    page.evaluate("() => { const s = document.querySelector('.jp-WindowedPanel-outer'); if (s) s.scrollTop = 0; }")
    page.wait_for_timeout(300)
    shot = ARTIFACTS / f"lab_{name.removesuffix('.ipynb')}_first_screen.png"
    page.screenshot(path=str(shot))
    if os.environ.get("TOOLSURVEY_DOC_SCREENSHOTS"):
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, DOCS / f"{name.removesuffix('.ipynb')}.png")


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_reads_well_in_jupyterlab(browser, lab, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page, errors = _run_notebook(browser, lab, name)
    try:
        _first_screen(page, name)
        seen = page.evaluate(MEASURE)
        page.screenshot(path=str(ARTIFACTS / f"lab_{name.removesuffix('.ipynb')}_full.png"), full_page=True)
        (ARTIFACTS / f"lab_{name.removesuffix('.ipynb')}.json").write_text(json.dumps({**seen, "errors": errors}, indent=1))
    finally:
        page.close()
    assert seen["mathjax"] == 0, "MathJax typeset toolsurvey output (a $ pair read as a formula)"
    assert seen["wide"] == [], f"outputs wider than the {seen['panel']} px panel: {seen['wide']}"
    assert [w for w in seen["widgets"] if not w["value"] or not w["label"]] == []
    assert [w for w in seen["widgets"] if w["invisible"] or w["cut"]] == []
    assert errors == []


# The plotted numbers of every live graph, read from plotly.js' own data, once every chart of the
# explorers has drawn and the static copies are hidden; null before.
GRAPH_DATA = f"""() => {{
  if (!({WIDGETS_DRAWN})()) return null;
  return JSON.stringify(({LIVE}).map(gd => gd.data.map(t => [t.name, t.x, t.y])));
}}"""
# Start a clock at the reader's next action (pointer up, click, change) and stop it when the plotted
# data of the live graphs differs from `before`: the time from a widget change to its redrawn chart.
WATCH = f"""(before) => {{
  window.__t0 = null; window.__t1 = null;
  const start = () => {{ if (window.__t0 === null) window.__t0 = performance.now(); }};
  for (const e of ['pointerup', 'click', 'change']) document.addEventListener(e, start, {{once: true, capture: true}});
  const tick = () => {{
    const d = ({GRAPH_DATA})();
    if (window.__t0 !== null && d !== null && d !== before) {{ window.__t1 = performance.now(); return; }}
    requestAnimationFrame(tick);
  }};
  requestAnimationFrame(tick);
}}"""


def _timed(page, act) -> tuple[float, str, str]:
    """(ms from the action to the redrawn chart, plotted data before, after) of `act()`."""
    before = page.evaluate(GRAPH_DATA)
    page.evaluate(WATCH, before)
    act()
    page.wait_for_function("() => window.__t1 !== null", timeout=120_000)
    ms = page.evaluate("() => window.__t1 - window.__t0")
    page.wait_for_function(KERNEL_READY, timeout=120_000)
    return ms, before, page.evaluate(GRAPH_DATA)


def _drag(page, slider, share: float) -> None:
    """Drag a slider's handle the way a user would: from where it is to `share` of its track."""
    handle = slider.locator(".noUi-handle")
    track = slider.locator(".noUi-target").bounding_box()
    box = handle.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(track["x"] + share * track["width"], box["y"] + box["height"] / 2, steps=10)
    page.mouse.up()


def _readout(slider) -> str:
    """The slider's readout, once drawn. JupyterLab draws only the cells in view: a widget scrolled back
    to from the last cell, or redrawn after a drag, shows an empty readout for a moment."""
    drawn = slider.locator(".widget-readout", has_text=re.compile(r"\d")).first  # a locator: found again if redrawn
    drawn.wait_for(timeout=30_000)
    return drawn.text_content().strip()  # its text even while JupyterLab has it out of view


def test_catalog_size_slider_and_dropdown_redraw_the_plot(browser, lab):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page, _errors = _run_notebook(browser, lab, "03_catalog_size.ipynb")
    try:
        slider = page.locator(".widget-slider", has_text="visible tools").first
        slider.scroll_into_view_if_needed()
        readout_before = _readout(slider)
        output = slider.locator("xpath=ancestor::div[contains(@class, 'jp-OutputArea-output')]").first
        output.screenshot(path=str(ARTIFACTS / "03_catalog_size_explorer_before.png"))
        # The explorer's charts use the output's full width, as the static charts do.
        widths = page.evaluate(f"() => ({LIVE}).map(gd => [gd.getBoundingClientRect().width, "
                               "gd.closest('.jp-OutputArea-output').clientWidth])")
        slider_ms, before, after = _timed(page, lambda: _drag(page, slider, 0.85))
        readout_after = _readout(slider)
        output.screenshot(path=str(ARTIFACTS / "03_catalog_size_explorer_after.png"))
        strategy = page.locator(".widget-dropdown", has_text="strategy").first.locator("select")
        other = next(v for v in strategy.evaluate("s => [...s.options].map(o => o.value)")
                     if v != strategy.input_value())
        dropdown_ms, _, _ = _timed(page, lambda: strategy.select_option(other))
    finally:
        page.close()
    assert widths and all(w >= 0.9 * room for w, room in widths), widths
    assert int(readout_after) > int(readout_before)
    # The same graphs and traces, with different plotted values.
    before_graphs, after_graphs = json.loads(before), json.loads(after)
    assert [[t[0] for t in g] for g in before_graphs] == [[t[0] for t in g] for g in after_graphs]
    assert [b for gb, ga in zip(before_graphs, after_graphs, strict=True)
            for b, a in zip(gb, ga, strict=True) if b[2] != a[2]]
    (ARTIFACTS / "lab_update_ms_03.json").write_text(json.dumps({"slider": slider_ms, "dropdown": dropdown_ms}))
    assert slider_ms <= UPDATE_MS and dropdown_ms <= UPDATE_MS, (slider_ms, dropdown_ms)


def test_response_trimming_checkbox_redraws_the_plot(browser, lab):
    page, _errors = _run_notebook(browser, lab, "04_response_trimming.ipynb")
    try:
        box = page.locator(".toolsurvey-check input").first
        box.scroll_into_view_if_needed()
        checkbox_ms, before, after = _timed(page, box.click)
    finally:
        page.close()
    assert before != after
    (ARTIFACTS / "lab_update_ms_04.json").write_text(json.dumps({"checkbox": checkbox_ms}))
    assert checkbox_ms <= UPDATE_MS, checkbox_ms


# The text cells of a paged table's first text column, top to bottom, as shown.
COLUMN = """(i) => { const t = document.querySelectorAll('table.dataTable')[0];
  return [...t.querySelectorAll('tbody tr')].map(tr => tr.children[i].textContent); }"""


def test_a_paged_table_sorts_from_its_header_text(browser, lab):
    page, _errors = _run_notebook(browser, lab, "01_footprint.ipynb")
    try:
        table = page.locator("table.dataTable").first
        table.scroll_into_view_if_needed()
        # Click a header's words (not its sort arrow).
        header = table.locator("thead th").nth(1)
        column = header.evaluate("th => th.cellIndex")
        before = page.evaluate(COLUMN, column)
        box = header.bounding_box()
        page.mouse.click(box["x"] + 8, box["y"] + box["height"] / 2)
        page.wait_for_function(f"([i, was]) => JSON.stringify(({COLUMN})(i)) !== was",
                               arg=[column, json.dumps(before)], timeout=10_000)
        after = page.evaluate(COLUMN, column)
        name = header.inner_text()
    finally:
        page.close()
    key = str.casefold
    if all(v.replace(",", "").replace(".", "", 1).isdigit() for v in after):
        key = lambda v: float(v.replace(",", ""))  # noqa: E731
    assert after in (sorted(after, key=key), sorted(after, key=key, reverse=True)), (name, after)
