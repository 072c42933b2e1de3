"""What a search miss costs (docs/simulation.md, "Search misses"), worked out by hand, and the
providers' documented search in a run."""

from __future__ import annotations

import warnings

import pytest

import toolsurvey as ts
from toolsurvey.errors import InputError
from toolsurvey.model.misses import break_even, expected_attempts, found_share

# Average-size mode, accuracy off, no caching, claude-sonnet-4-5 ($3 in, $15 out per million; the
# Anthropic rendering's tool-use system prompt of 346 tokens on every request). 20 tools of 200
# tokens; a search tool of 100 tokens; each search loads 2 tools; 1 needed search, at most 2 tries;
# a 100-token user message, 50-token calls, 50-token search results, 400-token tool results, a
# 200-token answer; 2 steps (one tool call, then the answer).
TASK = dict(model="claude-sonnet-4-5", registry_size=20, tool_tokens=200, strategy="tool_search", search="custom",
            search_k=2, searches=1, max_searches=2, search_tool_tokens=100, search_result_tokens=50,
            user_message_tokens=100, call_tokens=50, response_tokens=400, answer_tokens=200, steps=2,
            accuracy=False, caching="none")


def run(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ts.simulate(None, ts.Scenario(**{**TASK, **kw}))


def test_quality_one_by_hand():
    # requests: search, call, answer. Each carries 346 + 100 (search tool) + 100 (user) + loaded + history.
    #   1: 546                      (nothing loaded yet)
    #   2: 546 + 400 + 100 = 1,046  (2 tools x 200 loaded; history: call 50 + search result 50)
    #   3: 546 + 400 + 550 = 1,496  (history + call 50 + result 400)
    # input 3,088; output 2 calls x 50 + 200 = 300; cost (3,088 x 3 + 300 x 15) / 1e6 = 0.013764
    s = run(search_quality=1.0).summary
    assert s["input_tokens_per_task"] == pytest.approx(3_088, abs=1e-9)
    assert s["cost_per_task"] == pytest.approx(0.013764, abs=1e-12)
    assert s["success"] == 1.0 and s["cost_per_completed_task"] == pytest.approx(0.013764, abs=1e-12)


def test_half_of_searches_missing_by_hand():
    # q = 0.5, 2 tries: expected searches e = 1 + 0.5 = 1.5; found 1 - 0.5^2 = 0.75.
    # 1.5 + 1 = 2.5 calls, 3.5 requests. Loaded after j searches: min(j, 1.5) x 2 x 200 = 0, 400, 600.
    # The call results: a search result (50), then half a search and half a tool result
    # (0.5 x 50 + 0.5 x 400 = 225), then tool results (400). History: 0, 100, 375, 825.
    #   1: 546; 2: 546 + 400 + 100 = 1,046; 3: 546 + 600 + 375 = 1,521; 4: 546 + 600 + 825 = 1,971
    #   input 546 + 1,046 + 1,521 + 0.5 x 1,971 = 4,098.5; output 2.5 x 50 + 200 = 325
    #   cost (4,098.5 x 3 + 325 x 15) / 1e6 = 0.0171705; per completed task / 0.75 = 0.022894
    s = run(search_quality=0.5).summary
    assert expected_attempts(0.5, 2) == 1.5 and found_share(0.5, 2) == 0.75
    assert s["expected_requests"] == pytest.approx(3.5)
    assert s["input_tokens_per_task"] == pytest.approx(4_098.5, abs=1e-9)
    assert s["cost_per_task"] == pytest.approx(0.0171705, abs=1e-12)
    assert s["success"] == pytest.approx(0.75)
    assert s["cost_per_completed_task"] == pytest.approx(0.022894, abs=1e-12)


def test_lower_quality_costs_strictly_more_per_completed_task():
    costs = [run(search_quality=q).summary["cost_per_completed_task"] for q in (1.0, 0.999, 0.95, 0.8, 0.5, 0.2)]
    assert all(a < b for a, b in zip(costs, costs[1:], strict=False))


def test_retrieval_miss_fails_the_task():
    base = run(strategy="retrieval", retrieval_k=3, search=None, search_k=None).summary
    half = run(strategy="retrieval", retrieval_k=3, search=None, search_k=None, search_quality=0.5).summary
    assert half["cost_per_task"] == base["cost_per_task"]
    assert half["cost_per_completed_task"] == pytest.approx(2 * base["cost_per_completed_task"])


def test_break_even_by_bisection():
    # cost per completed task c / q against a target of 1.25 c: the break-even q is 0.8
    assert break_even(lambda q: 1.0 / q, 1.25) == pytest.approx(0.8, abs=1e-4)
    assert break_even(lambda q: 2.0 / q, 1.0) is None


def test_a_measured_evaluation_is_a_quality():
    reg = ts.load("data/registries/ops_assistant.json")
    ev = ts.retrieval_eval(reg, "data/queries/ops_assistant.jsonl")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = ts.simulate(reg, ts.Scenario(strategy="tool_search", search="anthropic-bm25", search_quality=ev,
                                         accuracy=False))
    assert r.summary["success"] == pytest.approx(found_share(ev.hit_at(5), 3), rel=1e-12)
    assert "hit@5" in r.assumptions["search_quality"]


def test_provider_search_on_real_servers_sends_a_fraction_of_the_definitions():
    reg = ts.load(*sorted((ts.__path__[0] + "/../tests/data/real_tools/" + n) for n in
                          ("atlassian.json", "azure.json", "circleci.json", "cloudflare.json", "chrome-devtools.json")))
    assert len(reg.servers) >= 5 and len(reg) > 100
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        every = ts.simulate(reg, ts.Scenario(strategy="all", accuracy=False)).summary
        deferred = ts.simulate(reg, ts.Scenario(strategy="tool_search", search="anthropic-bm25", accuracy=False))
    share = deferred.summary["tool_tokens_per_task"] / every["tool_tokens_per_task"]
    assert share < 0.1, share
    a = deferred.assumptions
    assert "tool_search_tool_bm25_20251119" in a["visible_set"]
    assert "Tool search tool" in a["search_rules"] and "2026" in a["search_rules"]


def test_search_errors_name_what_is_known():
    with pytest.raises(InputError, match="claude-sonnet-4-5"):
        ts.Scenario(model="claude-opus-4-1", strategy="tool_search", search="anthropic-bm25")
    with pytest.raises(InputError, match="gpt-5.4"):
        ts.Scenario(model="gpt-4o", strategy="tool_search", search="openai")
    with pytest.raises(InputError, match="anthropic-bm25, anthropic-regex, openai"):
        ts.Scenario(strategy="tool_search", search="bing")
    with pytest.raises(InputError, match="search_k"):
        ts.Scenario(strategy="tool_search", search="custom")
    with pytest.raises(InputError, match="from 0 to 1"):
        ts.Scenario(search_quality=1.5)


def test_monte_carlo_counts_the_tasks_a_miss_fails():
    # the sampled tasks fail as often as the expected one: success 0.75 at q = 0.5 with 2 tries
    full, half = run(search_quality=1.0, samples=200), run(search_quality=0.5, samples=200)
    assert half.draws["success"].mean() == pytest.approx(0.75)
    assert full.draws["success"].mean() == 1.0
    assert half.percentiles.loc["mean", "cost_per_completed_task"] > full.percentiles.loc["mean", "cost_per_completed_task"]
    # the draws make the expected searches rounded up (docs/simulation.md, Monte Carlo): an upper bound
    assert half.percentiles.loc["mean", "requests"] == 4.0 and half.summary["expected_requests"] == pytest.approx(3.5)
    sampled = half.percentiles.loc["mean", "cost"]
    assert sampled == pytest.approx(0.019452, abs=1e-12) and sampled > half.summary["cost_per_task"]


def test_a_sweep_cites_the_search_rules_when_its_first_row_shows_every_tool(cli):
    # the docs' command (docs/search.md): every tool against the provider's search, on real servers
    paths = [ts.__path__[0] + f"/../tests/data/real_tools/{n}.json" for n in ("atlassian", "circleci")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = ts.sweep(ts.load(*paths), ts.Scenario(search="anthropic-bm25", accuracy=False),
                         strategy=["all", "tool_search"])
    a = table.attrs["assumptions"]
    assert "tool_search_tool_bm25_20251119" in a["search_rules"] and a["search_quality"].startswith("assumed 1.0")
    code, out, err = cli("simulate", *paths, "--strategy", "all,tool_search", "--search", "anthropic-bm25", "--no-accuracy")
    assert code == 0, err
    assert "search rules: anthropic-bm25 (tool_search_tool_bm25_20251119)" in out
