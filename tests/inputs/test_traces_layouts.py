"""Every Claude Code layout met, read whole: metadata lines first, subagents seen in progress lines
(with and without their own file), two objects on one line, a truncated last line, non-trace files.

The fixtures in tests/data/traces/ were written for toolsurvey (tests/data/traces/README.md); the
expected figures below are counted by hand from them, with the arithmetic in the comments.
"""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import TESTS

from toolsurvey.core.jsonlines import Skips, json_lines
from toolsurvey.inputs.traces.files import detect
from toolsurvey.inputs.traces.load import load_traces

LAYOUTS = TESTS / "data" / "traces"
NEW = LAYOUTS / "claude-code-2.1.9x" / "projects" / "-work-demo"
PROGRESS_ONLY = LAYOUTS / "claude-code-progress-only"
RACE = LAYOUTS / "claude-code-write-race"
PARENT = NEW / "a0000000-0000-4000-8000-000000000001.jsonl"
SUBAGENT = NEW / "a0000000-0000-4000-8000-000000000001" / "subagents" / "agent-a1b2c3.jsonl"
# Dollars per million tokens (Anthropic's pricing page; the same in LiteLLM 1.110.2):
# (input, 5-minute write, 1-hour write, cache read, output)
SONNET = (3, 3.75, 6, 0.30, 15)      # claude-sonnet-4-5
HAIKU = (1, 1.25, 2, 0.10, 5)        # claude-haiku-4-5


def cost(price, inp, w5, w1h, read, out) -> float:
    return (inp * price[0] + w5 * price[1] + w1h * price[2] + read * price[3] + out * price[4]) / 1e6


def totals(tr) -> tuple:
    r = tr.requests
    return (len(r), *(int(r[f].sum()) for f in ("input_tokens", "cache_write_5m", "cache_write_1h", "cache_read",
                                                 "output_tokens")))


def test_metadata_lines_first_are_still_claude_code():
    # permission-mode, worktree-state, a 70 KB attachment and a file-history-snapshot come before the
    # first user line: detection looks past the first 64 KB
    first_user = PARENT.read_bytes().index(b'"type":"user"')
    assert first_user > 1 << 16
    assert detect(PARENT) == "claude-code"
    tr = load_traces(NEW)
    assert set(tr.files.values()) == {"claude-code"} and len(tr.files) == 2
    # req_A1 (3, 0, 10000, 0, 120) + req_A2 (5, 0, 200, 10000, 60) + the subagent's req_S1 (2, 0, 3000, 0, 40)
    assert totals(tr) == (3, 3 + 5 + 2, 0, 10000 + 200 + 3000, 10000, 120 + 60 + 40)
    by_hand = (cost(SONNET, 3, 0, 10000, 0, 120) + cost(SONNET, 5, 0, 200, 10000, 60)
               + cost(HAIKU, 2, 0, 3000, 0, 40))  # 0.061809 + 0.005115 + 0.006202
    assert tr.requests["cost"].sum() == pytest.approx(by_hand, rel=1e-12) == pytest.approx(0.073126, rel=1e-12)
    # ai-title and last-prompt are known metadata: no unknown line type, nothing skipped
    assert not tr.account.unknown_types and not tr.skips.items and not tr.account.incomplete


def test_progress_usage_with_the_subagents_own_file_counts_once_from_the_file():
    for order in ([PARENT, SUBAGENT], [SUBAGENT, PARENT]):  # whichever file is read first
        tr = load_traces([str(p) for p in order])
        sub = tr.requests.set_index("request_id").loc["req_S1"]
        assert len(tr.requests) == 3 and sub["source"] == "file" and sub["file"] == str(SUBAGENT)
        assert (sub["cache_write_1h"], sub["output_tokens"], sub["agent"], bool(sub["subagent"])) == (
            3000, 40, "a1b2c3", True)
        assert "1 request also in progress lines counted once, from the subagent's own file" in tr.summary()
        # the Grep call appears in both files: one call
        assert list(tr.calls["tool"]).count("Grep") == 1


def test_progress_usage_without_the_subagents_file_is_counted_from_progress(tmp_path):
    shutil.copy(PARENT, tmp_path / PARENT.name)  # the parent alone
    tr = load_traces(tmp_path)
    sub = tr.requests.set_index("request_id").loc["req_S1"]
    # the same request as in the subagent's file: streamed over two progress lines, output 1 -> 40
    assert (sub["source"], sub["cache_write_1h"], sub["output_tokens"], sub["agent"]) == ("progress", 3000, 40, "a1b2c3")
    assert tr.requests["cost"].sum() == pytest.approx(0.073126, rel=1e-12)  # the same bill as with the file
    assert "+1 request (+2 input, +3,000 cache write, +40 output tokens, +$0.0062)" in tr.summary()


def test_progress_only_layout():
    tr = load_traces(PROGRESS_ONLY)
    r = tr.requests.set_index("request_id")
    # the parent's req_B1 (4, 8000, 0, 0, 30) and req_B2 (2, 300, 0, 8000, 50); the subagent's req_P1
    # (1, 2000, 0, 0, 25: streamed over two progress lines) and req_P2 (1, 100, 0, 2000, 12), from progress only
    assert totals(tr) == (4, 4 + 2 + 1 + 1, 8000 + 300 + 2000 + 100, 0, 8000 + 2000, 30 + 50 + 25 + 12)
    assert list(r.loc[["req_P1", "req_P2"], "source"]) == ["progress", "progress"]
    assert r.loc["req_P1", "subagent"] and r.loc["req_P1", "agent"] == "f00d"
    assert r.loc["req_P1", "model"] == "claude-haiku-4-5-20251001"
    # no 5m/1h split recorded (older versions): every write is a 5-minute write
    by_hand = (cost(SONNET, 4, 8000, 0, 0, 30) + cost(SONNET, 2, 300, 0, 8000, 50)
               + cost(HAIKU, 1, 2000, 0, 0, 25) + cost(HAIKU, 1, 100, 0, 2000, 12))  # .030462+.004281+.002626+.000386
    assert tr.requests["cost"].sum() == pytest.approx(by_hand, rel=1e-12) == pytest.approx(0.037755, rel=1e-12)
    # the subagent's tool call and result, relayed in progress lines, are read too
    grep = tr.calls.set_index("tool").loc["Grep"]
    assert grep["agent"] == "f00d" and grep["result_tokens"] > 0
    rule = next(x for x in tr.account.rules if x.name == "progress lines")
    assert (rule.requests, rule.cost) == (2, pytest.approx(cost(HAIKU, 1, 2000, 0, 0, 25) + cost(HAIKU, 1, 100, 0, 2000, 12)))


def test_two_objects_on_one_line_and_a_truncated_last_line():
    tr = load_traces(RACE)
    # req_C1 (6, 0, 12000, 0, 80) shares line 3 with a file-history-snapshot; req_C2 (4, 0, 100, 12000, 30);
    # req_C3 is cut short on line 5 (the session is still being written)
    assert totals(tr) == (2, 10, 0, 12100, 12000, 110)
    assert tr.requests["cost"].sum() == pytest.approx(cost(SONNET, 6, 0, 12000, 0, 80) + cost(SONNET, 4, 0, 100, 12000, 30))
    summary = tr.summary()
    assert "joined lines: +1 request (+6 input, +12,000 cache write, +80 output tokens, +$0.0732)" in summary
    assert tr.skips.reasons["truncated last line"] == 1 and tr.skips.items[0].line == 5
    assert "TOTALS ARE INCOMPLETE" in summary and "1 truncated last line, 150 bytes" in summary


def test_json_lines_reads_every_object_of_a_line_and_words_a_broken_rest(tmp_path):
    p = tmp_path / "race.jsonl"
    p.write_bytes(b'{"a": 1}{"b": 2}\n{"c": 3} {"d":\n{"e": 5}\n')
    skips = Skips()
    assert list(json_lines(p, skips)) == [(1, {"a": 1}), (1, {"b": 2}), (2, {"c": 3}), (3, {"e": 5})]
    assert [(s.line, s.reason) for s in skips.joined] == [(1, "2 JSON values on one line (a write race); each read")]
    assert [(s.line, s.reason.split(" (")[0]) for s in skips.items] == [(2, "not valid JSON")]
    assert "after 1 complete value(s)" in skips.items[0].reason


def test_files_that_are_not_traces_are_one_summary_line(tmp_path, cli):
    src = (RACE / "projects" / "-work-demo" / "c0000000-0000-4000-8000-000000000003.jsonl").read_text()
    for i in range(24):  # a metadata.json beside each session, as some tools store them
        d = tmp_path / f"rec-{i:02d}"
        d.mkdir()
        (d / "transcript.jsonl").write_text(src.replace("req_C", f"req_{i}_"))
        (d / "metadata.json").write_text(json.dumps({"title": f"run {i}", "agent": "claude-code"}))
    code, out, err = cli("traces", tmp_path, "--by", "model")
    assert code == 0
    assert "24 files are not traces (metadata.json x24)" in out
    assert "metadata.json" not in err  # no warning per file
    tr = load_traces(tmp_path)
    assert len(tr.files) == 24 and not any(s.file.endswith("metadata.json") for s in tr.skips.items)


def test_an_unknown_file_or_line_that_mentions_usage_makes_the_totals_incomplete(tmp_path):
    shutil.copytree(PROGRESS_ONLY, tmp_path / "t")
    (tmp_path / "t" / "export.json").write_text(json.dumps({"rows": [{"usage": {"input_tokens": 5}}]}))
    tr = load_traces(tmp_path / "t")
    assert tr.account.incomplete and "1 file of unknown format" in tr.summary()
    assert f"{(tmp_path / 't' / 'export.json').stat().st_size:,} bytes" in tr.summary()
    # a line of a type no reader knows, carrying usage: counted per type, and the totals say so
    s = tmp_path / "u" / "s.jsonl"
    s.parent.mkdir()
    s.write_text("\n".join(json.dumps(x) for x in [
        {"type": "user", "sessionId": "s", "message": {"role": "user", "content": "hi"}},
        {"type": "assistant-v2", "sessionId": "s", "message": {"usage": {"input_tokens": 9}}},
        {"type": "assistant-v2", "sessionId": "s", "message": {"usage": {"input_tokens": 9}}}]) + "\n")
    tr = load_traces(s)
    assert tr.account.unknown_types["assistant-v2"][0] == 2
    assert "TOTALS ARE INCOMPLETE" in tr.summary() and "2 line(s) of unknown types with usage" in tr.summary()
    assert any("unknown line type 'assistant-v2' x2" in w for w in tr.warnings)


def test_a_cut_gzip_keeps_every_line_before_the_cut(tmp_path):
    import gzip

    body = b"".join(b'{"n": %d}\n' % i for i in range(20000))
    whole = gzip.compress(body[:100000]) + gzip.compress(body[100000:])  # two members, as `cat a.gz b.gz`
    (tmp_path / "two.jsonl.gz").write_bytes(whole)
    skips = Skips()
    assert [v["n"] for _, v in json_lines(tmp_path / "two.jsonl.gz", skips)] == list(range(20000)) and not skips.items
    (tmp_path / "cut.jsonl.gz").write_bytes(gzip.compress(body)[:30000])
    got = [v["n"] for _, v in json_lines(tmp_path / "cut.jsonl.gz", skips)]
    assert got == list(range(len(got))) and 0 < len(got) < 20000
    assert skips.reasons["corrupt gzip"] == 1 and skips.items[-1].line == len(got) + 1
