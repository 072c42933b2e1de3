"""Figure tests: the data, labels and units inside each Figure, never pixels."""

import pandas as pd
import plotly.graph_objects as go
import pytest

from toolsurvey import charts
from toolsurvey.measure import PARTS


def _table(rows):
    """A footprint-shaped table written by hand, so expected values are known without the code."""
    full = []
    for server, tool, kind, parts in rows:
        row = {"server": server, "tool": tool, "kind": kind, **dict.fromkeys(PARTS, 0), **parts}
        row["tokens"] = sum(parts.values())
        full.append(row)
    return pd.DataFrame(full)


@pytest.fixture
def table():
    return _table([
        ("files", "read", "tool", {"name": 2, "description": 30, "schema": 20, "structure": 8}),
        ("files", "write", "tool", {"name": 2, "description": 10, "schema": 8}),
        ("web", "search", "tool", {"name": 2, "description": 50, "param_descriptions": 40, "structure": 8}),
        ("web", "(instructions)", "instructions", {"instructions": 15}),
        ("(request)", "(provider overhead)", "overhead", {"overhead": 12}),
    ])


def test_treemap_nests_server_tool_part_and_sums_to_request(table):
    fig = charts.footprint_treemap(table)
    assert isinstance(fig, go.Figure)
    tm = fig.data[0]
    nodes = dict(zip(tm.ids, zip(tm.parents, tm.values, strict=True), strict=True))
    # Servers are roots whose values add up to the whole request (60 + 20 + 100 + 15 + 12).
    roots = {i: v for i, (p, v) in nodes.items() if p == ""}
    assert roots == {"files": 80, "web": 115, "(request)": 12}
    assert nodes["web/search"] == ("web", 100)
    assert nodes["web/search/param_descriptions"] == ("web/search", 40)
    assert nodes["web/(instructions)/instructions"] == ("web/(instructions)", 15)
    # Zero parts are left out rather than drawn as empty boxes.
    assert "files/write/structure" not in nodes
    assert tm.branchvalues == "total"
    assert "207 tokens per request" in fig.layout.title.text


def test_parts_bar_keeps_top_tools_stacked_by_part(table):
    fig = charts.parts_bar(table, top=2)
    assert fig.layout.barmode == "stack"
    assert fig.layout.xaxis.title.text == "tokens per request"
    names = [t.name for t in fig.data]
    assert names == ["name", "description", "schema", "param_descriptions", "structure"]
    desc = next(t for t in fig.data if t.name == "description")
    # Largest tool is drawn last (top of a horizontal bar chart); only tools, never instructions.
    assert list(desc.y) == ["files/read", "web/search"]
    assert list(desc.x) == [30, 50]
    totals = [sum(t.x[i] for t in fig.data) for i in range(2)]
    assert totals == [60, 100]


def test_pareto_cumulative_share_of_tool_tokens(table):
    fig = charts.pareto(table)
    line = fig.data[0]
    assert list(line.x) == [1, 2, 3]
    # Tools only: 100, 60, 20 of 180.
    assert list(line.y) == pytest.approx([100 / 180 * 100, 160 / 180 * 100, 100.0])
    assert "%" in fig.layout.yaxis.title.text and "top N" in fig.layout.xaxis.title.text
    # 55.6% after one tool, 88.9% after two: the top 2 hold 80%.
    assert any("top 2 of 3 tools" in a.text for a in fig.layout.annotations)


def test_charts_accept_a_real_footprint():
    from toolsurvey import Registry, Tool, footprint
    reg = Registry.from_tools([Tool("get_weather", "Weather for a city.", {"type": "object", "properties": {
        "city": {"type": "string", "description": "City name"}}}, server="w"),
        Tool("ping", "Ping.", {"type": "object"}, server="n")])
    t = footprint(reg, render="openai")
    tm = charts.footprint_treemap(t).data[0]
    assert sum(v for v, p in zip(tm.values, tm.parents, strict=True) if p == "") == t["tokens"].sum()
    assert charts.pareto(t).data[0].y[-1] == pytest.approx(100.0)
