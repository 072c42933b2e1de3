"""Widget tests: change a control the way a user would (programmatically) and check the figure."""

import json
import warnings

import pytest
from conftest import DATA

import toolsurvey as ts
from toolsurvey.present import widgets

REGISTRY = DATA / "registries" / "ops_assistant.json"
ISSUES = DATA / "responses" / "list_issues"


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # clamped visible caps warn; not what these tests check
        yield


@pytest.fixture(scope="module")
def ops():
    return widgets.sample_inputs(REGISTRY)


def _trace(fig, name):
    return next(t for t in fig.data if t.name == name)


def test_sample_inputs_follow_the_registry(ops):
    assert len(ops["registry"]) == 63
    assert ops["scenario"].strategy == "phases"
    assert ops["usage"].endswith("ops_assistant.jsonl") and ops["phases"].endswith("ops_assistant.toml")
    other = widgets.sample_inputs(DATA / "registries" / "support_desk.json")
    assert other["scenario"] == ts.Scenario() and other["usage"] is None and other["phases"] is None
    given = widgets.sample_inputs(REGISTRY, scenario=None, usage=None)
    assert given["scenario"] == ts.Scenario() and given["usage"] is None


def test_catalog_explorer_slider_recomputes_the_task(ops):
    reg, sc = ops["registry"], ops["scenario"]
    box = widgets.catalog_explorer(reg, sc)
    box.controls["strategy"].value = "all"
    box.controls["visible"].value = 10
    tools_10 = list(_trace(box.figures["steps"], "tools").y)
    trace = _trace(box.figures["steps"], "tools")
    box.controls["visible"].value = 30
    tools_30 = list(_trace(box.figures["steps"], "tools").y)
    assert _trace(box.figures["steps"], "tools") is trace  # updated in place, not rebuilt
    # Independent oracle: strategy "all" capped at N shows the first N tools in registry order,
    # plus the instructions of their servers, measured by footprint.
    fp = ts.footprint(reg)
    rows = fp[fp["kind"] == "tool"].head(30)
    inst = fp[fp["kind"] == "instructions"].set_index("server")["tokens"]
    expected = rows["tokens"].sum() + sum(inst.get(s, 0) for s in rows["server"].unique())
    assert tools_30[0] == expected
    assert tools_30[0] > tools_10[0]
    assert all(y == tools_30[0] for y in tools_30)  # the same tools on every request
    # The curves' marker follows the slider; the summary line names the strategy.
    assert {s.x0 for s in box.figures["curves"].layout.shapes} == {30}
    assert "<b>all</b>" in box.children[2].value


def test_catalog_explorer_model_and_caching_redraw_the_curves(ops):
    box = widgets.catalog_explorer(ops["registry"], ops["scenario"], strategies=["all", "retrieval"])
    cost = [t for t in box.figures["curves"].data if "cost per completed task" in t.hovertemplate]
    before = [list(t.y) for t in cost]
    box.controls["caching"].value = "none"
    after = [list(t.y) for t in box.figures["curves"].data if "cost per completed task" in t.hovertemplate]
    assert len(after) == 2
    # Without prompt caching every point costs more (all inputs at the full input price).
    assert all(a >= b for ta, tb in zip(after, before, strict=True) for a, b in zip(ta, tb, strict=True))
    assert after != before
    models = [value for _label, value in box.controls["model"].options]
    assert "claude-haiku-4-5" in models
    box.controls["model"].value = "claude-haiku-4-5"
    haiku = [list(t.y) for t in box.figures["curves"].data if "cost per completed task" in t.hovertemplate]
    assert all(h < a for th, ta in zip(haiku, after, strict=True) for h, a in zip(th, ta, strict=True))
    # The caching labels follow the model, and the mode chosen stays chosen.
    assert box.controls["caching"].value == "none"
    box.controls["model"].value = "gpt-4.1" if "gpt-4.1" in models else next(m for m in models if "gpt" in m)
    assert box.controls["caching"].value == "none"
    assert any("OpenAI" in label for label, mode in box.controls["caching"].options if mode == "auto")


def test_description_explorer_target_and_accuracy(ops):
    box = widgets.description_explorer(ops["registry"], ops["scenario"], lengths=range(0, 201, 50))
    trade = box.figures["tradeoff"]
    box.controls["target"].value = 100
    assert _trace(trade, "target").x == (100.0,)
    line = [s for s in box.figures["lengths"].layout.shapes if s.type == "line"][0]
    assert line.x0 == 100
    with_accuracy = list(_trace(trade, "cost per completed task").y)
    box.controls["accuracy"].value = False
    without = list(_trace(trade, "cost per completed task").y)
    # Accuracy off: no wrong calls and every task succeeds, so each point costs less.
    assert all(w < a for w, a in zip(without, with_accuracy, strict=True))
    tokens = list(_trace(trade, "tool tokens per request").y)
    assert tokens == sorted(tokens) and tokens[0] < tokens[-1]


def _oracle_tokens(drop):
    """Compact JSON of each sample with the `drop` keys removed from every record, counted by tiktoken."""
    enc = ts.get_encoding("o200k_base")  # tiktoken's Encoding (loaded offline)
    out = []
    for path in sorted(ISSUES.glob("*.json")):
        records = [{k: v for k, v in r.items() if k not in drop} for r in json.loads(path.read_text())]
        out.append(len(enc.encode_ordinary(json.dumps(records, separators=(",", ":"), ensure_ascii=False))))
    return out


def test_response_explorer_field_checkbox_and_list_cap():
    box = widgets.response_explorer(ISSUES)
    results = box.figures["results"]
    # Every field ticked: the results only re-serialized as compact JSON.
    assert sorted(_trace(results, "trimmed").y) == sorted(_oracle_tokens(set()))
    traces = list(box.figures["fields"].data) + list(box.figures["steps"].data)
    box.controls["fields"]["[].body"].value = False
    # Restyled in place (a browser redraws a restyle much faster than replaced traces).
    assert all(a is b for a, b in zip(traces, list(box.figures["fields"].data) + list(box.figures["steps"].data),
                                      strict=True))
    trimmed = list(_trace(results, "trimmed").y)
    # Compared as multisets: the figure lists results in the order they were read.
    assert sorted(trimmed) == sorted(_oracle_tokens({"body"}))
    box.controls["max_items"].value = 3
    capped = list(_trace(results, "trimmed").y)
    assert all(c < t for c, t in zip(capped, trimmed, strict=True))
    # The field chart now marks body as dropped.
    assert "[].body" in " ".join(str(y) for t in box.figures["fields"].data if t.name == "dropped" for y in t.y)


@pytest.mark.parametrize("n", [1, 2, 12, 63, 1000])
def test_visible_points_span_the_catalog(n):
    points = widgets.visible_points(n)
    assert points[0] == 1 and points[-1] == n
    assert points == sorted(set(points)) and len(points) <= 26
