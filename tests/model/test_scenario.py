"""A Scenario's files are read once, when it is made (issue 36, "inputs resolved at the edge"): a path
becomes a value (phases, accuracy curve, calibration, prices), the value carries its source, and
no model module opens a file."""

from __future__ import annotations

import ast
import dataclasses
import json

import pytest
from conftest import ROOT

import toolsurvey as ts
from toolsurvey.inputs.scenario_files import PriceFile
from toolsurvey.measuring.calibration import CAL_PARTS, Calibration
from toolsurvey.model.accuracy import AccuracyCurve
from toolsurvey.model.scenario import Phases

PHASES = """version = 1
overflow = "cycle"
[[phases]]
name = "look"
tools = ["get_*"]
steps = 2
[[phases]]
name = "act"
tools = ["set_*"]
steps = 1
"""
CURVE = ('source = "our eval, 2026-11-01"\nas_of = "2026-11-01"\n[[points]]\nvisible = 0\nwrong = 0\nsuccess = 1\n'
         '[[points]]\nvisible = 100\nwrong = 0.5\nsuccess = 0.5\n')
PRICES = '[models.acme-1]\ninput = 2.0\noutput = 8.0\ncache_write = 2.5\ncache_read = 0.2\n' \
         'context_window = 100000\nmin_cache_tokens = 0\nsource = "acme price page"\nas_of = "2026-11-01"\n'
AVERAGE = {"tool_tokens": 10, "registry_size": 50, "steps": 3, "system_prompt_tokens": 100}


def _files(tmp_path):
    (tmp_path / "phases.toml").write_text(PHASES)
    (tmp_path / "curve.toml").write_text(CURVE)
    (tmp_path / "prices.toml").write_text(PRICES)
    return tmp_path / "phases.toml", tmp_path / "curve.toml", tmp_path / "prices.toml"


def test_each_path_is_read_when_the_scenario_is_made_and_never_again(tmp_path):
    phases, curve, prices = _files(tmp_path)
    sc = ts.Scenario(model="acme-1", strategy="phases", phases=str(phases), accuracy_curve=str(curve),
                     price_file=str(prices), **AVERAGE)
    for f in (phases, curve, prices):
        f.unlink()  # from here on, a read would fail
    assert [(p.name, p.tools, p.steps) for p in sc.phase_list()] == [("look", ("get_*",), 2), ("act", ("set_*",), 1)]
    c = sc.curve()
    assert (c.visible, c.wrong, c.success, c.source) == ((0.0, 100.0), (0.0, 0.5), (1.0, 0.5), "our eval, 2026-11-01")
    p = sc.price_table()["acme-1"]
    assert (p.input, p.output, p.source) == (2.0, 8.0, "acme price page")
    # A what-if carries the values on: nothing is read again. 50 visible tools: the curve's line halfway.
    run = ts.simulate(None, sc, steps=4, strategy="all")
    assert run.assumptions["price"]["input"] == 2.0 and run.assumptions["accuracy_curve"]["source"] == "our eval, 2026-11-01"
    assert run.summary["wrong_rate"] == pytest.approx(0.25)


def test_the_values_remember_their_files_and_print_as_them(tmp_path):
    phases, curve, prices = _files(tmp_path)
    sc = ts.Scenario(strategy="phases", phases=phases, accuracy_curve=str(curve), price_file=str(prices), **AVERAGE)
    assert isinstance(sc.phases, Phases) and sc.phases.source == str(phases)
    assert isinstance(sc.accuracy_curve, AccuracyCurve) and sc.accuracy_curve.file == str(curve)
    assert isinstance(sc.price_file, PriceFile) and str(sc.price_file) == str(prices)
    a = sc.assumptions()
    assert (a["phases"], a["accuracy_curve"], a["price_file"]) == (str(phases), str(curve), str(prices))
    # the curve is a value: its points and its source, for an output to cite
    assert sc.curve().as_dict()["points"][1] == {"visible": 100.0, "wrong": 0.5, "success": 0.5}
    # made again from the same files: equal
    assert sc == ts.Scenario(strategy="phases", phases=phases, accuracy_curve=str(curve), price_file=str(prices),
                             **AVERAGE)


def test_a_calibration_path_becomes_a_calibration(tmp_path):
    cal = {"toolsurvey_calibration": 1, "provider": "anthropic", "model": "claude-sonnet-4-5",
           "date": "2026-11-29", "encoding": "o200k_base", "render": "json",
           "parts": {p: {"offline": 100, "exact": 150, "ratio": 1.5} for p in CAL_PARTS},
           "tools": {"offline": 100, "exact": 150, "ratio": 1.5}, "overhead": {"offline": 0, "exact": 0}}
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(cal))
    sc = ts.Scenario(calibration=str(path))
    path.unlink()
    assert isinstance(sc.calibration, Calibration) and sc.calibration.file == str(path)
    assert sc.calibration.tools["ratio"] == 1.5 and sc.assumptions()["calibration"] == str(path)
    with pytest.raises(ts.InputError, match="calibration must be a calibration file's path or a Calibration"):
        ts.Scenario(calibration=1.5)


def test_a_scenario_file_reads_its_files_once_relative_to_itself(tmp_path):
    _files(tmp_path)
    (tmp_path / "s.toml").write_text('version = 1\nmodel = "acme-1"\nstrategy = "phases"\nphases = "phases.toml"\n'
                                     'accuracy_curve = "curve.toml"\nprice_file = "prices.toml"\n'
                                     'tool_tokens = 10\nregistry_size = 50\n')
    sc = ts.load_scenario(tmp_path / "s.toml")
    for f in ("phases.toml", "curve.toml", "prices.toml"):
        (tmp_path / f).unlink()
    assert sc.overflow == "cycle"  # the phases file's rule
    assert len(sc.phase_list()) == 2 and sc.curve().source == "our eval, 2026-11-01"
    assert ts.simulate(None, dataclasses.replace(sc, steps=5, strategy="all")).assumptions["price"]["output"] == 8.0


def test_a_missing_file_is_one_line_when_the_scenario_is_made(tmp_path):
    with pytest.raises(ts.InputError, match="nowhere.toml"):
        ts.Scenario(strategy="phases", phases=str(tmp_path / "nowhere.toml"))
    with pytest.raises(ts.InputError, match="nowhere.json"):
        ts.Scenario(price_file=str(tmp_path / "nowhere.json"))


READERS = {"read_text", "read_json", "read_toml", "read_bytes", "toml_or_bundled", "bundled_toml", "bundled_text",
           "bundled_bytes", "fetch", "open_input", "input_lines", "input_chunks"}  # core's file and network readers


def test_no_model_module_reads_a_file():
    """The model builds its values from what inputs/ read; it imports no file reader and calls
    load_prices only without a source (the defaults, or a table read at the edge)."""
    found = []
    for path in sorted((ROOT / "toolsurvey" / "model").glob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                found += [f"{path.name} imports {a.name}" for a in node.names if a.name in READERS]
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "load_prices" and node.args:
                found.append(f"{path.name}:{node.lineno} calls load_prices with a source")
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "open":
                found.append(f"{path.name}:{node.lineno} calls open")
    assert found == []


def test_a_price_file_given_to_the_command_is_read_once(cli, tmp_path, monkeypatch):
    """`simulate --prices FILE --samples N` sweeps and then simulates again for the percentiles: the
    file is read once, at the edge (it was read by each before; a URL was fetched twice)."""
    from toolsurvey.inputs import scenario_files

    _, _, prices = _files(tmp_path)
    reads = []
    real = scenario_files.load_prices
    monkeypatch.setattr(scenario_files, "load_prices", lambda source: reads.append(source) or real(source))
    code, out, err = cli("simulate", "--model", "acme-1", "--tool-tokens", "10", "--registry-size", "50",
                         "--steps", "3", "--samples", "20", "--prices", str(prices), "--format", "json")
    assert code == 0, err
    assert reads == [str(prices)] and json.loads(out)["assumptions"]["price_file"] == str(prices)


def test_read_files_reads_each_file_field_once_for_many_scenarios(tmp_path):
    from toolsurvey.model.scenario import read_files

    phases, _, prices = _files(tmp_path)
    changes = read_files({"price_file": str(prices), "phases": phases, "steps": 3})
    prices.unlink()
    phases.unlink()
    assert changes["steps"] == 3 and isinstance(changes["price_file"], PriceFile)
    many = [ts.Scenario(strategy="phases", **changes).changed(model=m) for m in ("acme-1", "gpt-4o")]
    assert all(len(sc.phase_list()) == 2 and "acme-1" in sc.price_table() for sc in many)


def test_the_command_takes_a_phases_file_and_prints_it_as_given(cli):
    """--phases stays a path on the command line's grid (a tuple there would be an axis)."""
    reg, phases = ROOT / "data" / "registries" / "ops_assistant.json", ROOT / "data" / "phases" / "ops_assistant.toml"
    code, out, err = cli("simulate", reg, "--strategy", "phases", "--phases", phases, "--samples", "20",
                         "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["assumptions"]["phases"] == str(phases) and len(doc["rows"]) == 1
    assert doc["assumptions"]["visible_set"] == "phases (investigate x5, act x3, escalate x1; then last)"
