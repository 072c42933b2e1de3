"""The layout holds: layers import one way, no import cycle, small modules and functions, one meaning
for the underscore. A second, independent reading of the import graph beside import-linter's."""

from __future__ import annotations

import ast
import graphlib
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

PKG = ROOT / "toolsurvey"
LAYERS = ["core", "providers", "inputs", "measuring", "model", "advice", "present", "cli"]  # lowest first
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
MAX_ROOT_MODULES = 10


def _modules() -> dict[str, tuple[Path, bool]]:
    out = {}
    for p in PKG.rglob("*.py"):
        parts = list(p.relative_to(ROOT).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_pkg else parts)] = (p, is_pkg)
    return out


MODULES = _modules()


def _imports() -> dict[str, set[tuple[str, str | None]]]:
    """Module -> every (toolsurvey module, imported name or None) it imports, inside functions too."""
    out: dict[str, set[tuple[str, str | None]]] = {}
    for name, (path, is_pkg) in MODULES.items():
        base = name.split(".") if is_pkg else name.split(".")[:-1]
        found = out.setdefault(name, set())
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                found |= {(a.name, None) for a in node.names if a.name.startswith("toolsurvey.")}
            elif isinstance(node, ast.ImportFrom):
                mod = ".".join(base[:len(base) - node.level + 1] + [node.module or ""]).strip(".") \
                    if node.level else (node.module or "")
                if mod == "toolsurvey" or mod.startswith("toolsurvey."):
                    for a in node.names:
                        sub = f"{mod}.{a.name}"
                        found.add((sub, None) if sub in MODULES else (mod, a.name))
    return out


IMPORTS = _imports()


def _layer(module: str) -> int | None:
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else None


def test_every_import_runs_down_the_layers():
    up = sorted(f"{m} -> {t}" for m, targets in IMPORTS.items() for t, _ in targets
                if _layer(m) is not None and _layer(t) is not None and _layer(t) > _layer(m))
    assert not up, "\n".join(up)


def test_no_import_cycle_between_modules():
    graph = {m: {t for t, _ in ts if t in MODULES and t != m and not m.startswith(t + ".")}
             for m, ts in IMPORTS.items()}
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as e:
        pytest.fail(f"import cycle: {' -> '.join(e.args[1])}")


def test_modules_and_functions_are_small():
    big = [f"{p.relative_to(ROOT)}: {n} lines" for p, _ in MODULES.values()
           if (n := len(p.read_text("utf-8").splitlines())) > MAX_MODULE_LINES]
    long = [f"{p.relative_to(ROOT)}:{f.lineno} {f.name}: {f.end_lineno - f.lineno + 1} lines"
            for p, _ in MODULES.values() for f in ast.walk(ast.parse(p.read_text("utf-8")))
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.end_lineno - f.lineno + 1 > MAX_FUNCTION_LINES]
    assert not big + long, "\n".join(big + long)


def test_the_package_root_holds_a_handful_of_modules():
    root = sorted(p.name for p in PKG.glob("*.py"))
    assert len(root) <= MAX_ROOT_MODULES, root


def test_no_module_uses_another_modules_private_names():
    """A leading underscore means private to its module: never imported, never reached through a module."""
    found = sorted(f"{m} imports {t}.{n}" for m, ts in IMPORTS.items() for t, n in ts
                   if n and n.startswith("_") and not n.startswith("__"))
    for name, (path, _) in MODULES.items():
        tree = ast.parse(path.read_text("utf-8"))
        aliases = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                   for a in n.names if f"{_resolve(name, n)}.{a.name}" in MODULES}
        found += [f"{name} uses {n.value.id}.{n.attr}" for n in ast.walk(tree)
                  if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in aliases
                  and n.attr.startswith("_") and not n.attr.startswith("__")]
    assert not found, "\n".join(found)


def _resolve(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    _, is_pkg = MODULES[module]
    base = module.split(".") if is_pkg else module.split(".")[:-1]
    return ".".join(base[:len(base) - node.level + 1] + [node.module or ""]).strip(".")


def test_subpackage_inits_hold_no_code():
    """Importing one module of a layer never loads the rest of it."""
    busy = [str(p.relative_to(ROOT)) for name, (p, is_pkg) in MODULES.items()
            if is_pkg and name != "toolsurvey" and name != "toolsurvey.cli"
            and any(not isinstance(n, ast.Expr) for n in ast.parse(p.read_text("utf-8")).body)]
    assert not busy, busy


# Where a provider's name may be written out: its own package, and the tool-file formats named after it.
PROVIDER_NAMES_ALLOWED = ("toolsurvey.providers", "toolsurvey.inputs.formats")


def _docstrings(tree: ast.AST) -> set[int]:
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}


def test_provider_names_are_written_only_in_providers():
    """Everything about a provider sits in providers/, and other layers ask it: outside it, a string
    constant equal to a provider's name (as its table, its counting endpoint or its label writes it)
    appears only where it names a tool-file format. Docstrings and comments do not count."""
    from toolsurvey.providers.catalog import PROVIDERS

    names = {n for p in PROVIDERS.values() for n in (p.name, p.label, *([p.counting.name] if p.counting else []))}
    assert {"openai", "anthropic", "google", "gemini"} <= names  # the table is read, not empty
    found = []
    for module, (path, _) in MODULES.items():
        if module.startswith(PROVIDER_NAMES_ALLOWED):
            continue
        tree = ast.parse(path.read_text("utf-8"))
        docs = _docstrings(tree)
        found += [f"{path.relative_to(ROOT)}:{n.lineno} {n.value!r}" for n in ast.walk(tree)
                  if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in names
                  and id(n) not in docs]
    assert not found, f"{len(found)} provider names outside providers/ (ask providers.catalog):\n" + "\n".join(found)


def test_import_linter_contracts_are_kept():
    linter = Path(sys.executable).with_name("lint-imports")
    if not linter.exists():
        pytest.skip("import-linter is not installed (pip install -e '.[dev]')")
    out = subprocess.run([str(linter), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-4000:]
