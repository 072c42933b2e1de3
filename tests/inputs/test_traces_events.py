"""Prompts and compactions read from Claude Code files: where a session's turns start and where its
history was replaced by a summary."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from toolsurvey.inputs.traces.load import load_traces

SID = "11111111-2222-4333-8444-555555555555"


def _line(**kw):
    return json.dumps({"sessionId": SID, "uuid": f"u{len(kw)}", **kw}) + "\n"


def _assistant(rid, ts, total):
    return _line(type="assistant", requestId=rid, timestamp=ts, message={
        "model": "claude-opus-4-6", "content": [{"type": "text", "text": "ok"}],
        "usage": {"input_tokens": 1, "cache_creation_input_tokens": 100, "cache_read_input_tokens": total - 101,
                  "output_tokens": 20}})


@pytest.fixture
def session(tmp_path):
    """A session as Claude Code 2.1 writes one (written here): a prompt, a reminder (isMeta), a tool
    result, a typed command, an automatic compaction with its summary, a prompt as text blocks."""
    lines = [
        _line(type="file-history-snapshot", messageId="m0", snapshot={}),
        _line(type="user", timestamp="2026-02-11T20:00:00Z", message={"role": "user", "content": "Fix the login bug"}),
        _line(type="user", isMeta=True, timestamp="2026-02-11T20:00:00Z",
              message={"role": "user", "content": "<system-reminder>CLAUDE.md</system-reminder>"}),
        _assistant("r1", "2026-02-11T20:00:05Z", 20_000),
        _line(type="user", timestamp="2026-02-11T20:00:09Z", message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "done"}]}),
        _assistant("r2", "2026-02-11T20:00:12Z", 21_000),
        _line(type="user", timestamp="2026-02-11T20:07:00Z", message={"role": "user", "content": [
            {"type": "text", "text": "<command-name>/compact</command-name>"}]}),
        _line(type="system", subtype="compact_boundary", timestamp="2026-02-11T20:07:30Z", content="Conversation compacted",
              compactMetadata={"trigger": "manual", "preTokens": 21_200}),
        _line(type="user", isCompactSummary=True, isVisibleInTranscriptOnly=True, timestamp="2026-02-11T20:07:30Z",
              message={"role": "user", "content": "This session is being continued from a previous conversation"}),
        _line(type="user", timestamp="2026-02-11T20:09:00Z", message={"role": "user", "content": [
            {"type": "text", "text": "now the tests"}, {"type": "image", "source": {}}]}),
        _assistant("r3", "2026-02-11T20:09:04Z", 9_000),
    ]
    (tmp_path / f"{SID}.jsonl").write_text("".join(lines))
    return tmp_path


@pytest.mark.parametrize("engine", ["python", "duckdb"])
def test_prompts_and_compactions_are_events(session, engine):
    ev = load_traces(session, engine=engine).events
    assert list(ev["kind"]) == ["prompt", "prompt", "compaction", "prompt"]  # no reminder, result or summary
    assert list(ev["timestamp"]) == list(pd.to_datetime(["2026-02-11T20:00:00Z", "2026-02-11T20:07:00Z",
                                                         "2026-02-11T20:07:30Z", "2026-02-11T20:09:00Z"], utc=True))
    comp = ev[ev["kind"] == "compaction"].iloc[0]
    assert (comp["tokens"], comp["detail"]) == (21_200, "manual")
    assert set(ev["session"]) == {SID} and set(ev["agent"]) == {""}


def test_a_subagent_files_prompt_belongs_to_its_agent(session):
    sub = session / SID / "subagents" / "agent-a1b2c3.jsonl"
    sub.parent.mkdir(parents=True)
    sub.write_text(_line(type="user", isSidechain=True, agentId="a1b2c3", timestamp="2026-02-11T20:01:00Z",
                         message={"role": "user", "content": "Explore the auth module"})
                   + _assistant("s1", "2026-02-11T20:01:02Z", 12_000))
    ev = load_traces(session, engine="python").events
    assert list(ev.loc[ev["agent"] == "a1b2c3", "kind"]) == ["prompt"]
