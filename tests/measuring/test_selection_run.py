"""The eval's run: Ctrl-C keeps the answers already fetched and a re-run resumes; the query file's
`"gold": []` and `"args"` are accepted by the eval and still refused by retrieval; the views escape
third-party text."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT
from fake_llm import FakeLLM, Move

import toolsurvey as ts
from toolsurvey.errors import InputError

pytest.importorskip("openai")
REG = ts.load(ROOT / "data" / "registries" / "ops_assistant.json")
QUERIES = ROOT / "data" / "queries" / "ops_assistant.jsonl"


def answer(query, names, tools):
    return Move([("get_owner", {"service": "x"})]) if "owns" in query else Move(text="no")


def test_ctrl_c_keeps_fetched_answers_and_a_rerun_resumes(tmp_path):
    fake = FakeLLM(answer)
    opts = dict(base_url="http://llm.test/v1", cache_dir=tmp_path, environ={}, yes=True)

    def stop_after_five(done, total):
        if done >= 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ts.selection_eval(REG, QUERIES, "m", http_client=fake.client("openai"), progress=stop_after_five, **opts)
    first = len(fake.requests)
    assert 5 <= first < 42
    ev = ts.selection_eval(REG, QUERIES, "m", http_client=fake.client("openai"), **opts)
    assert len(ev.records) == 42
    assert len(fake.requests) <= 42 + 1  # each answer fetched once (one in flight at the stop may finish)
    assert ev.billed()["from_cache"] >= 5


def test_no_tool_queries_and_args_are_for_the_eval_only(tmp_path):
    q = tmp_path / "q.jsonl"
    q.write_text('{"id": "n", "query": "hello", "gold": []}\n'
                 '{"id": "a", "query": "who owns x", "gold": ["get_owner"], "args": {"service": "x"}}\n')
    qs = ts.load_queries(q, REG, no_tool=True)
    assert qs[0].gold == () and qs[1].args == {"service": "x"}
    with pytest.raises(InputError, match="non-empty list"):
        ts.retrieval_eval(REG, q)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "n", "query": "hello", "gold": [], "args": {"a": 1}}\n')
    with pytest.raises(InputError, match="args"):
        ts.load_queries(bad, REG, no_tool=True)


HOSTILE = "evil\x1b[31m<script>alert(1)</script>|x"


def test_views_escape_tool_names_queries_and_answers(tmp_path):
    reg = ts.Registry.from_tools([ts.Tool("safe_tool", "Does a thing.", {"type": "object"}, server="s"),
                                  ts.Tool(HOSTILE, "Hostile.", {"type": "object"}, server="s")])
    fake = FakeLLM(lambda q, names, tools: Move([(names[1], {})], text=HOSTILE))
    qs = [{"id": "q<1>", "query": HOSTILE, "gold": ["s/safe_tool"]}]
    ev = ts.selection_eval(reg, qs, "m", base_url="http://llm.test/v1", environ={}, cache=False,
                           http_client=fake.client("openai"))
    assert ev.records[0]["called"] == f"s/{HOSTILE}"  # the rewritten name mapped back
    from toolsurvey.present.charts.selection import confusion_heatmap
    from toolsurvey.present.selection import selection_markdown, selection_text

    html = ev._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html
    for text in (selection_text(ev), selection_markdown(ev), repr(ev)):
        assert "\x1b" not in text
    md = selection_markdown(ev)
    assert "<script>" not in md.replace("\\<script\\>", "")
    fig = json.dumps(confusion_heatmap(ev).to_plotly_json(), default=str)
    assert "<script>" not in fig and "\\u001b" not in fig


def test_repeat_asks_each_query_n_times_and_reports_agreement(tmp_path):
    asked = {}

    def flaky(query, names, tools):  # "owns" answered the same each time, the others alternate
        asked[query] = asked.get(query, 0) + 1
        if "owns" in query:
            return Move([("get_owner", {"service": "x"})])
        return Move([("get_owner", {"service": "x"})]) if asked[query] % 2 else Move(text="no")

    qs = [{"id": "a", "query": "who owns x", "gold": ["catalog/get_owner"]},
          {"id": "b", "query": "hello there", "gold": []}]
    fake = FakeLLM(flaky)
    ev = ts.selection_eval(REG, qs, "m", base_url="http://llm.test/v1", environ={}, cache_dir=tmp_path, repeat=3,
                           http_client=fake.client("openai"))
    assert len(fake.requests) == 6 and len(ev.records) == 6
    assert [r["repeat"] for r in ev.records] == [0, 1, 2, 0, 1, 2]
    a = ev.agreement()  # 1 of 2 queries agree; Wilson 95% for 1 of 2 by hand: 0.5 -+ 0.4055
    assert (a["count"], a["of"]) == (1, 2)
    assert (a["low"], a["high"]) == (pytest.approx(0.0945, abs=1e-4), pytest.approx(0.9055, abs=1e-4))
    assert ev.summary["queries"] == 2  # the headline rates read the first answers
    ts.selection_eval(REG, qs, "m", base_url="http://llm.test/v1", environ={}, cache_dir=tmp_path, repeat=3,
                      http_client=fake.client("openai"))
    assert len(fake.requests) == 6  # each repeat cached on its own
