"""`pip install toolsurvey` alone (no extras) runs the CI gate and the report, and asks for the
`discover` extra by name. It builds one fresh venv from this source tree (slow: about two minutes
from pip's cache), so it runs in the full suite (`scripts/check.sh`, CI); `-m "not install"` skips it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from conftest import DATA, ROOT

pytestmark = pytest.mark.install

NOT_IN_CORE = ["mcp", "psutil", "jupyterlab", "ipywidgets", "anywidget", "notebook", "scikit-learn", "scipy"]


@pytest.fixture(scope="module")
def core_venv(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("core")
    src = tmp / "src"  # a copy, so the build leaves no build/ or egg-info in the worktree
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "toolsurvey", src / "toolsurvey", ignore=shutil.ignore_patterns("__pycache__"))
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    out = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(src)],
                         capture_output=True, text=True, timeout=1200)
    assert out.returncode == 0, out.stderr[-3000:]
    return venv


def _run(venv, *args, cwd):
    return subprocess.run([str(venv / "bin" / "toolsurvey"), *map(str, args)], capture_output=True,
                          text=True, timeout=600, cwd=cwd)


def test_core_install_has_no_notebook_server_and_no_mcp_sdk(core_venv):
    out = subprocess.run([str(core_venv / "bin" / "python"), "-m", "pip", "list", "--format", "json"],
                         capture_output=True, text=True, timeout=120, check=True)
    installed = {p["name"].lower() for p in json.loads(out.stdout)}
    assert "toolsurvey" in installed
    assert not installed & set(NOT_IN_CORE), sorted(installed & set(NOT_IN_CORE))


def test_core_install_runs_check_and_report(core_venv, tmp_path):
    registry = DATA / "registries" / "support_desk.json"
    n_tools = sum(len(s["tools"]) for s in json.loads(registry.read_text(encoding="utf-8"))["servers"].values())

    ok = _run(core_venv, "check", registry, "--max-request-tokens", "1000000", "--fail-on", "security", cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    assert f"within budget ({n_tools:,} tools)" in ok.stderr

    over = _run(core_venv, "check", registry, "--max-tool-tokens", "1", cwd=tmp_path)
    assert over.returncode == 1, over.stderr
    assert len(over.stdout.splitlines()) == n_tools  # every tool is over a one-token budget

    report = _run(core_venv, "report", registry, "-o", tmp_path / "report.html", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<html" in html.lower() and "plotly" in html.lower()  # the charts are embedded


def test_core_install_runs_the_readmes_main_command(core_venv, tmp_path):
    # the README's main job: the sample's report with its usage log, scenario and query set (bm25s
    # is in the core); its summary names the measured search quality and the break-even rate
    cmd = (ROOT / "README.md").read_text(encoding="utf-8").split(".venv/bin/toolsurvey report ", 1)[1].split("\n")[0]
    args = [a if a.startswith("-") else (ROOT / a if "/" in a else a) for a in cmd.split()]
    args[args.index("-o") + 1] = tmp_path / "report.html"
    out = _run(core_venv, "report", *args, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "measured: the top 5 hold a needed tool for" in " ".join(out.stdout.split())
    assert "saves money only if the search finds the needed tool in at least" in " ".join(out.stdout.split())


def test_discover_without_its_extra_names_the_extra(core_venv, tmp_path):
    out = _run(core_venv, "discover", "http://127.0.0.1:9/mcp", cwd=tmp_path)
    assert out.returncode == 2
    assert "pip install 'toolsurvey[discover]'" in out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1
