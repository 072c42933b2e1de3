"""A real JupyterLab for the browser tests: its own config, data, runtime and settings folders, on
127.0.0.1 with a random port and a fixed token, serving a copy of the notebooks (with `data/` linked
beside them) so that autosave never writes outputs into the repository."""

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
from contextlib import contextmanager
from pathlib import Path

from _browser import ROOT

TOKEN = "toolsurvey-browser-test"


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


def _settings(home: Path) -> None:
    """No news or update checks (the browser must not reach for the internet), and start the
    notebook's kernel without asking which one."""
    settings = home / "settings" / "@jupyterlab"
    (settings / "apputils-extension").mkdir(parents=True)
    (settings / "notebook-extension").mkdir(parents=True)
    (settings / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    (settings / "notebook-extension" / "tracker.jupyterlab-settings").write_text(
        json.dumps({"autoStartDefaultKernel": True}))


@contextmanager
def jupyterlab(tmp: Path):
    """Yields the base URL of a JupyterLab serving `tmp/work` (a copy of notebooks/ beside data/)."""
    work = tmp / "work"
    shutil.copytree(ROOT / "notebooks", work / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    (work / "data").symlink_to(ROOT / "data")
    home = tmp / "jupyter"
    _settings(home)
    env = {**os.environ,
           "JUPYTER_CONFIG_DIR": str(home / "config"), "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
           "JUPYTER_DATA_DIR": str(home / "data"), "IPYTHONDIR": str(home / "ipython"),
           "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    port = _free_port()
    log = (tmp / "lab.log").open("wb")
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
