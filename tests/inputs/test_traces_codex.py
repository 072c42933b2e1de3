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


# ---------------------------------------------------------------- Codex 0.14x rollouts

LAYOUT = TESTS / "data" / "traces" / "codex-0.14x"
SESSION_A, SUBAGENT_B = "019f0000-0000-7000-8000-0000000000a1", "019f0000-0000-7000-8000-0000000000b2"
# gpt-5.6-sol per million tokens (LiteLLM 1.110.2): $4 input, $5 cache write (1.25x), $0.40 cached input, $20 output
SOL = {"input_tokens": 4, "cache_write": 5, "cache_read": 0.4, "output_tokens": 20}
# codex-0.14x, counted by hand from the files (tests/data/traces/README.md): session A's four token counts
# (input, cached, written, output) 20,000/0/0/300, 21,000/19,968/0/200, 22,500/20,992/1,024/150 and, after a
# compaction and a re-emitted total, 6,000/4,992/0/100; its subagent B's 8,000/0/-/120 and 9,000/7,936/-/80.
# Uncached = input - cached - written: 20,000 + 1,032 + 484 + 1,008 + 8,000 + 1,064 = 31,588.
LAYOUT_TOKENS = {"input_tokens": 31_588, "cache_write": 1_024, "cache_read": 19_968 + 20_992 + 4_992 + 7_936,
                 "output_tokens": 300 + 200 + 150 + 100 + 120 + 80}
LAYOUT_COST = sum(n * SOL[k] for k, n in LAYOUT_TOKENS.items()) / 1e6  # 0.1720272


def test_codex_014x_world_state_lines_are_the_threads_environment_not_requests():
    tr = load_traces(LAYOUT)
    totals = {k: int(tr.requests[k].sum()) for k in LAYOUT_TOKENS}
    assert totals == LAYOUT_TOKENS and len(tr.requests) == 6
    assert tr.requests["cost"].sum() == pytest.approx(LAYOUT_COST, rel=1e-12) == pytest.approx(0.1720272, rel=1e-12)
    # two world_state lines, one of them an AGENTS.md whose text quotes "input_tokens": known, no usage
    assert not tr.account.unknown_types and not tr.account.incomplete
    assert "unknown line" not in tr.summary() and "INCOMPLETE" not in tr.summary()


def test_a_spawned_subagent_is_a_thread_of_its_parents_session():
    r = load_traces(LAYOUT).requests
    assert set(r["session"]) == {SESSION_A}
    sub = r[r["subagent"]]
    assert list(sub["agent"]) == [SUBAGENT_B, SUBAGENT_B] and list(sub["input_tokens"]) == [8_000, 1_064]


def test_codex_prompts_compactions_the_context_window_and_environment_changes_are_events():
    ev = load_traces(LAYOUT).events
    prompts = ev[ev["kind"] == "prompt"].sort_values("timestamp")
    assert list(zip(prompts["agent"], prompts["timestamp"].dt.strftime("%H:%M:%S"), strict=True)) == [
        ("", "10:00:00"), (SUBAGENT_B, "10:00:04"), ("", "10:06:00")]
    comp = ev[ev["kind"] == "compaction"]
    assert list(comp["tokens"]) == [22_500]  # the context of the request before it
    window = ev[ev["kind"] == "context_window"]  # once per thread, while it does not change
    assert sorted(zip(window["agent"], window["tokens"], strict=True)) == [("", 258_400), (SUBAGENT_B, 258_400)]
    # Codex compacts on its own at 90% of the window (codex-rs openai_models.rs): 258,400 x 9 / 10
    limit = ev[ev["kind"] == "compact_limit"]
    assert sorted(zip(limit["agent"], limit["tokens"], strict=True)) == [("", 232_560), (SUBAGENT_B, 232_560)]
    # the world_state line that changes the environment (not the whole one the thread starts with)
    env = ev[ev["kind"] == "environment"]
    assert list(zip(env["agent"], env["timestamp"].dt.strftime("%H:%M:%S"), strict=True)) == [("", "10:06:00")]


def test_both_readers_print_the_same_totals_and_completeness(cli, tmp_path):
    """The summary path (totals only, lines without usage passed over) and the full reader (--by tool)
    give the same totals and say the same about what they could not read."""
    def notes(*argv):
        code, out, err = cli("traces", *argv, "--format", "json")
        doc = json.loads(out)
        return code, doc["incomplete"], [n for n in doc["notes"] if "INCOMPLETE" in n or "unknown line" in n]

    code, out, _ = cli("traces", LAYOUT, "--format", "json")
    assert code == 0 and json.loads(out)["totals"]["cost"] == pytest.approx(LAYOUT_COST, rel=1e-12)
    assert notes(LAYOUT)[1:] == notes(LAYOUT, "--by", "tool")[1:] == (False, [])
    # a line of a type no reader knows that holds a usage object: both say the totals are incomplete
    day = tmp_path / "sessions"
    day.mkdir()
    for f in (LAYOUT / "sessions" / "2026" / "07" / "13").iterdir():
        (day / f.name).write_text(f.read_text())
    with open(day / next(iter(sorted(p.name for p in day.iterdir()))), "a") as f:
        f.write(json.dumps({"timestamp": "2026-07-13T10:07:00Z", "type": "turn_usage",
                            "payload": {"usage": {"input_tokens": 10, "output_tokens": 2}}}) + "\n")
    summary, full = notes(day), notes(day, "--by", "tool")
    assert summary[1] is full[1] is True
    assert [n for n in summary[2] if "INCOMPLETE" in n] == [n for n in full[2] if "INCOMPLETE" in n] == [
        "TOTALS ARE INCOMPLETE: skipped, and could hold billed usage: 1 line(s) of unknown types with usage"]


def test_a_resumed_session_is_one_line_and_verbose_lists_its_files(cli):
    """The fork in tests/data/traces/codex replays two of its parent's requests: counted once, said in
    one line (not a warning per line); -v lists the file."""
    code, out, err = cli("traces", CODEX)
    said = [line for line in (out + err).splitlines() if "resumed" in line or "already read from" in line]
    assert code == 0 and len(said) == 1
    assert said[0].startswith("resumed sessions: 2 requests repeated in 1 file (2 lines: a resumed, forked or copied")
    assert "counted once" in out + err and "warning" not in err
    code, out, err = cli("traces", CODEX, "-v", "--wide")
    listed = [line for line in (out + err).splitlines() if "already read from" in line]
    assert code == 0 and len(listed) == 1 and "019c4a00-0000-7000-8000-000000000002" in listed[0]
