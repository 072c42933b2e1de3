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
