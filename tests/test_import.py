"""`import toolsurvey` stays light: no plotly, ipywidgets, httpx or MCP SDK until they are needed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import DATA, ROOT

HEAVY = ["plotly", "ipywidgets", "httpx", "mcp"]

SCRIPT = """
import json, sys
import toolsurvey as ts
after_import = sorted(m for m in {heavy} if m in sys.modules)
table = ts.footprint(ts.load(sys.argv[1]))
after_footprint = sorted(m for m in {heavy} if m in sys.modules)
print(json.dumps([after_import, after_footprint, int(table.tokens.sum())]))
"""


def test_import_and_footprint_do_not_load_heavy_packages():
    code = SCRIPT.format(heavy=HEAVY)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code, str(DATA / "registries" / "support_desk.json")],
                         capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    after_import, after_footprint, total = json.loads(out.stdout)
    assert after_import == []
    assert after_footprint == []
    assert total > 0


def test_every_exported_name_resolves():
    import toolsurvey

    for name in toolsurvey.__all__:
        assert getattr(toolsurvey, name) is not None, name


PARSE_HEAVY = {"pandas", "numpy", "plotly", "sklearn", "scipy", "mcp"}


def _imported(args: list[str]) -> tuple[str, set[str]]:
    """Standard output and the top-level packages a fresh `python -X importtime ARGS` imported."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-X", "importtime", *args],
                         capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    names = {line.split("|")[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}
    return out.stdout, {n.split(".")[0] for n in names}


def test_help_imports_no_heavy_package():
    stdout, top = _imported(["-m", "toolsurvey", "--help"])
    assert "footprint" in stdout and "audit" in stdout
    assert not top & PARSE_HEAVY, sorted(top & PARSE_HEAVY)


def test_version_imports_no_heavy_package():
    # the release and its data's dates come from three TOML files, without the engine
    stdout, top = _imported(["-m", "toolsurvey", "--version"])
    assert stdout.startswith("toolsurvey ") and "accuracy curve: as of" in stdout
    assert not top & PARSE_HEAVY, sorted(top & PARSE_HEAVY)


def test_configuring_every_sub_command_imports_no_heavy_package():
    # Every sub-command's options, parsed: the choices and defaults they show come from light modules.
    code = ("from toolsurvey.cli import build_parser\n"
            "p = build_parser()\n"
            "for argv in (['audit', 'x.json', '--fail-on', 'error'], ['simulate', '--caching', 'prefix'],\n"
            "             ['responses', 'r.json', '--serialize', 'csv'], ['discover', 'http://h/mcp'],\n"
            "             ['convert', 'x.json', '--to', 'mcp'], ['footprint', 'x.json']):\n"
            "    print(p.parse_args(argv).command)\n")
    stdout, top = _imported(["-c", code])
    assert stdout.split() == ["audit", "simulate", "responses", "discover", "convert", "footprint"]
    assert not top & PARSE_HEAVY, sorted(top & PARSE_HEAVY)


def test_footprint_command_imports_no_pandas_or_numpy(tmp_path):
    from _oracle import compact, ntok

    tool = {"name": "get_weather", "description": "Current weather for a city.",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
    path = tmp_path / "one.json"
    path.write_text(json.dumps({"tools": [tool]}))
    for fmt in ("table", "csv", "json"):
        stdout, top = _imported(["-m", "toolsurvey", "footprint", str(path), "--format", fmt])
        assert not top & {"pandas", "numpy"}, (fmt, sorted(top & {"pandas", "numpy"}))
    assert f"{ntok(compact(tool)):,} tokens per request" in _imported(["-m", "toolsurvey", "footprint", str(path)])[0]
