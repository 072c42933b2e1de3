"""A result's assumptions show as a short table (what, value, source and date) and stay a plain
dict for code; its warnings show once."""

from __future__ import annotations

import json
import warnings

import pytest
from bs4 import BeautifulSoup
from conftest import ROOT

import toolsurvey as ts

OPS = ROOT / "data" / "registries" / "ops_assistant.json"
USAGE = ROOT / "data" / "usage" / "ops_assistant.jsonl"
PHASES = ROOT / "data" / "phases" / "ops_assistant.toml"
SCENARIO = ROOT / "data" / "scenarios" / "ops_assistant.toml"


@pytest.fixture(scope="module")
def results():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reg = ts.load(OPS)
        return ts.simulate(reg, steps=4), ts.plan(reg, usage=USAGE, phases=PHASES, scenario=SCENARIO)


def _rows(html: str) -> list[list[str]]:
    table = BeautifulSoup(html, "html.parser").find("table")
    assert [th.get_text() for th in table.find("thead").find_all("th")] == ["what", "value", "source and date"]
    return [[td.get_text() for td in tr.find_all("td")] for tr in table.find("tbody").find_all("tr")]


def test_assumptions_show_as_a_short_table_and_stay_a_dict(results):
    run, plan = results
    for a in (run.assumptions, plan.assumptions):
        plain = a.to_dict()
        assert type(plain) is dict and plain == dict(a) and json.loads(json.dumps(plain)) == json.loads(json.dumps(a))
        rows = _rows(a._repr_html_())
        assert 0 < len(rows) <= 30  # about 120 lines of raw dict before
        assert all(len(r) == 3 and r[0] and r[1] for r in rows)
    price = next(r for r in _rows(run.assumptions._repr_html_()) if r[0] == "price")
    assert "$3.00" in price[1] and "2026" in price[2]  # what it costs, and where that comes from and when
    assert repr(run.assumptions).startswith("Assumptions (")


def test_warnings_show_once(results):
    _run, plan = results
    assert plan.warnings and plan.warnings.to_list() == list(plan.warnings)
    assert len(set(plan.warnings)) == len(plan.warnings)
    text = BeautifulSoup(plan._repr_html_(), "html.parser").get_text()
    assert all(text.count(w) == 1 for w in plan.warnings)
    items = BeautifulSoup(plan.warnings._repr_html_(), "html.parser").find_all("li")
    assert [li.get_text() for li in items] == list(plan.warnings)
