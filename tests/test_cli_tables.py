"""CLI text tables fit the terminal (100 columns when not one), --wide shows everything, numbers
carry units, and long work shows a progress bar on a terminal only."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

import pytest
from conftest import ROOT

from toolsurvey.cli import main

OPS = str(ROOT / "data" / "registries" / "ops_assistant.json")
SCENARIO = str(ROOT / "data" / "scenarios" / "ops_assistant.toml")
PLAN = ["plan", OPS, "--usage", str(ROOT / "data" / "usage" / "ops_assistant.jsonl"), "--phases",
        str(ROOT / "data" / "phases" / "ops_assistant.toml"), "--scenario", SCENARIO]
COMMANDS = [["audit", OPS], ["footprint", OPS], ["simulate", OPS, "--scenario", SCENARIO, "--steps", "1-4"],
            ["simulate", OPS, "--scenario", SCENARIO], PLAN, ["responses", str(ROOT / "data" / "responses")],
            ["diff", str(ROOT / "data" / "registries" / "support_desk.json"), OPS]]


def run(argv, capsys) -> str:
    main(argv)
    return capsys.readouterr().out


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a[:1] + a[-2:-1]))
def test_default_tables_fit_100_columns(argv, capsys):
    out = run(argv, capsys)
    assert max(len(line) for line in out.splitlines()) <= 100


def test_wide_shows_every_character(capsys):
    findings = json.loads(run(["audit", OPS, "--format", "json"], capsys))
    longest = max((f["evidence"] for f in findings), key=len)
    assert len(longest) > 100
    narrow, wide = run(["audit", OPS], capsys), run(["audit", OPS, "--wide"], capsys)
    assert longest not in narrow and "…" in narrow
    assert longest in wide


def test_csv_and_json_are_not_cut(capsys):
    rows = json.loads(run(["footprint", OPS, "--format", "json"], capsys))
    csv = run(["footprint", OPS, "--format", "csv"], capsys)
    assert all(r["tool"] in csv for r in rows) and "…" not in csv


def test_numbers_carry_units(capsys):
    out = run(PLAN, capsys)
    assert "$-" not in out and "-$" in out  # a saving is -$0.13, not $-0.13
    stages = out[out.index("stages (each simulated):"):]
    assert "$0." in stages  # stage costs in dollars


def test_one_tool_one_server_is_singular(tmp_path, capsys):
    p = tmp_path / "one.json"
    p.write_text(json.dumps([{"name": "a", "description": "b", "inputSchema": {"type": "object"}}]))
    assert run(["footprint", str(p)], capsys).startswith("1 tool in 1 server: ")


def _big_registry(path, n=1500):
    tools = [{"name": f"tool_{i}", "description": f"Does thing {i} with the {i % 7} widget " * 3,
              "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}} for i in range(n)]
    path.write_text(json.dumps({"tools": tools}))


def _stderr_on_a_terminal(argv) -> str:
    """Run the CLI with standard error on a pseudo-terminal; return what the terminal received."""
    parent, child = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "toolsurvey", *argv], stdout=subprocess.DEVNULL,
                            stderr=child, env={**os.environ, "COLUMNS": "100"})
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(parent, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=300)
    os.close(parent)
    return b"".join(chunks).decode("utf-8", "replace")


def test_audit_shows_a_progress_bar_on_a_terminal_only(tmp_path):
    reg = tmp_path / "big.json"
    _big_registry(reg)
    shown = _stderr_on_a_terminal(["audit", str(reg), "--format", "json"])
    assert "auditing tools" in shown and "/1500" in shown
    assert "auditing tools" not in _stderr_on_a_terminal(["audit", str(reg), "--format", "json", "--quiet"])
    piped = subprocess.run([sys.executable, "-m", "toolsurvey", "audit", str(reg), "--format", "json"],
                           capture_output=True, text=True, timeout=300)
    assert "auditing tools" not in piped.stderr
