"""CLI text tables fit the terminal (100 columns when not one), --wide shows everything, numbers
carry units, and long work shows a progress bar on a terminal only."""

from __future__ import annotations

import contextlib
import io
import json
import os
import pty
import threading

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


def _big_registry(path, n=300):
    tools = [{"name": f"tool_{i}", "description": f"Does thing {i} with the {i % 7} widget " * 3,
              "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}} for i in range(n)]
    path.write_text(json.dumps({"tools": tools}))


def _stderr(argv, monkeypatch, *, terminal: bool) -> str:
    """Run the CLI with standard error on a pseudo-terminal (or a plain file); return what it received.
    The bar's one-second delay is set to 0, so the test does not depend on how fast the machine is."""
    from toolsurvey.cli import _progress

    monkeypatch.setattr(_progress, "DELAY", 0.0)
    monkeypatch.setenv("COLUMNS", "100")
    if not terminal:
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            assert main(argv) == 0
        return err.getvalue()
    parent, child = pty.openpty()
    chunks: list[bytes] = []

    def read():
        while True:
            try:
                data = os.read(parent, 4096)
            except OSError:  # the terminal's other end was closed
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        with open(child, "w", encoding="utf-8") as tty, contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(tty):
            assert main(argv) == 0
    finally:
        reader.join(timeout=60)
        os.close(parent)
    return b"".join(chunks).decode("utf-8", "replace")


def test_audit_shows_a_progress_bar_on_a_terminal_only(tmp_path, monkeypatch):
    reg = tmp_path / "big.json"
    _big_registry(reg)
    argv = ["audit", str(reg), "--format", "json"]
    assert "auditing tools" in (shown := _stderr(argv, monkeypatch, terminal=True)) and "300/300" in shown
    assert "auditing tools" not in _stderr([*argv, "--quiet"], monkeypatch, terminal=True)
    assert "auditing tools" not in _stderr(argv, monkeypatch, terminal=False)


def test_traces_show_a_progress_bar_on_a_terminal_only(monkeypatch):
    import re

    argv = ["traces", str(ROOT / "data" / "traces"), "--format", "json"]
    shown = _stderr(argv, monkeypatch, terminal=True)
    done = re.findall(r"(\d+)/(\d+)", shown)
    assert "reading trace files" in shown and done and done[-1][0] == done[-1][1]  # every file read
    assert "reading trace files" not in _stderr([*argv, "--quiet"], monkeypatch, terminal=True)
    assert "reading trace files" not in _stderr(argv, monkeypatch, terminal=False)
