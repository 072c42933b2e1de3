"""The weight of a plain `pip install toolsurvey`: a fresh venv with the core only (no extras).

Run: .venv/bin/python bench/install.py   (about two minutes: builds this tree, installs from pip's cache)
Target (issue 15): the core venv under 250 MB. Prints the venv's size, its package count and the
largest packages, so what a new dependency costs is visible.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _mb(path: Path, bytecode: bool | None = None) -> float:
    """MB of the files under `path`; `bytecode` True: only the .pyc files pip compiled, False: all but those."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink()
               and (bytecode is None or ("__pycache__" in f.parts) == bytecode)) / 1e6


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        for name in ("pyproject.toml", "README.md"):
            shutil.copy(ROOT / name, src / name)
        shutil.copytree(ROOT / "toolsurvey", src / "toolsurvey", ignore=shutil.ignore_patterns("__pycache__"))
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin/python"), "-m", "pip", "install", "-q", str(src)], check=True)
        listed = subprocess.run([str(venv / "bin/python"), "-m", "pip", "list", "--format", "json"],
                                capture_output=True, text=True, check=True).stdout
        site = next(venv.glob("lib/python*/site-packages"))
        sizes = sorted(((_mb(p), p.name) for p in site.iterdir() if p.is_dir()), reverse=True)
        total = _mb(venv)
        own = ("pip", "setuptools", "pkg_resources", "_distutils_hack")
        tools = sum(mb for mb, name in sizes if name.split("-")[0] in own)
        compiled = sum(_mb(p, bytecode=True) for p in site.iterdir() if p.is_dir() and p.name.split("-")[0] not in own)
        print(f"core venv: {total:.0f} MB, {len(json.loads(listed))} packages (goal < 250 MB)")
        print(f"  without the pip and setuptools every venv has: {total - tools:.0f} MB")
        print(f"  of which bytecode pip compiles at install (`pip install --no-compile` skips it; Python "
              f"then writes it only for modules it imports): {compiled:.0f} MB")
        for mb, name in sizes[:10]:
            print(f"  {mb:6.1f} MB  {name}")


if __name__ == "__main__":
    main()
