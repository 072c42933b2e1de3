"""`toolsurvey traces PATH --compare [--cv]`: each session's bill next to the session model's cost."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

import toolsurvey as ts

SAMPLE = ROOT / "data" / "traces" / "claude-code"


def test_compare_prints_the_sessions_and_how_far_the_model_is(cli):
    code, out, err = cli("traces", SAMPLE, "--compare", "--cv", "--format", "json", "-q")
    assert code == 0
    rows = json.loads(out)
    want = ts.compare(ts.load_traces(SAMPLE), cv=True)
    assert [r["session"] for r in rows] == list(want["session"])
    assert rows[-1]["billed"] == pytest.approx(want.iloc[-1]["billed"], rel=1e-9)  # JSON keeps 10 digits
    assert rows[-1]["simulated"] == pytest.approx(want.iloc[-1]["simulated"], rel=1e-9)
    assert "leave one session out" in err and want.attrs["verdict"] in err.replace("\n  ", " ")


def test_compare_as_a_table_says_the_error_per_component(cli):
    code, out, _ = cli("traces", SAMPLE, "--compare", "-q")
    assert code == 0
    assert "fitted to every session: total" in out and "cache read" in out and "(total)" in out


def test_bad_combinations_are_one_line_and_exit_2(cli):
    code, out, err = cli("traces", SAMPLE, "--cv")
    assert code == 2 and "--cv needs --compare" in err and "Traceback" not in err
    one = sorted(SAMPLE.glob("*.jsonl"))[1]
    code, out, err = cli("traces", one, "--compare", "--cv", "-q")
    assert code == 2 and "at least two sessions" in err and len(err.strip().splitlines()) == 1
