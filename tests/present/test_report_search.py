"""The report with a query set: the search levers name the measured hit rate and the break-even rate,
and the findability section lists the tools queries miss; without it they state the assumption."""

from __future__ import annotations

import warnings

import toolsurvey as ts

ARGS = dict(usage="data/usage/ops_assistant.jsonl", scenario="data/scenarios/ops_assistant.toml")


def build(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ts.report("data/registries/ops_assistant.json", **ARGS, **kw)


def test_measured_levers_and_the_findability_section():
    rep = build(queries="data/queries/ops_assistant.jsonl")
    ev = ts.retrieval_eval(ts.load("data/registries/ops_assistant.json"), "data/queries/ops_assistant.jsonl")
    text = " ".join(rep.summary_text().split())
    assert f"measured: the top 5 hold a needed tool for {ev.hit_at(5):.0%} of the queries" in text
    assert "saves money only if the search finds the needed tool in at least" in text
    md = rep.to_markdown()
    assert "What a search finds in this registry" in md and "Findability" in md
    hardest = ev.tools[ev.tools["needed"] > 0].sort_values(["found_share", "needed", "tool"],
                                                             ascending=[True, False, True])["tool"].iloc[0]
    assert hardest.replace("_", "\\_") in md  # escaped like every third-party text in Markdown


def test_without_queries_the_levers_state_the_assumption():
    text = " ".join(build().summary_text().split())
    assert "assumes every search finds the needed tool, as no queries measured it" in text
    assert "What a search finds" not in build().to_markdown()
