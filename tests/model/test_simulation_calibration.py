"""`Scenario.calibration` / `simulate --calibration`: the tool table is scaled by a calibration file."""

import json

import pytest

from toolsurvey import Registry, Tool, footprint
from toolsurvey.errors import InputError
from toolsurvey.measuring.calibration import CAL_PARTS
from toolsurvey.model.scenario import Scenario
from toolsurvey.model.simulate import simulate


def _calibration(tmp_path, ratio):
    cal = {"toolsurvey_calibration": 1, "provider": "anthropic", "model": "claude-sonnet-4-5",
           "date": "2026-11-29", "encoding": "o200k_base", "render": "json",
           "parts": {p: {"offline": 100, "exact": int(100 * ratio), "ratio": ratio} for p in CAL_PARTS},
           "tools": {"offline": 100, "exact": int(100 * ratio), "ratio": ratio},
           "overhead": {"offline": 0, "exact": 0, "method": "test"}}
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(cal))
    return path


REG = Registry.from_tools([
    Tool("lookup_customer", "Look up a customer by id or email. Returns name and plan.",
         {"type": "object", "properties": {"id": {"type": "string", "description": "C-12345 or email"}}}),
    Tool("list_orders", "List a customer's orders, newest first.", {"type": "object", "properties": {}}),
])


def test_a_ratio_of_two_doubles_the_tool_definitions_per_task(tmp_path):
    sc = Scenario(model="claude-sonnet-4-5", steps=5, accuracy=False)
    plain = simulate(REG, sc).summary
    scaled = simulate(REG, sc, calibration=str(_calibration(tmp_path, 2.0))).summary
    per_request = int(footprint(REG).query("kind == 'tool'")["tokens"].sum())
    assert plain["tool_tokens_per_task"] == per_request * 5
    assert scaled["tool_tokens_per_task"] == 2 * per_request * 5


def test_the_calibration_is_listed_with_the_assumptions(tmp_path):
    path = str(_calibration(tmp_path, 1.5))
    run = simulate(REG, Scenario(steps=3), calibration=path)
    assert run.assumptions["calibration"] == path


def test_a_file_that_is_not_a_calibration_is_refused(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(InputError, match="not a toolsurvey calibration file"):
        simulate(REG, Scenario(steps=3), calibration=str(bad))


def test_cli_accepts_calibration(tmp_path, cli, write_json):
    reg = write_json({"tools": [t.to_mcp() for t in REG]})
    code, out, err = cli("simulate", reg, "--steps", "4", "--no-accuracy", "--format", "json",
                         "--calibration", _calibration(tmp_path, 2.0))
    assert code == 0, err
    doc = json.loads(out)
    assert doc["assumptions"]["calibration"].endswith("cal.json")
    code, out2, _ = cli("simulate", reg, "--steps", "4", "--no-accuracy", "--format", "json")
    assert json.loads(out)["rows"][0]["tool_tokens_per_task"] == 2 * json.loads(out2)["rows"][0]["tool_tokens_per_task"]
