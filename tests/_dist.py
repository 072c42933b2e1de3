"""The sdist and the wheel as users get them, and a fresh venv with the wheel installed, shared by the
install tests (tests/test_core_install.py, tests/test_package.py) through conftest's session fixtures.

scripts/check.sh builds them once with scripts/build.sh and names the folder in TOOLSURVEY_DIST; a
test session without it builds them once itself, the same way. The venv's commands run offline: a
proxy on a closed port, empty caches and HOME, and a guard installed in the venv that refuses every
socket connection when TOOLSURVEY_TEST_OFFLINE is set.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLOSED = "http://127.0.0.1:9"  # the discard port: nothing listens there

GUARD = '''"""Installed by tests/_dist.py: with TOOLSURVEY_TEST_OFFLINE set, no socket may connect."""
import os

if os.environ.get("TOOLSURVEY_TEST_OFFLINE"):
    import socket

    def _refuse(*args, **kwargs):
        raise OSError("network blocked by the test (TOOLSURVEY_TEST_OFFLINE)")

    socket.socket.connect = socket.socket.connect_ex = socket.create_connection = _refuse
'''


def project_version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["version"]


def build_dist(folder: Path) -> Path:
    """The folder holding this tree's sdist and wheel: TOOLSURVEY_DIST's, else built into `folder`."""
    given = os.environ.get("TOOLSURVEY_DIST")
    if given:
        return Path(given).resolve()
    out = subprocess.run(["bash", str(ROOT / "scripts" / "build.sh"), str(folder)], capture_output=True,
                         text=True, timeout=1200, env={**os.environ, "PYTHON": sys.executable})
    assert out.returncode == 0, (out.stdout + out.stderr)[-4000:]
    return folder


def artifact(folder: Path, suffix: str) -> Path:
    """The one file of `folder` ending in `suffix`, of this tree's version (a stale build fails here)."""
    found = sorted(folder.glob(f"*{suffix}"))
    assert len(found) == 1, f"expected one *{suffix} in {folder}, found {[p.name for p in found]}"
    assert found[0].name.startswith(f"toolsurvey-{project_version()}"), \
        f"{found[0].name} is not version {project_version()} (pyproject.toml): rebuild with scripts/build.sh"
    return found[0]


def wheel_names(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as z:
        return sorted(z.namelist())


def venv_with(wheel: Path, venv: Path) -> Path:
    """A fresh venv with `wheel` installed (dependencies from pip's configured index and cache) and the
    offline guard; returns the venv."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    out = subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)],
                         capture_output=True, text=True, timeout=1200)
    assert out.returncode == 0, out.stderr[-3000:]
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    (Path(site) / "_toolsurvey_test_offline.py").write_text(GUARD, encoding="utf-8")
    (Path(site) / "_toolsurvey_test_offline.pth").write_text("import _toolsurvey_test_offline\n", encoding="utf-8")
    return venv


def offline_env(home: Path) -> dict[str, str]:
    """The environment of a command run in the venv: no network, an empty HOME and caches, no path to
    this source tree."""
    for name in ("home", "cache", "tiktoken"):
        (home / name).mkdir(parents=True, exist_ok=True)
    proxies = {k: CLOSED for k in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")}
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home / "home"),
            "XDG_CACHE_HOME": str(home / "cache"), "TIKTOKEN_CACHE_DIR": str(home / "tiktoken"),
            "DATA_GYM_CACHE_DIR": str(home / "tiktoken"), "NO_PROXY": "", "no_proxy": "",
            "TOOLSURVEY_TEST_OFFLINE": "1", "LANG": "C.UTF-8", **proxies}


def run(venv: Path, program: str, *args, cwd: Path) -> subprocess.CompletedProcess:
    """Run the venv's `program` (toolsurvey, python) with ARGS, offline, in `cwd` (never this tree:
    `python -m toolsurvey` would import the source package found there)."""
    return subprocess.run([str(venv / "bin" / program), *map(str, args)], capture_output=True, text=True,
                          timeout=600, cwd=cwd, env=offline_env(cwd / ".offline"))
