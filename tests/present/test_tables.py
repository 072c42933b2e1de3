"""Tables as a notebook shows them: MathJax leaves money alone, headers read as words, numbers carry
their units, columns the same on every row are said once, long tables are cut with a line saying why."""

from __future__ import annotations

import pandas as pd
import pytest
from bs4 import BeautifulSoup
from conftest import ROOT

import toolsurvey as ts
from toolsurvey.present import tables
from toolsurvey.present.display import table_view

OPS = ROOT / "data" / "registries" / "ops_assistant.json"
USAGE = ROOT / "data" / "usage" / "ops_assistant.jsonl"
PHASES = ROOT / "data" / "phases" / "ops_assistant.toml"
SCENARIO = ROOT / "data" / "scenarios" / "ops_assistant.toml"


def _outer(html: str):
    return BeautifulSoup(html, "html.parser").find()


def _no_math(tag) -> bool:
    return {"tex2jax_ignore", "mathjax_ignore"} <= set(tag.get("class", []))


def test_every_rich_view_is_one_block_mathjax_leaves_alone(monkeypatch):
    monkeypatch.setitem(tables.ITABLES, "on", False)
    reg = ts.load(OPS)
    p = ts.plan(reg, usage=USAGE, phases=PHASES, scenario=SCENARIO)
    run = ts.simulate(reg, steps=4)
    views = {"plan": p._repr_html_(), "run": run._repr_html_(), "footprint": ts.footprint(reg)._repr_html_(),
             "findings": ts.audit(reg)._repr_html_(), "table": table_view(ts.footprint(reg))._repr_html_()}
    for name, html in views.items():
        assert _no_math(_outer(html)), name
    # The plan's two dollar amounts, which MathJax would read as one formula, sit inside that block.
    assert views["plan"].count("$") >= 2


def test_styler_headers_read_as_words_and_numbers_carry_units():
    df = pd.DataFrame({"tool": ["a", "b"], "cost_per_task": [0.29444, 0.18], "share": [0.2897, 0.7103],
                       "ratio": [29.680723, 1.0]})
    soup = BeautifulSoup(tables.styler(df).to_html(), "html.parser")
    assert [th.get_text() for th in soup.find("thead").find_all("th")] == ["tool", "cost per task", "share",
                                                                          "times smaller"]
    first = [td.get_text() for td in soup.find("tbody").find("tr").find_all("td")]
    assert first == ["a", "$0.2944", "29.0%", "29.7"]
    assert _no_math(soup.find("table"))


def test_table_view_says_a_column_the_same_on_every_row_once():
    df = pd.DataFrame({"tool": list("abcd"), "server": ["s"] * 4, "tokens": [400, 300, 200, 100]})
    t = table_view(df, caption="Tools")
    assert list(t.data.columns) == ["tool", "tokens"]
    assert t.caption == "Tools (on every row: server s)"
    picked = table_view(df, columns=["tool", "tokens"])
    assert list(picked.data.columns) == ["tool", "tokens"]


@pytest.mark.parametrize("itables_on", [False])
def test_long_table_is_cut_with_a_line_saying_where_the_rest_is(monkeypatch, itables_on):
    monkeypatch.setitem(tables.ITABLES, "on", itables_on)
    df = pd.DataFrame({"tool": [f"t{i}" for i in range(45)], "tokens": range(45)})
    html = table_view(df, rest="tr.sessions holds them all")._repr_html_()
    soup = BeautifulSoup(html, "html.parser")
    assert len(soup.find("tbody").find_all("tr")) == tables.SHOWN_ROWS
    assert "15 more rows (tr.sessions holds them all;" in soup.get_text()
    assert "pip install 'toolsurvey[tables]'" in soup.get_text()
