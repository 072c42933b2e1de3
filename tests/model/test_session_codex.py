"""The session model on Codex: OpenAI's caching rules per model family (providers.toml), a session worked
out by hand under each (docs/simulation.md, "A Codex session worked by hand"), and Codex rollouts written
to follow the model, fitted back and priced to the cent, with what-ifs (caching off, writes billed)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

import toolsurvey as ts
from toolsurvey.model.fit import fit_details
from toolsurvey.providers.caching import cache_lifetimes, caching_rules

# The session of docs/simulation.md: ten tools of 200 tokens (average-size mode, OpenAI's 12-token
# per-request function constant), a 1,000-token system prompt, 100-token prompts, 50-token calls,
# 400-token results, 200-token answers; two turns of two requests, 600 s of thought between them.
SESSION = dict(tool_tokens=200, registry_size=10, system_prompt_tokens=1000, user_message_tokens=100, call_tokens=50,
               response_tokens=400, answer_tokens=200, steps=2, turns=2, think_time=600, accuracy=False)


def test_openai_caching_rules_per_model_family():
    old, new = caching_rules("openai", "gpt-5.5"), caching_rules("openai", "gpt-5.6-sol")
    assert (old["cache_increment"], old["write_premium"], old["min_cache_tokens"]) == (128, False, 1024)
    assert "Prompt Caching 201" in old["source"] and "before GPT-5.6" in old["source"] and old["as_of"]
    assert "cache_increment" not in new and new["write_premium"] and new["write_multiplier"] == 1.25
    assert "GPT-5.6" in new["source"] and new["undocumented"]
    assert cache_lifetimes("openai", "gpt-5.5") == {"5m": 300, "1h": 86_400}
    assert cache_lifetimes("openai", "gpt-5.6-sol") == {"5m": 1800, "1h": 1800}  # 30 minutes, the one ttl
    assert cache_lifetimes("anthropic", "claude-sonnet-4-5") == {"5m": 300, "1h": 3600}
    assert caching_rules("openai", "gpt-4o")["write_premium"] is False and caching_rules("openai", "gpt-6")["write_premium"]


def test_a_codex_session_worked_by_hand():
    # The fixed prefix: 12 + 10 x 200 + 1,000 = 3,012 tokens. Inputs: 3,012 + 100 = 3,112; + 50 + 400 =
    # 3,562; turn 2 carries the first turn (450 + its answer 200 + the prompt 100 = 750): 3,862; 4,312.
    # gpt-5.5 (before GPT-5.6: reads in 128-token steps, writes at the input price; $5 input, $0.50 cached,
    # $30 output; an entry lives 300 s, so after 600 s of thought turn 2 starts cold):
    #   reads: request 2 floor(3,112 / 128) x 128 = 3,072; request 3 none; request 4 floor(3,862 / 128)
    #   x 128 = 3,840: 6,912 x 0.5 = 3,456; not read 3,112 + 490 + 3,862 + 472 = 7,936 x 5 = 39,680;
    #   output 2 x (50 + 200) = 500 x 30 = 15,000: $0.058136.
    run = ts.simulate(None, ts.Scenario(model="gpt-5.5", **SESSION))
    assert list(run.steps["input"]) == [3112, 3562, 3862, 4312]
    assert list(run.steps["cache_read"]) == [0, 3072, 0, 3840]
    assert run.summary["cost_per_task"] == pytest.approx((3456 + 39_680 + 15_000) / 1e6, rel=0, abs=1e-9)
    # gpt-5.6-sol (writes at 1.25x: $4 input, $5 written, $0.40 cached, $20 output; no documented step, so a
    # hit reads the whole previous context; an entry lives 1,800 s, so turn 2 finds its cache):
    #   reads 3,112 + 3,562 + 3,862 = 10,536 x 0.4 = 4,214.4; writes 3,112 + 450 + 300 + 450 = 4,312 x 5 =
    #   21,560; output 500 x 20 = 10,000: $0.0357744.
    sol = ts.Scenario(model="gpt-5.6-sol", **SESSION)
    run = ts.simulate(None, sol)
    assert list(run.steps["cache_read"]) == [0, 3112, 3562, 3862] and list(run.steps["expired"]) == [1, 0, 0, 0]
    assert run.summary["cost_per_task"] == pytest.approx((4214.4 + 21_560 + 10_000) / 1e6, rel=0, abs=1e-9)
    # What Codex 0.14x rollouts record: no writes (uncached_share 1), the 4,312 tokens billed as input:
    # 4,312 x 4 = 17,248 + 4,214.4 + 10,000 = $0.0314624. With caching off, every input token is:
    # (3,112 + 3,562 + 3,862 + 4,312) x 4 = 59,392 + 10,000 = $0.069392.
    assert ts.simulate(None, ts.Scenario(model="gpt-5.6-sol", uncached_share=1.0, **SESSION)).summary[
        "cost_per_task"] == pytest.approx((17_248 + 4214.4 + 10_000) / 1e6, rel=0, abs=1e-9)
    assert ts.simulate(None, ts.Scenario(model="gpt-5.6-sol", caching="none", **SESSION)).summary[
        "cost_per_task"] == pytest.approx((59_392 + 10_000) / 1e6, rel=0, abs=1e-9)


T0 = datetime(2026, 7, 13, 10, 0, tzinfo=UTC)


def rollout(path, session: str, requests: list[tuple[float, int, int, int]], prompts: list[float],
            calls: tuple[float, ...] = (), model: str = "gpt-5.6-sol", changes: tuple[float, ...] = (),
            window: int | None = None) -> None:
    """A Codex rollout of `model`: prompts at the given seconds, token counts (second, input, cached,
    output) as running totals, in the layout of Codex 0.144 (no cache writes recorded), a function
    call at each second of `calls` (Codex records a response's calls before its token count) and a
    change of the environment (a `world_state` line, not `full`) at each second of `changes`; `window`:
    the model_context_window its token counts name."""
    at = lambda t: (T0 + timedelta(seconds=t)).isoformat().replace("+00:00", "Z")
    lines = [{"timestamp": at(0), "type": "session_meta", "payload": {"id": session, "cwd": "/w", "cli_version": "0.144.2",
                                                                       "source": "vscode"}},
             {"timestamp": at(0), "type": "turn_context", "payload": {"model": model, "cwd": "/w"}}]
    events = [(t, {"type": "event_msg", "payload": {"type": "user_message", "message": "go on"}}) for t in prompts]
    events += [(t, {"type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": "{}",
                                                         "call_id": f"call-{session}-{i}"}}) for i, t in enumerate(calls)]
    events += [(t, {"type": "world_state", "payload": {"full": False, "state": {"environments": {
        "filesystem": "<filesystem><workspace_roots><root>/w</root><root>/x</root></workspace_roots></filesystem>"}}}})
               for t in changes]
    total = [0, 0, 0]
    for t, inp, cached, out in requests:
        total = [total[0] + inp, total[1] + cached, total[2] + out]
        usage = lambda i, c, o: {"input_tokens": i, "cached_input_tokens": c, "output_tokens": o,
                                 "reasoning_output_tokens": 0, "total_tokens": i + o}
        events.append((t, {"type": "event_msg", "payload": {"type": "token_count", "info": {
            "total_token_usage": usage(*total), "last_token_usage": usage(inp, cached, out),
            **({"model_context_window": window} if window else {})}}}))
    lines += [{"timestamp": at(t), **e} for t, e in sorted(events, key=lambda x: x[0])]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


# The hand-worked session as Codex records it: (second, input, cached, output) of each request.
WORKED = [(5, 3112, 0, 50), (15, 3562, 3112, 200), (615, 3862, 3562, 50), (625, 4312, 3862, 200)]


@pytest.fixture
def codex(tmp_path):
    for s in ("019f0000-0000-7000-8000-000000000c01", "019f0000-0000-7000-8000-000000000c02"):
        rollout(tmp_path / f"rollout-{s}.jsonl", s, WORKED, prompts=[0, 610])
    return ts.load_traces(tmp_path, engine="python")


def test_codex_rollouts_are_fitted_back_and_priced_to_the_cent(codex):
    d = fit_details(codex)
    m = d["main"]
    assert (m["prefix"], m["user_message_tokens"], m["response_tokens"]) == (3112, 100, 400)
    assert (m["call_tokens"], m["answer_tokens"], m["cache_miss"], m["prompt_cache_miss"]) == (50, 200, 0, 0)
    assert d["caching"] == "incremental" and d["uncached_share"] == 1.0  # nothing recorded as written
    assert "gpt-5.6-sol" in d["fitted_rules"]  # its hit step is not documented: the cached share is measured
    per = 0.0314624  # the hand-worked session, its writes billed as input as the rollouts record them
    for cv in (False, True):
        table = ts.compare(codex, cv=cv)
        assert list(table["billed"]) == pytest.approx([per, per, 2 * per], abs=1e-12)
        assert list(table["simulated"]) == pytest.approx([per, per, 2 * per], abs=1e-12)
        assert abs(table.attrs["total_error"]) < 1e-12
        assert all(abs(e) < 1e-12 for e in table.attrs["component_errors"].values() if e == e)


def test_what_ifs_on_codex_sessions(codex):
    sc = ts.fit_scenario(codex)
    off = ts.compare(codex, sc, caching="none")  # the same sessions with no prompt caching
    assert off["simulated"].iloc[-1] == pytest.approx(2 * 0.069392, abs=1e-12)
    assert off["billed"].iloc[-1] == pytest.approx(2 * 0.0314624, abs=1e-12)
    written = ts.compare(codex, sc, uncached_share=0.0)  # writes billed at 1.25x, as OpenAI documents for GPT-5.6
    assert written["simulated"].iloc[-1] == pytest.approx(2 * 0.0357744, abs=1e-12)


def test_parallel_calls_in_a_codex_rollout(tmp_path):
    # A gpt-5.6-sol turn whose first response calls two tools (recorded before its token count), the
    # next one tool, the last answers: inputs 3,112; + 50 + 2 x 400 = 3,962; + 50 + 400 = 4,412. The fit
    # reads one result as (800 + 400) / 3 calls = 400 and 1.5 calls a step, and prices each session from
    # the calls it made: not read 3,112 + 850 + 450 = 4,412 x $4, read 3,112 + 3,962 = 7,074 x $0.40,
    # output 300 x $20 (per million) = $0.0264776.
    requests = [(5, 3112, 0, 50), (15, 3962, 3112, 50), (25, 4412, 3962, 200)]
    for s in ("019f0000-0000-7000-8000-000000000d01", "019f0000-0000-7000-8000-000000000d02"):
        rollout(tmp_path / f"rollout-{s}.jsonl", s, requests, prompts=[0], calls=(4, 4, 14))
    tr = ts.load_traces(tmp_path, engine="python")
    m = fit_details(tr)["main"]
    assert (m["response_tokens"], m["calls_per_step"]) == (400, 1.5)
    per = (4412 * 4 + 7074 * 0.4 + 300 * 20) / 1e6
    for cv in (False, True):
        assert list(ts.compare(tr, cv=cv)["simulated"]) == pytest.approx([per, per, 2 * per], abs=1e-12)


def test_a_gpt_5_5_turn_reads_only_what_the_turn_before_started_from():
    # The hand-worked session with 60 s of thought, within the 300 s gpt-5.5's entry lives. The Responses
    # API strips the first turn's reasoning at the second prompt (OpenAI Cookbook, "Better performance from
    # reasoning models using the Responses API"), so the prompt differs from the first turn's first
    # reasoning item on: request 3 finds the 3,112 tokens turn 1 started from, floor(3,112 / 128) x 128 =
    # 3,072, not floor(3,562 / 128) x 128 = 3,456. Reads 3,072 + 3,072 + 3,840 = 9,984 x 0.5 = 4,992; not
    # read 3,112 + 490 + 790 + 472 = 4,864 x 5 = 24,320; output 500 x 30 = 15,000: $0.044312.
    quick = {**SESSION, "think_time": 60}
    run = ts.simulate(None, ts.Scenario(model="gpt-5.5", **quick))
    assert list(run.steps["cache_read"]) == [0, 3072, 3072, 3840] and list(run.steps["expired"]) == [1, 0, 0, 0]
    assert run.summary["cost_per_task"] == pytest.approx((4992 + 24_320 + 15_000) / 1e6, rel=0, abs=1e-9)
    # gpt-5.6-sol keeps earlier turns' reasoning (reasoning.context "all_turns", as Codex sends it): the
    # whole previous context, as with 600 s
    assert list(ts.simulate(None, ts.Scenario(model="gpt-5.6-sol", **quick)).steps["cache_read"]) == [0, 3112, 3562, 3862]


def test_gpt_5_5_rollouts_lose_the_turn_before_at_a_prompt_and_no_miss_is_fitted(tmp_path):
    # The session above as Codex records it: request 3 reads the 3,072 tokens turn 1 started from. The fit
    # finds no miss there (what was lost is the stripped reasoning), and prices each session to the cent.
    requests = [(5, 3112, 0, 50), (15, 3562, 3072, 200), (75, 3862, 3072, 50), (85, 4312, 3840, 200)]
    for s in ("019f0000-0000-7000-8000-000000000e01", "019f0000-0000-7000-8000-000000000e02"):
        rollout(tmp_path / f"rollout-{s}.jsonl", s, requests, prompts=[0, 70], model="gpt-5.5")
    tr = ts.load_traces(tmp_path, engine="python")
    m = fit_details(tr)["main"]
    assert (m["cache_miss"], m["prompt_cache_miss"]) == (0, 0)
    per = 0.044312
    for cv in (False, True):
        table = ts.compare(tr, cv=cv)
        assert list(table["billed"]) == pytest.approx([per, per, 2 * per], abs=1e-12)
        assert list(table["simulated"]) == pytest.approx([per, per, 2 * per], abs=1e-12)


def test_a_change_of_environment_finds_the_cache_cold(tmp_path):
    # gpt-5.6-sol, 60 s of thought, but the workspace changed before the second prompt (a world_state change):
    # request 3 reads what a thread's first request reads (prefix_hit, fitted: 0 here), so nothing, not a
    # miss at a prompt. Not read 3,112 + 450 + 3,862 + 450 = 7,874 x $4 = 31,496; read 3,112 + 3,862 =
    # 6,974 x $0.40 = 2,789.6; output 500 x $20 = 10,000: $0.0442856.
    requests = [(5, 3112, 0, 50), (15, 3562, 3112, 200), (75, 3862, 0, 50), (85, 4312, 3862, 200)]
    for s in ("019f0000-0000-7000-8000-000000000f01", "019f0000-0000-7000-8000-000000000f02"):
        rollout(tmp_path / f"rollout-{s}.jsonl", s, requests, prompts=[0, 70], changes=(70,))
    tr = ts.load_traces(tmp_path, engine="python")
    m = fit_details(tr)["main"]
    assert (m["prefix_hit"], m["cache_miss"], m["prompt_cache_miss"]) == (0, 0, 0)
    per = (31_496 + 2789.6 + 10_000) / 1e6
    for cv in (False, True):
        table = ts.compare(tr, cv=cv)
        assert list(table["billed"]) == pytest.approx([per, per, 2 * per], abs=1e-12)
        assert list(table["simulated"]) == pytest.approx([per, per, 2 * per], abs=1e-12)


def test_codex_compacts_at_ninety_percent_of_its_window_when_no_compaction_is_recorded(tmp_path):
    # No compaction in the rollouts: the model compacts where Codex does on its own, at 90% of the context
    # window its token counts name (codex-rs, auto_compact_token_limit): 258,400 x 9 / 10 = 232,560.
    for s in ("019f0000-0000-7000-8000-000000000a71", "019f0000-0000-7000-8000-000000000a72"):
        rollout(tmp_path / f"rollout-{s}.jsonl", s, WORKED, prompts=[0, 610], window=258_400)
    d = fit_details(ts.load_traces(tmp_path, engine="python"))
    assert d["compaction_at"] == 232_560 and "documented rule" in d["compaction_source"]
