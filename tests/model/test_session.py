"""Sessions: turns with think time, cache expiry, misses, compaction and subagents, worked out by hand;
and the session engine agrees with the single-task engine where a session is one task."""

from __future__ import annotations

import dataclasses
import math
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from scipy import stats
from test_simulation_oracle import REG, scenarios

import toolsurvey as ts
from toolsurvey.errors import InputError
from toolsurvey.model.dist import Dist

# The worked example of docs/simulation.md: ten tools of 200 tokens, Claude Sonnet 4.5 ($3 input,
# $15 output, $3.75 5-minute and $6 1-hour cache writes, $0.30 reads per million; cacheable from 1,024
# tokens; LiteLLM 1.110.2). Every request carries Anthropic's 346-token tool-use system prompt, so the
# fixed prefix is 346 + 10 x 200 + 1,000 = 3,346 tokens and the first request 3,346 + 100 = 3,446.
BASE = dict(tool_tokens=200, registry_size=10, system_prompt_tokens=1000, user_message_tokens=100, call_tokens=50,
            response_tokens=400, answer_tokens=200, accuracy=False, caching="incremental")


def _run(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ts.simulate(None, ts.Scenario(**{**BASE, **kw}))


def test_two_turns_with_think_time_a_one_hour_share_and_a_shared_prefix():
    # Two turns of 2 requests; think times of 120 s and 900 s (half over 5 minutes, none over an hour);
    # a quarter of threads cached for an hour; a cold cache finds half the prefix cached elsewhere.
    run = _run(steps=2, turns=2, think_time=[120, 900], cache_1h_share=0.25, prefix_hit=0.5)
    # Turn 1. r1 input 3,446, cold: reads 0.5 x 3,346 = 1,673, writes 1,773, outputs 50.
    #         r2 input 3,446 + 50 + 400 = 3,896: reads 3,446, writes 450, answers 200.
    # The turn leaves 450 + 200 + the next prompt's 100 = 750 tokens of history.
    # Turn 2. r3 input 3,346 + 100 + 750 = 4,196. 5-minute cache: expired for half the think times, so
    #         reads 0.5 x 3,896 + 0.5 x 1,673 = 2,784.5 and writes 1,411.5; 1-hour: reads 3,896, writes 300.
    #         r4 input 4,646: reads 4,196, writes 450, answers 200.
    # 5 minutes: writes 1,773 + 450 + 1,411.5 + 450 = 4,084.5 x 3.75 = 15,316.875; reads 1,673 + 3,446 +
    #   2,784.5 + 4,196 = 12,099.5 x 0.30 = 3,629.85; outputs 500 x 15 = 7,500: $0.026446725.
    # 1 hour: writes 1,773 + 450 + 300 + 450 = 2,973 x 6 = 17,838; reads 13,211 x 0.30 = 3,963.3; $0.0293013.
    five, hour = 0.026446725, 0.0293013
    assert run.summary["cost_per_task"] == pytest.approx(0.75 * five + 0.25 * hour, abs=1e-9)
    assert run.summary["expected_requests"] == 4 and run.summary["turns"] == 2
    r3 = run.steps.iloc[2]
    assert (r3["input"], r3["expired"]) == (4196, pytest.approx(0.75 * 0.5))
    assert r3["cache_read"] == pytest.approx(0.75 * 2784.5 + 0.25 * 3896, abs=1e-9)


def test_compaction_misses_and_a_subagent():
    # Two turns of 3 requests; compaction above 4,300 tokens leaves 500 tokens of history and costs a
    # request of 300 output tokens; 20% of requests within a turn and half the prompts find only the prefix
    # cached. Two haiku subagents per session of 2 requests each.
    run = _run(steps=3, turns=2, compaction_at=4300, compaction_tokens=500, compaction_output_tokens=300,
               cache_miss=0.2, prompt_cache_miss=0.5,
               subagents=[dict(name="explore", count=2, model="claude-haiku-4-5", steps=2, system_prompt_tokens=5000,
                               response_tokens=1000, call_tokens=20, answer_tokens=100)])
    # Main thread (reads / writes / output):
    #  r1 3,446: cold, no prefix elsewhere: 0 / 3,446 / 50
    #  r2 3,896: 0.8 x 3,446 + 0.2 x 3,346 = 3,426 / 470 / 50
    #  r3 would be 4,346 > 4,300: the compaction request sends 4,346: 3,896 / 450 / 300; the history becomes 500,
    #     so r3 sends 3,346 + 500 = 3,846, the prefix cached: 3,346 / 500 / 200 (the answer)
    #  turn 2 starts from 3,846 + 200 + 100 = 4,146:
    #  r4 4,146: a prompt, 0.5 x 3,846 + 0.5 x 3,346 = 3,596 / 550 / 50
    #  r5 would be 4,596: compaction 4,146 / 450 / 300; then 3,846: 3,346 / 500 / 50
    #  r6 3,846 + 450 = 4,296: 0.8 x 3,846 + 0.2 x 3,346 = 3,746 / 550 / 200
    #  reads 25,502 x 0.30 = 7,650.6; writes 6,916 x 3.75 = 25,935; outputs 1,200 x 15 = 18,000: $0.0515856
    # Each subagent (Claude Haiku 4.5: $1 input, $5 output, $1.25 writes, $0.10 reads; cacheable from 4,096):
    #  s1 5,000: 0 / 5,000 / 20;  s2 5,000 + 20 + 1,000 = 6,020: 5,000 / 1,020 / 100
    #  writes 6,020 x 1.25 = 7,525; reads 5,000 x 0.10 = 500; outputs 120 x 5 = 600: $0.008625, two of them
    assert run.summary["cost_per_task"] == pytest.approx(0.0515856 + 2 * 0.008625, abs=1e-9)
    assert run.summary["subagent_cost_per_task"] == pytest.approx(2 * 0.008625, abs=1e-9)
    assert run.summary["compactions"] == 2
    main = run.steps[run.steps["thread"] == "main"]
    assert list(main["kind"]) == ["call", "call", "compaction", "answer", "call", "compaction", "call", "answer"]
    assert list(main["input"]) == [3446, 3896, 4346, 3846, 4146, 4146 + 450, 3846, 4296]
    assert main["cache_read"].sum() == pytest.approx(25502)
    assert main["cache_write"].sum() == pytest.approx(6916)
    assert run.summary["expected_requests"] == 8 + 2 * 2


def test_a_fractional_turn_count_weights_the_last_turn():
    one, two = _run(steps=2, turns=1, cache_1h_share=0.0), _run(steps=2, turns=2)
    half = _run(steps=2, turns=1.5)
    assert half.summary["cost_per_task"] == pytest.approx(
        (one.summary["cost_per_task"] + two.summary["cost_per_task"]) / 2, rel=1e-12)


def test_a_longer_think_time_than_the_cache_lifetime_costs_the_prefix_again():
    short, long_ = _run(steps=4, turns=5, think_time=60), _run(steps=4, turns=5, think_time=600)
    hour = _run(steps=4, turns=5, think_time=600, cache_ttl="1h")
    assert long_.summary["cache_write_tokens"] > short.summary["cache_write_tokens"]
    assert hour.summary["cache_write_tokens"] == short.summary["cache_write_tokens"]  # 600 s < 1 hour


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_a_one_turn_session_is_priced_as_the_single_task(sc):
    # Setting a session field to the value that changes nothing runs the session engine instead.
    if sc.caching == "explicit":
        return
    session = dataclasses.replace(sc, cache_1h_share=1.0 if sc.cache_ttl == "1h" else 0.0)
    assert session.is_session() and not sc.is_session()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want, got = ts.simulate(REG, sc).summary, ts.simulate(REG, session).summary
    assert got["fits"] == want["fits"]
    for k in ("input_tokens_per_task", "cache_write_tokens", "cache_read_tokens", "output_tokens_per_task",
              "tool_tokens_per_task", "expected_requests", "max_input_tokens", "cost_per_task",
              "cost_per_completed_task"):
        if isinstance(want[k], float) and math.isnan(want[k]):
            assert math.isnan(got[k]), k
        else:
            assert got[k] == pytest.approx(want[k], rel=1e-12, abs=1e-9), k


@pytest.mark.parametrize("dist, oracle", [
    (Dist("normal", mean=250, sd=120), stats.norm(250, 120)),
    (Dist("uniform", low=0, high=900), stats.uniform(0, 900)),
    (Dist("poisson", mean=280), stats.poisson(280)),
    (Dist("lognormal", mean=400, sd=500),
     stats.lognorm(math.sqrt(math.log1p((500 / 400) ** 2)), scale=400 / math.sqrt(1 + (500 / 400) ** 2))),
])
def test_the_share_of_think_times_over_a_lifetime_is_the_distribution_tail(dist, oracle):
    for x in (0, 60, 300, 3600):
        assert dist.above(x) == pytest.approx(oracle.sf(x), abs=1e-12)
    assert Dist("samples", values=(10, 400, 4000, 500)).above(300) == 0.75


def test_session_fields_are_checked_and_read_from_a_scenario_file(tmp_path):
    for bad in (dict(turns=0.5), dict(cache_miss=1.5), dict(cache_1h_share=-0.1), dict(compaction_at=0),
                dict(subagents=[{"name": "x", "steps": 0}]), dict(subagents=[{"name": "x", "colour": 1}])):
        with pytest.raises(InputError):
            ts.Scenario(**bad)
    with pytest.raises(InputError, match="not modelled for sessions"):
        _run(turns=2, caching="explicit", model="gemini-2.5-flash")
    f = tmp_path / "s.toml"
    f.write_text('turns = [2, 5, 9]\nthink_time = {dist = "lognormal", mean = 240, sd = 300}\ncompaction_at = 160000\n'
                 '[[subagents]]\nname = "explore"\nmodel = "claude-haiku-4-5"\ncount = 0.5\nsteps = [4, 12]\n')
    sc = ts.load_scenario(f)
    assert sc.turns.expected() == pytest.approx(16 / 3) and sc.think_time.kind == "lognormal"
    assert sc.subagents[0].steps.expected() == 8 and sc.subagents[0].count == 0.5 and sc.is_session()
    assert sc.assumptions()["subagents"][0]["model"] == "claude-haiku-4-5"


def test_a_sweep_of_sessions_prices_each_row_as_simulate_does():
    sc = ts.Scenario(**BASE, steps=3, turns=[2, 4], think_time=[60, 900])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grid = ts.sweep(None, sc, steps=[2, 5], cache_ttl=["5m", "1h"])
    assert len(grid) == 4 and set(grid["turns"]) == {3.0}
    for row in grid.itertuples():
        want = _run(steps=int(row.steps), turns=[2, 4], think_time=[60, 900], cache_ttl=row.cache_ttl)
        assert row.cost_per_task == pytest.approx(want.summary["cost_per_task"], rel=1e-12)
        assert (want.steps["weight"] * want.steps["cost"]).sum() == pytest.approx(want.summary["cost_per_task"])


def test_a_session_scenarios_report_lists_the_session_assumptions(tmp_path):
    from conftest import ROOT

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = ts.report(ROOT / "data" / "registries" / "ops_assistant.json",
                        scenario=ts.Scenario(turns=4, think_time=600, compaction_at=90_000, compaction_tokens=9000))
    fields = set(rep.tables["assumptions"].data["field"])
    assert {"turns", "think_time", "compaction_at"} <= fields
    assert "The task is a session" in rep.to_markdown()
