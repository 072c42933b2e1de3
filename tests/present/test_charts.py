"""Figure tests: the data, labels and units inside each Figure, never pixels."""

import pandas as pd
import plotly.graph_objects as go
import pytest

from toolsurvey.measuring.parts import PARTS
from toolsurvey.present.charts.catalog import (
    catalog_size,
    cost_curve,
    cost_heatmap,
    description_lengths,
    description_tradeoff,
)
from toolsurvey.present.charts.footprint import footprint_treemap, pareto, parts_bar
from toolsurvey.present.charts.plan import plan_before_after, plan_stages, plan_waterfall
from toolsurvey.present.charts.responses import field_costs, result_tokens, trim_before_after, trim_steps
from toolsurvey.present.charts.task import request_tokens, step_area


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
    fig = footprint_treemap(table)
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
    fig = parts_bar(table, top=2)
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
    fig = pareto(table)
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
    tm = footprint_treemap(t).data[0]
    assert sum(v for v, p in zip(tm.values, tm.parents, strict=True) if p == "") == t["tokens"].sum()
    assert pareto(t).data[0].y[-1] == pytest.approx(100.0)


# -- description length -----------------------------------------------------------------------------

def test_description_lengths_histogram_band_and_target(table):
    fig = description_lengths(table, band=(20, 40), target=35)
    hist = fig.data[0]
    assert hist.type == "histogram"
    assert sorted(hist.x) == [10, 30, 50]  # tools only, not instructions or overhead
    assert fig.layout.xaxis.title.text == "description tokens per tool"
    assert fig.layout.yaxis.title.text == "tools"
    band = [s for s in fig.layout.shapes if s.type == "rect"][0]
    assert (band.x0, band.x1) == (20, 40)
    assert any("1 of 3 tools" in a.text for a in fig.layout.annotations)  # only read's 30 is inside
    line = [s for s in fig.layout.shapes if s.type == "line"][0]
    assert line.x0 == line.x1 == 35


def test_description_tradeoff_axes_and_target_marker():
    grid = pd.DataFrame({"description_tokens": [0, 50, 100], "tool_tokens_per_request": [10, 20, 30],
                         "cost_per_completed_task": [0.1, 0.2, 0.3]})
    fig = description_tradeoff(grid, target=60)
    tokens, cost, marker = fig.data
    assert list(tokens.y) == [10, 20, 30] and list(cost.y) == [0.1, 0.2, 0.3]
    assert (marker.x[0], marker.y[0]) == (50, 0.2)  # nearest row to 60
    assert fig.layout.yaxis.title.text == "tool tokens per request"
    assert fig.layout.yaxis2.title.text == "cost per completed task (USD)"
    assert fig.layout.xaxis.title.text == "description tokens per tool"


# -- catalog size -------------------------------------------------------------------------------------

@pytest.fixture
def grid():
    rows = []
    for strategy, per_tool in (("all", 100), ("retrieval", 60)):
        for visible, wrong, success in ((6, 0.04, 0.91), (12, 0.09, 0.86), (25, 0.16, 0.77)):
            for steps in (1, 2):
                rows.append({"strategy": strategy, "visible": visible, "steps": steps, "wrong_rate": wrong,
                             "success": success, "tool_tokens_per_request": visible * per_tool,
                             "cost_per_completed_task": steps * visible * per_tool / 1e6 / success})
    return pd.DataFrame(rows)


def test_catalog_size_panels_lines_per_strategy(grid):
    one = grid[grid["steps"] == 1]
    fig = catalog_size(one, marker=12)
    assert len(fig.data) == 4 * 2
    wrong = [t for t in fig.data if t.hovertemplate.endswith("<extra>wrong-tool rate (%)</extra>")]
    assert [t.name for t in wrong] == ["all", "retrieval"]
    assert list(wrong[0].y) == pytest.approx([4, 9, 16])
    tokens = fig.data[0]
    assert list(tokens.x) == [6, 12, 25] and list(tokens.y) == [600, 1200, 2500]
    titles = [a.text for a in fig.layout.annotations]
    assert "cost per completed task (USD)" in titles and "task success (%)" in titles
    assert fig.layout.xaxis.title.text == "visible tools"
    assert [s.x0 for s in fig.layout.shapes] == [12] * 4
    # Legend entries only once per strategy.
    assert sum(bool(t.showlegend) for t in fig.data) == 2


def test_cost_heatmap_pivots_steps_by_visible(grid):
    fig = cost_heatmap(grid[grid["strategy"] == "all"])
    hm = fig.data[0]
    assert list(hm.x) == [6, 12, 25] and list(hm.y) == [1, 2]
    assert hm.z[1][2] == pytest.approx(2 * 25 * 100 / 1e6 / 0.77)
    assert fig.layout.yaxis.title.text == "requests per task (steps)"
    assert fig.data[0].colorbar.title.text == "USD"
    # One cell per swept value: the axis ends at the largest (25), not half a gap past it.
    assert fig.layout.xaxis.type == "category"


def test_step_area_stacks_components_and_cache_states():
    steps = pd.DataFrame({"request": [1, 2, 3], "overhead": [0, 0, 0], "tools": [500, 500, 500],
                          "system": [100, 100, 100], "user": [10, 10, 10], "history": [0, 80, 160],
                          "uncached": [10, 90, 170], "cache_write": [600, 0, 0], "cache_read": [0, 600, 600]})
    fig = step_area(steps)
    names = [t.name for t in fig.data]
    assert names == ["tools", "system", "user", "history", "uncached input", "cache write", "cache read"]
    comp = [t for t in fig.data if t.stackgroup == "component"]
    cache = [t for t in fig.data if t.stackgroup == "cache"]
    # Both stacks add up to the same input per request: 610, 690, 770.
    assert [sum(t.y[i] for t in comp) for i in range(3)] == [610, 690, 770]
    assert [sum(t.y[i] for t in cache) for i in range(3)] == [610, 690, 770]
    assert fig.layout.xaxis2.title.text == "request within the task"


# -- responses ------------------------------------------------------------------------------------------

def test_field_costs_bars_coloured_by_recipe():
    ranked = pd.DataFrame({"tool": ["t"] * 3, "path": ["[].body", "[].user", "[].title"],
                           "tokens": [500, 300, 20], "share": [0.6, 0.36, 0.04],
                           "keep": ["dropped", "part", "kept"]})
    fig = field_costs(ranked, top=2)
    assert [t.name for t in fig.data] == ["part", "dropped"]
    assert {t.name: list(t.x) for t in fig.data} == {"part": [300], "dropped": [500]}
    assert fig.layout.xaxis.title.text == "tokens across all samples"


def test_trim_before_after_and_cap_line():
    fig = trim_before_after([1000, 3000], [100, 200], labels=["a", "b"], cap=2500)
    assert [list(t.y) for t in fig.data] == [[1000, 3000], [100, 200]]
    assert "4,000 → 300 tokens, 13.3x smaller" in fig.layout.title.text
    assert fig.layout.shapes[0].y0 == 2500
    assert fig.layout.yaxis.title.text == "tokens per result"


def test_trim_steps_waterfall():
    steps = [{"step": "as received", "tokens": 1000, "saved": 0},
             {"step": "keep a", "tokens": 300, "saved": 700},
             {"step": "serialize csv", "tokens": 250, "saved": 50}]
    wf = trim_steps(steps).data[0]
    assert list(wf.y) == [1000, -700, -50, 250]
    assert list(wf.measure) == ["absolute", "relative", "relative", "total"]


def test_trim_charts_keep_short_axis_labels_and_a_readable_height():
    paths = [f"data/responses/list_issues/page_{i}_of_the_open_issues_sorted_by_update.json" for i in range(12)]
    fig = trim_before_after([900] * 12, [300] * 12, labels=paths, cap=None)
    short = list(fig.data[0].x)
    assert len(set(short)) == 12 and max(map(len, short)) <= 28
    assert list(fig.data[0].customdata) == paths  # the whole path in the hover text
    assert fig.layout.height >= 450
    steps = [{"step": "as received", "tokens": 1000, "saved": 0},
             {"step": "keep number,title,state,labels,assignees,user,body", "tokens": 400, "saved": 600},
             {"step": "drop empty", "tokens": 400, "saved": 0}]
    fig = trim_steps(steps)
    wf = fig.data[0]
    assert list(wf.x) == ["as received", "keep 7 fields", "drop empty", "after"]
    assert list(wf.text) == ["1,000 tokens", "-600", "saves nothing", "400"]
    assert wf.customdata[1] == steps[1]["step"] and fig.layout.height >= 450


# -- plan -----------------------------------------------------------------------------------------------

def test_plan_before_after_panels_with_units():
    table = pd.DataFrame({"metric": ["tools registered", "wrong-tool selections", "cost per task", "repeated"],
                          "before": [63, 0.21, 0.5, 0.1], "after": [36, 0.04, 0.3, float("nan")],
                          "unit": ["tools", "share", "USD", "share"]})
    fig = plan_before_after(table)
    assert len(fig.data) == 3  # the row without an "after" is left out
    assert list(fig.data[1].y) == pytest.approx([21, 4])  # shares shown in %
    titles = [a.text for a in fig.layout.annotations]
    assert titles == ["tools registered (tools)", "wrong-tool selections (%)", "cost per task (USD)"]


def test_plan_stages_bars():
    stages = pd.DataFrame({"stage": ["before", "after"], "cost_per_completed_task": [0.46, 0.23]})
    fig = plan_stages(stages)
    assert list(fig.data[0].x) == ["before", "after"] and list(fig.data[0].y) == [0.46, 0.23]
    assert fig.layout.yaxis.title.text == "cost per completed task (USD)"


# -- properties ---------------------------------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_part_counts = st.fixed_dictionaries({}, optional={p: st.integers(1, 500) for p in PARTS[:8]})


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), _part_counts.filter(bool)), min_size=1, max_size=12))
def test_treemap_children_add_up_and_pareto_reaches_100(tools):
    table = _table([(server, f"t{i}", "tool", parts) for i, (server, parts) in enumerate(tools)])
    tm = footprint_treemap(table).data[0]
    value = dict(zip(tm.ids, tm.values, strict=True))
    children: dict = {}
    for node, parent in zip(tm.ids, tm.parents, strict=True):
        if parent:
            children.setdefault(parent, []).append(value[node])
    assert all(value[p] == sum(v) for p, v in children.items())
    assert sum(v for v, p in zip(tm.values, tm.parents, strict=True) if p == "") == table["tokens"].sum()
    y = list(pareto(table).data[0].y)
    assert y == sorted(y) and y[-1] == pytest.approx(100.0)


# -- report charts (hand-made tables) ---------------------------------------------------------------

def test_cost_curve_marks_today_and_labels_units():
    grid = pd.DataFrame({"steps": [3, 1, 2], "cost_per_task": [0.3, 0.1, 0.2]})
    fig = cost_curve(grid, x="steps", today=(2, 0.2), today_label="today")
    line, today = fig.data
    assert list(line.x) == [1, 2, 3] and list(line.y) == [0.1, 0.2, 0.3]
    assert (list(today.x), list(today.y), list(today.text)) == ([2], [0.2], ["today"])
    assert fig.layout.xaxis.title.text == "requests per task"
    assert fig.layout.yaxis.title.text == "cost per task attempt (USD)" and fig.layout.yaxis.tickprefix == "$"


def test_request_tokens_stacks_each_component_per_request():
    steps = pd.DataFrame({"request": [1, 2], "tools": [100, 100], "history": [0, 60], "system": [20, 20],
                          "user": [5, 5], "overhead": [0, 0]})
    fig = request_tokens(steps)
    assert fig.layout.barmode == "stack"
    assert [t.name for t in fig.data] == ["tool definitions", "tool calls and results so far", "system prompt",
                                          "user message"]  # no overhead: it is zero
    assert [sum(t.y[i] for t in fig.data) for i in range(2)] == [125, 185]
    assert fig.layout.yaxis.title.text == "input tokens per request"


def test_plan_waterfall_steps_add_up_to_the_result():
    stages = pd.DataFrame({"stage": ["before", "delete", "trim", "after"],
                           "cost_per_month_usd": [1000.0, 900.0, 600.0, 650.0]})
    fig = plan_waterfall(stages, labels={"before": "today"})
    w = fig.data[0]
    assert list(w.x) == ["today", "delete", "trim", "after", "after the plan"]
    assert list(w.measure) == ["absolute", "relative", "relative", "relative", "total"]
    assert list(w.y) == [1000.0, -100.0, -300.0, 50.0, 650.0]
    assert list(w.text) == ["$1,000", "-$100", "-$300", "+$50.00", "$650"]  # units.money
    assert fig.layout.yaxis.title.text == "cost per month (USD)"


def test_result_tokens_shows_the_largest_tools_largest_on_top():
    usage = pd.DataFrame({"server": ["a", "a", "b"], "tool": ["x", "y", "z"],
                          "response_tokens_total": [10, 300, 20]})
    fig = result_tokens(usage, top=2)
    bar = fig.data[0]
    assert list(bar.y) == ["b/z", "a/y"] and list(bar.x) == [20, 300]  # plotly draws the last bar on top
    assert fig.layout.xaxis.title.text == "result tokens in the log"


def test_description_tradeoff_dollar_axis_has_its_own_round_ticks():
    grid = pd.DataFrame({"description_tokens": [0, 100], "tool_tokens_per_request": [1000, 5000],
                         "cost_per_completed_task": [0.2956, 0.4739]})
    fig = description_tradeoff(grid)
    assert fig.layout.yaxis2.tickmode == "auto" and fig.layout.yaxis2.tickprefix == "$"
