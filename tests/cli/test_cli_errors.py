"""Bad option values and empty inputs: one line on stderr, exit 2, no usage dump, before any work."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from toolsurvey.cli import main

DESK = str(ROOT / "data" / "registries" / "support_desk.json")
RESULTS = str(ROOT / "data" / "responses" / "list_issues")
AVERAGE = ["--tool-tokens", "100", "--registry-size", "10"]

BAD = [
    (["footprint", DESK, "--render", "bogus"], "invalid choice: 'bogus'"),
    (["footprint", DESK, "--top", "-1"], "--top: expected a whole number 1 or more, found '-1'"),
    (["footprint", DESK, "--model", ""], "--model: expected a name, found an empty string"),
    (["audit", DESK, "--fail-on", "bogus"], "invalid choice: 'bogus'"),
    (["report", DESK, "--top", "0"], "--top: expected a whole number 1 or more, found '0'"),
    (["diff", DESK, DESK, "--top", "x"], "--top: expected a whole number, found 'x'"),
    (["responses", RESULTS, "--by", "field", "--depth", "-1"], "--depth: expected a whole number 1 or more"),
    (["plan", DESK, "--window-days", "0"], "--window-days: expected a number of days > 0 or 'all', found '0'"),
    (["plan", DESK, "--window-days", "nan"], "--window-days: expected a number of days > 0 or 'all', found 'nan'"),
    # 100,000 steps per task would exhaust memory: refused before anything is built.
    (["simulate", *AVERAGE, "--steps", "1-100000"], "--steps: expected values from 1 to 1,000, found '1-100000'"),
    (["simulate", *AVERAGE, "--steps", "0"], "--steps: expected values from 1 to 1,000, found '0'"),
    (["simulate", *AVERAGE, "--visible", "1-20000"], "--visible: at most 10,000 values"),
    (["simulate", *AVERAGE, "--tasks-per-day", "1e400"], "--tasks-per-day: expected a finite number, found '1e400'"),
    (["simulate", *AVERAGE, "--tasks-per-day", "inf"], "--tasks-per-day: expected a finite number, found 'inf'"),
    (["simulate", *AVERAGE, "--tasks-per-day", "-3"], "--tasks-per-day: expected a number above 0, found '-3'"),
    (["simulate", *AVERAGE, "--model", ""], "--model: expected names, found an empty one"),
    (["simulate", *AVERAGE, "--model", "gpt-4o,"], "--model: expected names, found an empty one"),
    (["bogus-command"], "invalid choice: 'bogus-command'"),
]


@pytest.mark.parametrize("argv,message", BAD, ids=[" ".join(a[:1] + a[-2:]) for a, _ in BAD])
def test_bad_option_is_one_line_and_exit_2(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert "usage:" not in err and "Traceback" not in err
    assert err.startswith("toolsurvey") and ": error: " in err and message in err, err
    assert list(tmp_path.iterdir()) == []  # nothing written


def _empty(tmp_path):
    p = tmp_path / "empty.json"
    p.write_text(json.dumps({"tools": []}))
    return str(p)


@pytest.mark.parametrize("command", ["report", "plan"])
def test_empty_registry_is_an_error_for_report_and_plan(command, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _empty(tmp_path)
    assert main([command, path]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip().splitlines() == [
        f"toolsurvey {command}: error: {path}: expected at least one tool, found none; nothing to {command}"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.json"]  # no report.html


def test_empty_registry_is_a_warning_for_footprint(tmp_path, capsys):
    path = _empty(tmp_path)
    assert main(["footprint", path]) == 0
    out, err = capsys.readouterr()
    assert f"warning: {path}: no tools found" in err
    assert out.startswith("0 tools")
