"""`pip install toolsurvey` alone (no extras) runs the CI gate and the report, and asks for the
`discover` extra by name. It installs the built wheel (tests/_dist.py) into one fresh venv (slow: about
two minutes from pip's cache), so it runs in the full suite (`scripts/check.sh`, CI); `-m "not install"`
skips it. Every command runs offline.
"""

from __future__ import annotations

import json

import pytest
from _dist import run
from conftest import DATA, ROOT

pytestmark = pytest.mark.install

NOT_IN_CORE = ["mcp", "psutil", "jupyterlab", "ipywidgets", "anywidget", "notebook", "scikit-learn", "scipy"]


def _run(venv, *args, cwd):
    return run(venv, "toolsurvey", *args, cwd=cwd)


def test_core_install_has_no_notebook_server_and_no_mcp_sdk(wheel_venv, tmp_path):
    out = run(wheel_venv, "python", "-m", "pip", "list", "--format", "json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    installed = {p["name"].lower() for p in json.loads(out.stdout)}
    assert "toolsurvey" in installed
    assert not installed & set(NOT_IN_CORE), sorted(installed & set(NOT_IN_CORE))


def test_core_install_runs_check_and_report(wheel_venv, tmp_path):
    registry = DATA / "registries" / "support_desk.json"
    n_tools = sum(len(s["tools"]) for s in json.loads(registry.read_text(encoding="utf-8"))["servers"].values())

    ok = _run(wheel_venv, "check", registry, "--max-request-tokens", "1000000", "--fail-on", "security", cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    assert f"within budget ({n_tools:,} tools)" in ok.stderr

    over = _run(wheel_venv, "check", registry, "--max-tool-tokens", "1", cwd=tmp_path)
    assert over.returncode == 1, over.stderr
    assert len(over.stdout.splitlines()) == n_tools  # every tool is over a one-token budget

    report = _run(wheel_venv, "report", registry, "-o", tmp_path / "report.html", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<html" in html.lower() and "plotly" in html.lower()  # the charts are embedded


def test_core_install_runs_the_readmes_main_command(wheel_venv, tmp_path):
    # the README's main job: the sample's report with its usage log, scenario and query set (bm25s
    # is in the core); its summary names the measured search quality and the break-even rate
    cmd = (ROOT / "README.md").read_text(encoding="utf-8").split(".venv/bin/toolsurvey report ", 1)[1].split("\n")[0]
    args = [a if a.startswith("-") else (ROOT / a if "/" in a else a) for a in cmd.split()]
    args[args.index("-o") + 1] = tmp_path / "report.html"
    out = _run(wheel_venv, "report", *args, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "measured: the top 5 hold a needed tool for" in " ".join(out.stdout.split())
    assert "saves money only if the search finds the needed tool in at least" in " ".join(out.stdout.split())


def test_discover_without_its_extra_names_the_extra(wheel_venv, tmp_path):
    out = _run(wheel_venv, "discover", "http://127.0.0.1:9/mcp", cwd=tmp_path)
    assert out.returncode == 2
    assert "pip install 'toolsurvey[discover]'" in out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1
