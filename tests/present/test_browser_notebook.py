"""A real JupyterLab and a real headless Chromium: open notebook 03, run it, move the slider.

The notebooks are copied to a temporary folder (with `data/` linked beside them) so that
JupyterLab's autosave never writes outputs into the repository's notebooks.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from _browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, ROOT, needs_chromium

TOKEN = "toolsurvey-browser-test"

pytestmark = needs_chromium

# The live widgets' plotly graphs (not the static copy an explorer carries for exported notebooks,
# which hides itself once the widget draws), and how many graphs that static copy holds.
LIVE_GRAPHS = """Array.from(document.querySelectorAll('.widget-box .js-plotly-plot, .widget-vbox .js-plotly-plot'))
  .filter(gd => !gd.closest('.toolsurvey-static-copy'))"""
# The plotted numbers of every live graph, read from plotly.js' own data: only once every chart of
# the explorer has drawn (as many live graphs with data as the static copy holds) and the copy is hidden.
GRAPH_DATA = f"""() => {{
  const live = {LIVE_GRAPHS};
  const copies = Array.from(document.querySelectorAll('.toolsurvey-static-copy'));
  const expected = copies.reduce((n, c) => n + c.querySelectorAll('.plotly-graph-div').length, 0);
  const hidden = copies.every(c => getComputedStyle(c).display === 'none');
  if (!live.length || live.length !== expected || !hidden || !live.every(gd => gd.data && gd.data.length)) return null;
  return JSON.stringify(live.map(gd => gd.data.map(t => [t.name, t.x, t.y])));
}}"""
# The notebook's kernel is connected and idle (the toolbar says "idle" before it has connected).
# Every code cell of the notebook has run (its prompt shows an execution count).
ALL_RUN = """() => {
  const prompts = Array.from(document.querySelectorAll('.jp-CodeCell .jp-InputPrompt'));
  return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
}"""
KERNEL_READY = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return !!k && k.connectionStatus === 'connected' && k.status === 'idle';
}"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_ready(url: str, proc: subprocess.Popen, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"jupyter lab exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError(f"jupyter lab did not answer {url} within {timeout}s")


def _stop(proc: subprocess.Popen, base: str) -> None:
    """Ask the server to stop its kernels and exit; then SIGTERM, then SIGKILL its process group.
    (Kernels watch their parent's pid and exit with it.)"""
    try:
        req = urllib.request.Request(f"{base}/api/shutdown?token={TOKEN}", method="POST")
        urllib.request.urlopen(req, timeout=5).close()
        proc.wait(timeout=20)
        return
    except Exception:
        pass
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, sig)
            proc.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass


@pytest.fixture
def lab(tmp_path):
    """JupyterLab on 127.0.0.1 with its own config, data, runtime and settings folders."""
    work = tmp_path / "work"
    shutil.copytree(ROOT / "notebooks", work / "notebooks",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    (work / "data").symlink_to(ROOT / "data")
    home = tmp_path / "jupyter"
    settings = home / "settings" / "@jupyterlab"
    (settings / "apputils-extension").mkdir(parents=True)
    (settings / "notebook-extension").mkdir(parents=True)
    # No news or update checks (the browser must not reach for the internet), and start the
    # notebook's kernel without asking which one.
    (settings / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    (settings / "notebook-extension" / "tracker.jupyterlab-settings").write_text(
        json.dumps({"autoStartDefaultKernel": True}))
    env = {**os.environ,
           "JUPYTER_CONFIG_DIR": str(home / "config"), "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
           "JUPYTER_DATA_DIR": str(home / "data"), "IPYTHONDIR": str(home / "ipython"),
           "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    port = _free_port()
    log = (tmp_path / "lab.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--ServerApp.root_dir={work}", f"--IdentityProvider.token={TOKEN}",
         "--ServerApp.port_retries=0", "--LabApp.expose_app_in_browser=True",
         "--LabApp.extension_manager=readonly", "--allow-root"],
        cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(f"{base}/api/status?token={TOKEN}", proc)
        yield base
    finally:
        _stop(proc, base)
        log.close()


def test_catalog_size_slider_moves_the_plot(lab, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"), executable_path=CHROMIUM, headless=True,
            args=CHROMIUM_ARGS, viewport={"width": 1400, "height": 1000})
        try:
            page = browser.new_page()
            page.goto(f"{lab}/lab/tree/notebooks/03_catalog_size.ipynb?token={TOKEN}")
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
            page.wait_for_function(KERNEL_READY, timeout=90_000)
            # Not awaited: the command's promise settles only when every cell has run.
            page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")

            slider = page.locator(".widget-slider", has_text="visible tools").first
            slider.wait_for(timeout=120_000)
            page.wait_for_function(ALL_RUN, timeout=180_000)
            page.wait_for_function(KERNEL_READY, timeout=60_000)
            page.wait_for_function(GRAPH_DATA, timeout=60_000)
            slider.scroll_into_view_if_needed()
            before = page.evaluate(GRAPH_DATA)
            readout_before = slider.locator(".widget-readout").inner_text()
            output = slider.locator("xpath=ancestor::div[contains(@class, 'jp-OutputArea-output')]").first
            page.screenshot(path=str(ARTIFACTS / "03_catalog_size_before.png"))
            output.screenshot(path=str(ARTIFACTS / "03_catalog_size_explorer_before.png"))

            # Drag the handle the way a user would: from where it is to 85% of the track.
            handle = slider.locator(".noUi-handle")
            track = slider.locator(".noUi-target").bounding_box()
            box = handle.bounding_box()
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.mouse.down()
            page.mouse.move(track["x"] + 0.85 * track["width"], box["y"] + box["height"] / 2, steps=10)
            page.mouse.up()

            # The kernel answers the new value by updating the figures: wait for the readout and the
            # plotted data to change (not for a fixed time), then for the kernel to be idle again.
            page.wait_for_function("([el, was]) => el.textContent.trim() !== was",
                                   arg=[slider.locator(".widget-readout").element_handle(), readout_before.strip()],
                                   timeout=60_000)
            page.wait_for_function(f"() => {{ const d = ({GRAPH_DATA})(); return d !== null && d !== {json.dumps(before)}; }}",
                                   timeout=120_000)
            page.wait_for_function(KERNEL_READY, timeout=120_000)
            after = page.evaluate(GRAPH_DATA)
            readout_after = slider.locator(".widget-readout").inner_text()
            page.screenshot(path=str(ARTIFACTS / "03_catalog_size_after.png"))
            output.screenshot(path=str(ARTIFACTS / "03_catalog_size_explorer_after.png"))
        finally:
            browser.close()

    assert readout_after != readout_before
    assert int(readout_after) > int(readout_before)
    # The same graphs and traces, with different plotted values.
    before_graphs, after_graphs = json.loads(before), json.loads(after)
    assert [[t[0] for t in g] for g in before_graphs] == [[t[0] for t in g] for g in after_graphs]
    changed = [(b[0], b[2], a[2]) for gb, ga in zip(before_graphs, after_graphs, strict=True)
               for b, a in zip(gb, ga, strict=True) if b[2] != a[2]]
    assert changed
