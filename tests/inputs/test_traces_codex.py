"""Codex CLI rollout files: token_count events as requests, cached input priced as OpenAI prices it,
repeated running totals and a fork's replay of its parent counted once, tool calls read.

tests/data/traces/codex/ was written for toolsurvey in the layout of Codex CLI 0.98 rollouts
(tests/data/traces/README.md); the figures below are counted by hand from it.
"""

from __future__ import annotations

import json

import pytest
from conftest import TESTS

from toolsurvey.inputs.traces.files import detect
from toolsurvey.inputs.traces.load import load_traces

CODEX = TESTS / "data" / "traces" / "codex"
DAY = CODEX / "sessions" / "2026" / "02" / "11"
PARENT = "019c4a00-0000-7000-8000-000000000001"
# OpenAI's prices per million tokens for gpt-5-codex, gpt-5.1-codex and gpt-5 (the same in LiteLLM 1.110.2):
# $1.25 input, $0.125 cached input, $10 output (reasoning tokens are billed inside output)
IN, CACHED, OUT = 1.25, 0.125, 10


def usd(uncached, cached, out):
    return (uncached * IN + cached * CACHED + out * OUT) / 1e6


def test_rollouts_are_detected_per_file():
    assert {detect(f) for f in DAY.iterdir()} == {"codex"}


def test_token_counts_become_requests_counted_once():
    tr = load_traces(CODEX)
    r = tr.requests.sort_values(["session", "timestamp"])
    # parent: running totals (input, cached, output) 5000/0/200 -> 11000/4800/350 -> 17500/10500/400, with
    # one re-emit of the first total (no new request): steps 5000/0/200, 6000/4800/150, 6500/5700/50;
    # uncached input = input - cached
    parent = r[r["session"] == PARENT]
    assert list(parent["input_tokens"]) == [5000, 1200, 800]
    assert list(parent["cache_read"]) == [0, 4800, 5700]
    assert list(parent["output_tokens"]) == [200, 150, 50]
    assert list(parent["model"]) == ["gpt-5-codex", "gpt-5-codex", "gpt-5.1-codex"]  # the turn_context model
    # the fork replays the parent's two first events (counted once, from the parent) and adds one:
    # 17000/10200/420 after 11000/4800/350 -> 6000/5400/70
    fork = r[r["session"] == "019c4a00-0000-7000-8000-000000000002"]
    assert (list(fork["input_tokens"]), list(fork["cache_read"]), list(fork["output_tokens"])) == ([600], [5400], [70])
    assert [v[0] for v in tr.account.repeated_in.values()] == [2]  # the fork's two replayed lines, said once
    # a legacy file with last_token_usage only: two events, two requests (nothing says they repeat)
    legacy = r[r["session"] == "019c4a00-0000-7000-8000-000000000003"]
    assert list(legacy["input_tokens"]) == [2000, 2000] and list(legacy["cache_read"]) == [1000, 1000]
    by_hand = (usd(5000, 0, 200) + usd(1200, 4800, 150) + usd(800, 5700, 50)   # .00825 + .0036 + .0022125
               + usd(600, 5400, 70) + 2 * usd(2000, 1000, 40))                  # .002125 + 2 x .003025
    assert tr.requests["cost"].sum() == pytest.approx(by_hand, rel=1e-12) == pytest.approx(0.0222375, rel=1e-12)
    assert len(tr.requests) == 6 and not tr.account.incomplete


def test_tool_calls_and_outputs(cli):
    tr = load_traces(CODEX)
    c = tr.calls.set_index("call_id")
    assert c.loc["call_1", "tool"] == "shell" and c["server"].isna()["call_1"]  # a built-in tool
    assert (c.loc["call_2", "tool"], c.loc["call_2", "server"]) == ("search_issues", "github")  # an MCP tool
    assert c.loc["call_1", "result_tokens"] > 0 and json.loads(c.loc["call_1", "arguments"]) == {
        "command": ["rg", "load_config"]}
    code, out, _ = cli("traces", CODEX, "--by", "tool", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["totals"]["calls"] == 2 and {r["tool"] for r in doc["rows"]} == {"shell", "search_issues"}


def test_cli_summary_of_codex_and_claude_code_together(cli):
    code, out, _ = cli("traces", CODEX, TESTS / "data" / "traces" / "claude-code-progress-only", "--by", "model",
                       "--format", "json")
    rows = {r["model"]: r for r in json.loads(out)["rows"]}
    assert code == 0 and rows["gpt-5.1-codex"]["cache_read"] == 5700 and rows["gpt-5"]["requests"] == 2
    assert rows["claude-haiku-4-5-20251001"]["requests"] == 2
