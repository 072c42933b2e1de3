"""The search charts carry the figures of the tables they are given, and the notebook's inputs."""

from __future__ import annotations

import pandas as pd

import toolsurvey as ts
from toolsurvey.advice.deferral import cost_by_search_k, deferred_vs_visible
from toolsurvey.measuring.retrieval.evaluation import hit_curve
from toolsurvey.present.charts import search as charts

REG, QUERIES = "data/registries/ops_assistant.json", "data/queries/ops_assistant.jsonl"


def test_hit_by_k_has_one_line_per_method_with_the_evaluations_figures():
    reg = ts.load(REG)
    curve = hit_curve(reg, QUERIES, methods=("bm25", "tfidf"), k=(1, 5))
    fig = charts.hit_by_k(curve)
    assert [t.name for t in fig.data] == ["bm25", "tfidf"]
    ev = ts.retrieval_eval(reg, QUERIES, method="tfidf", k=(1, 5))
    assert list(fig.data[1].y) == [ev.summary["hit@1"], ev.summary["hit@5"]]


def test_cost_by_k_and_deferred_vs_visible_come_from_the_simulation():
    reg, sc = ts.load(REG), ts.load_scenario("data/scenarios/ops_assistant.toml")
    ev = ts.retrieval_eval(reg, QUERIES, k=range(1, 4))
    costs = cost_by_search_k(reg, sc, ev, ks=(2, 3))
    run = ts.simulate(reg, sc, strategy="tool_search", search="anthropic-bm25", search_k=3,
                      search_quality=ev.hit_at(3))
    assert costs.set_index("k").loc[3, "cost_per_completed_task"] == run.summary["cost_per_completed_task"]
    fig = charts.cost_by_k(costs, baseline=0.3)
    assert list(fig.data[0].x) == [2, 3] and "measured" in fig.layout.title.text
    table = deferred_vs_visible(reg, sc, ev)
    assert set(table["search"]) == {"anthropic-bm25", "anthropic-regex", "openai"}
    assert set(table.loc[table["search"] == "openai", "model"]) == {"gpt-5.4"}  # the scenario's model has none
    bars = charts.deferred_vs_visible(table)
    assert [t.name for t in bars.data] == ["all visible", "deferred"]
    assert isinstance(table, pd.DataFrame) and (table["cost_per_completed_task"] > 0).all()
