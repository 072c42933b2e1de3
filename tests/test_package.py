"""The package as users get it: the wheel and the sdist scripts/build.sh makes (tests/_dist.py).

- The wheel holds every file the code opens under the package. The files are found by reading the
  code (the assumption readers' arguments, `resources.files("toolsurvey")` paths, the report's
  templates), not by listing the package's folders, so a file the code needs and the wheel lacks fails.
- The sdist builds the same wheel, file for file and byte for byte.
- The metadata: an SPDX licence with every licence text, classifiers, a URL, no tests in the sdist.
- Installed from the wheel in a fresh venv and offline, `toolsurvey --version` and `python -m
  toolsurvey --help` run (the README's main command: tests/test_core_install.py, in the same venv).
Building takes a minute and the venv about two, so these run in the full suite (`-m "not install"`
skips them).
"""

from __future__ import annotations

import ast
import email.parser
import hashlib
import os
import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from functools import cache
from pathlib import Path

import pytest
from _dist import artifact, project_version, run, wheel_names
from _oracle import expected_provenance, version_lines
from conftest import ROOT

from toolsurvey.core.tokens import SHIPPED

pytestmark = pytest.mark.install

PACKAGE = ROOT / "toolsurvey"
# function -> the position of its argument that names a file in toolsurvey/assumptions/
ASSUMPTION_READERS = {"bundled_bytes": 0, "bundled_text": 0, "bundled_toml": 0, "toml_or_bundled": 1, "curve_doc": 1}
# Where the code builds a package path from a variable, the values it can take: an f-string's
# placeholder in that module -> the names. tokens.py verifies a hash for each encoding it loads.
PLACEHOLDERS = {("core/tokens.py", "name"): sorted(SHIPPED)}
# The readers themselves: they open what their callers name (those calls are read instead).
READERS = {"core/assumptions.py", "inputs/scenario_files.py"}
# `__file__` is used only to find a source tree's pyproject.toml, which is not package data.
USES_FILE = {"core/version.py"}


def _callee(node: ast.Call) -> str:
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _where(rel: str, node: ast.AST) -> str:
    return f"toolsurvey/{rel}:{node.lineno}"


def _assumption_name(arg: ast.expr, rel: str) -> str:
    """The file an assumption reader's argument names: a literal, or a key of a bundled TOML file."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    keys = []
    while isinstance(arg, ast.Subscript) and isinstance(arg.slice, ast.Constant):
        keys.insert(0, arg.slice.value)
        arg = arg.value
    if keys and isinstance(arg, ast.Call) and _callee(arg) == "bundled_toml":
        value = tomllib.loads((PACKAGE / "assumptions" / _assumption_name(arg.args[0], rel)).read_text("utf-8"))
        for key in keys:
            value = value[key]
        return value
    raise AssertionError(f"{_where(rel, arg)}: cannot tell which assumption file this opens; teach test_package.py")


def _package_paths(call: ast.Call, rel: str) -> list[str]:
    """The paths of `resources.files("toolsurvey").joinpath(...)`, f-string placeholders expanded."""
    paths = [""]
    for part in call.args:
        if isinstance(part, ast.Constant):
            paths = [f"{p}/{part.value}" for p in paths]
        elif isinstance(part, ast.JoinedStr):
            names = [v.value.id for v in part.values if isinstance(v, ast.FormattedValue)]
            assert len(names) == 1 and isinstance(part.values[0], ast.FormattedValue) and (rel, names[0]) in PLACEHOLDERS, \
                f"{_where(rel, call)}: cannot tell which files this opens; add its values to PLACEHOLDERS"
            rest = "".join(v.value for v in part.values[1:])
            paths = [f"{p}/{value}{rest}" for p in paths for value in PLACEHOLDERS[(rel, names[0])]]
        else:
            raise AssertionError(f"{_where(rel, call)}: cannot tell which files this opens; teach test_package.py")
    return [p.lstrip("/") for p in paths]


def _is_package_root(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and _callee(node) == "files" and bool(node.args)
            and isinstance(node.args[0], ast.Constant) and node.args[0].value == "toolsurvey")


def _opened_in(rel: str, tree: ast.AST) -> set[str]:
    found: set[str] = set()
    roots = {id(n.func.value) for n in ast.walk(tree) if isinstance(n, ast.Call) and _callee(n) == "joinpath"
             and _is_package_root(n.func.value)}
    template_folders, templates = [], []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "__file__":
            assert rel in USES_FILE, f"{_where(rel, node)}: reads a path beside the code; account for it here"
        if not isinstance(node, ast.Call):
            continue
        name = _callee(node)
        if name in ASSUMPTION_READERS and rel not in READERS:
            found.add("assumptions/" + _assumption_name(node.args[ASSUMPTION_READERS[name]], rel))
        elif _is_package_root(node):
            assert id(node) in roots, f"{_where(rel, node)}: a package path not built with joinpath(); teach test_package.py"
        elif name == "joinpath" and _is_package_root(node.func.value) and rel not in READERS:
            found.update(_package_paths(node, rel))
        elif name == "PackageLoader":
            assert [a.value for a in node.args[:1]] == ["toolsurvey"], _where(rel, node)
            template_folders.append(node.args[1].value)
        elif name == "get_template":
            assert isinstance(node.args[0], ast.Constant), f"{_where(rel, node)}: a template named at run time"
            templates.append(node.args[0].value)
    assert not templates or template_folders, f"toolsurvey/{rel}: templates {templates} from an unknown loader"
    return found | {f"{folder}/{name}" for folder in template_folders for name in templates}


def _with_referenced(paths: set[str]) -> set[str]:
    """The files, plus the templates they include and the licence files they name, recursively."""
    todo, out = list(paths), set()
    while todo:
        path = todo.pop()
        if path in out:
            continue
        out.add(path)
        data = (PACKAGE / path).read_bytes() if (PACKAGE / path).is_file() else b""
        text = data.decode("utf-8", "replace") if not path.endswith((".gz", ".tiktoken")) else ""
        folder = path.rsplit("/", 1)[0]
        todo += [f"{folder}/{n}" for n in re.findall(r"{%-?\s*(?:include|extends|import|from)\s+[\"']([^\"']+)", text)]
        todo += [f"{folder}/{n}" for n in re.findall(r"\b([A-Z][A-Z_]*LICENSE\.txt)\b", text)]
    return out


@cache
def opened_files() -> frozenset[str]:
    """Every file under toolsurvey/ the code opens, as paths relative to the package."""
    found: set[str] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        found |= _opened_in(rel, ast.parse(path.read_text("utf-8"), str(path)))
    return frozenset(_with_referenced(found))


def test_the_scan_finds_the_files_of_every_kind():
    # the scan itself: it finds the readers' files, and refuses a call it cannot resolve
    files = opened_files()
    assert {"encodings/o200k_base.tiktoken", "encodings/cl100k_base.tiktoken", "templates/report.html",
            "assumptions/litellm_prices.json.gz", "assumptions/providers.toml", "assumptions/accuracy.toml",
            "assumptions/LITELLM_LICENSE.txt", "assumptions/english_stop_words.txt",
            "assumptions/SCIKIT_LEARN_LICENSE.txt"} <= files
    with pytest.raises(AssertionError, match="cannot tell which assumption file"):
        _opened_in("x.py", ast.parse("bundled_toml(name)"))
    with pytest.raises(AssertionError, match="cannot tell which files"):
        _opened_in("x.py", ast.parse('resources.files("toolsurvey").joinpath("prompts", f"{kind}.txt")'))


def test_the_wheel_holds_every_file_the_code_opens(dist):
    wheel = artifact(dist, ".whl")
    names = set(wheel_names(wheel))
    missing = sorted(p for p in opened_files() if f"toolsurvey/{p}" not in names)
    assert not missing, f"the wheel lacks files the code opens: {missing} (pyproject.toml [tool.setuptools.package-data])"
    with zipfile.ZipFile(wheel) as z:  # the same bytes as the tree's
        changed = [p for p in opened_files() if z.read(f"toolsurvey/{p}") != (PACKAGE / p).read_bytes()]
    assert not changed


def test_the_wheel_holds_the_package_and_its_metadata_only(dist):
    names = wheel_names(artifact(dist, ".whl"))
    info = f"toolsurvey-{project_version()}.dist-info/"
    assert {n.split("/")[0] + "/" for n in names} == {"toolsurvey/", info}
    licences = {n.removeprefix(info + "licenses/") for n in names if n.startswith(info + "licenses/")}
    assert licences == {"LICENSE", "toolsurvey/assumptions/LITELLM_LICENSE.txt",
                        "toolsurvey/assumptions/SCIKIT_LEARN_LICENSE.txt"}
    sources = sorted(p.relative_to(ROOT).as_posix() for p in PACKAGE.rglob("*.py"))
    assert sorted(n for n in names if n.endswith(".py")) == sources  # every module, no stale one


def _metadata(dist) -> email.message.Message:
    with zipfile.ZipFile(artifact(dist, ".whl")) as z:
        return email.parser.Parser().parsestr(z.read(f"toolsurvey-{project_version()}.dist-info/METADATA").decode())


def test_the_metadata_names_the_licence_urls_and_classifiers(dist):
    meta = _metadata(dist)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    assert tuple(map(int, meta["Metadata-Version"].split("."))) >= (2, 4)  # the first with License-Expression
    assert meta["Name"] == "toolsurvey" and meta["Version"] == project["version"]
    assert meta["License-Expression"] == "MIT AND BSD-3-Clause"
    assert sorted(meta.get_all("License-File")) == ["LICENSE", "toolsurvey/assumptions/LITELLM_LICENSE.txt",
                                                   "toolsurvey/assumptions/SCIKIT_LEARN_LICENSE.txt"]
    assert meta["License"] is None  # the deprecated free-text field
    classifiers = meta.get_all("Classifier")
    assert classifiers == project["classifiers"] and not any(c.startswith("License ::") for c in classifiers)
    assert meta.get_all("Project-URL") and meta["Requires-Python"] == ">=3.11"
    assert meta["Description-Content-Type"] == "text/markdown"
    assert meta.get_payload().strip() == (ROOT / "README.md").read_text("utf-8").strip()


def test_the_sdist_holds_what_builds_the_wheel_and_no_tests(dist):
    with tarfile.open(artifact(dist, ".tar.gz")) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    assert {"pyproject.toml", "README.md", "CHANGELOG.md", "LICENSE", "PKG-INFO"} <= names
    assert not any(n.startswith(("tests/", "bench/", "notebooks/", "data/", "docs/")) for n in names)


def _digests(wheel: Path) -> dict[str, str]:
    with zipfile.ZipFile(wheel) as z:
        return {n: hashlib.sha256(z.read(n)).hexdigest() for n in z.namelist()}


def test_the_sdist_builds_the_same_wheel(dist, tmp_path):
    with tarfile.open(artifact(dist, ".tar.gz")) as t:
        t.extractall(tmp_path / "src", filter="data")
    (src,) = (tmp_path / "src").iterdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path / "out"), str(src)],
                         capture_output=True, text=True, timeout=1200, env=env)
    assert out.returncode == 0, (out.stdout + out.stderr)[-4000:]
    assert _digests(artifact(tmp_path / "out", ".whl")) == _digests(artifact(dist, ".whl"))
    # as scripts/build.sh does for the sdist and the wheel, no warning of any kind
    assert not re.findall(r"^.*(?:(?:^|[^a-z/._-])warn|previously-included).*$", out.stdout + out.stderr, re.I | re.M)


def test_the_installed_wheel_is_the_package_not_this_tree(wheel_venv, tmp_path):
    out = run(wheel_venv, "python", "-c", "import toolsurvey; print(toolsurvey.__file__)", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert Path(out.stdout.strip()).is_relative_to(wheel_venv)


def test_the_installed_commands_run_offline(wheel_venv, tmp_path):
    blocked = run(wheel_venv, "python", "-c", "import socket; socket.create_connection(('127.0.0.1', 9))", cwd=tmp_path)
    assert "network blocked by the test" in blocked.stderr  # the guard is on for every run below
    version = run(wheel_venv, "toolsurvey", "--version", cwd=tmp_path)
    assert version.returncode == 0, version.stderr
    assert version.stdout.splitlines() == version_lines(expected_provenance())
    helped = run(wheel_venv, "python", "-m", "toolsurvey", "--help", cwd=tmp_path)
    assert helped.returncode == 0, helped.stderr
    assert helped.stdout.startswith("usage: toolsurvey ") and "--version" in helped.stdout
    listed = re.findall(r"^    ([a-z-]+)(?: |$)", helped.stdout, re.M)
    assert listed == sorted(p.stem.replace("_", "-") for p in (PACKAGE / "cli").glob("[!_]*.py"))
