"""The trace views ccusage users expect: days, weeks, months, 5-hour blocks, sessions, models and
projects with a Total, JSON with a totals object, --since/--until, time zones, a per-model breakdown,
the default location, and bad input as one line.

The figures are counted by hand: seven requests whose input tokens are powers of two (1, 2, 4, ...
64), so a group's input total says exactly which requests it holds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT

from toolsurvey.inputs.traces.load import load_traces

# (UTC time, input tokens); 2026-01-31 is a Saturday, 2026-02-01 a Sunday, 2026-02-02 and -09 Mondays.
TIMES = [("2026-01-31T22:30:00Z", 1), ("2026-02-01T01:10:00Z", 2), ("2026-02-01T03:59:00Z", 4),
         ("2026-02-01T04:05:00Z", 8), ("2026-02-01T09:20:00Z", 16), ("2026-02-02T08:00:00Z", 32),
         ("2026-02-09T12:00:00.5+00:00", 64)]
PER_TOKEN = 3 / 1e6  # claude-sonnet-4-5 input, $3 per million


def _line(i, ts, n, session="s1", model="claude-sonnet-4-5-20250929"):
    return {"type": "assistant", "sessionId": session, "requestId": f"r{i}", "timestamp": ts, "cwd": "/w",
            "message": {"id": f"m{i}", "model": model, "role": "assistant", "content": [],
                        "usage": {"input_tokens": n, "output_tokens": 0}}}


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "projects" / "-w"
    d.mkdir(parents=True)
    lines = [_line(i, ts, n, session="s1" if i < 4 else "s2") for i, (ts, n) in enumerate(TIMES)]
    (d / "s.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return tmp_path


def by(cli, folder, *args) -> dict:
    code, out, err = cli("traces", folder, "--format", "json", *args)
    assert code == 0, err
    doc = json.loads(out)
    key = doc["by"]
    return {r[key]: r["input_tokens"] for r in doc["rows"]} | {"Total": doc["totals"]["input_tokens"]}


def test_days_in_utc_new_york_and_tokyo(cli, folder):
    assert by(cli, folder, "--by", "day", "-z", "UTC") == {
        "2026-01-31": 1, "2026-02-01": 2 + 4 + 8 + 16, "2026-02-02": 32, "2026-02-09": 64, "Total": 127}
    # New York is UTC-5 in winter: r1-r4 (17:30-23:05) fall on January 31
    assert by(cli, folder, "--by", "day", "-z", "America/New_York") == {
        "2026-01-31": 1 + 2 + 4 + 8, "2026-02-01": 16, "2026-02-02": 32, "2026-02-09": 64, "Total": 127}
    # Tokyo is UTC+9: r1-r5 (07:30-18:20) fall on February 1
    assert by(cli, folder, "--by", "day", "-z", "Asia/Tokyo")["2026-02-01"] == 1 + 2 + 4 + 8 + 16


def test_weeks_from_sunday_or_monday_and_months(cli, folder):
    # Sunday weeks: Sat Jan 31 is in the week of Sun Jan 25; Sun Feb 1 - Mon Feb 2 in the week of Feb 1
    assert by(cli, folder, "--by", "week", "-z", "UTC") == {
        "2026-01-25": 1, "2026-02-01": 2 + 4 + 8 + 16 + 32, "2026-02-08": 64, "Total": 127}
    assert by(cli, folder, "--by", "week", "-z", "UTC", "--start-of-week", "monday") == {
        "2026-01-26": 1 + 2 + 4 + 8 + 16, "2026-02-02": 32, "2026-02-09": 64, "Total": 127}
    assert by(cli, folder, "--by", "month", "-z", "UTC") == {"2026-01": 1, "2026-02": 126, "Total": 127}
    assert by(cli, folder, "--by", "month", "-z", "America/New_York") == {"2026-01": 15, "2026-02": 112, "Total": 127}


def test_five_hour_blocks_start_at_the_hour_of_their_first_request(cli, folder):
    # r1 22:30 opens the block of 22:00; r2 01:10 is in it (3h10 after); r3 03:59 is 5h59 after 22:00: a
    # new block at 03:00 with r4 04:05; r5 09:20 is 6h20 after 03:00: a block at 09:00; r6, r7 one each
    code, out, _ = cli("traces", folder, "--by", "block", "-z", "UTC", "--format", "json")
    rows = json.loads(out)["rows"]
    assert [(r["block"], r["input_tokens"], r["requests"], r["last"], r["end"]) for r in rows] == [
        ("2026-01-31 22:00", 1 + 2, 2, "2026-02-01 01:10", "2026-02-01 03:00"),
        ("2026-02-01 03:00", 4 + 8, 2, "2026-02-01 04:05", "2026-02-01 08:00"),
        ("2026-02-01 09:00", 16, 1, "2026-02-01 09:20", "2026-02-01 14:00"),
        ("2026-02-02 08:00", 32, 1, "2026-02-02 08:00", "2026-02-02 13:00"),
        ("2026-02-09 12:00", 64, 1, "2026-02-09 12:00", "2026-02-09 17:00")]
    # shown in Tokyo time, the same blocks
    code, out, _ = cli("traces", folder, "--by", "block", "-z", "Asia/Tokyo", "--format", "json")
    assert [r["block"] for r in json.loads(out)["rows"]][:2] == ["2026-02-01 07:00", "2026-02-01 12:00"]


def test_since_and_until(cli, folder):
    # dates are whole days in the zone, --until included
    assert by(cli, folder, "--since", "2026-02-01", "--until", "20260201", "-z", "UTC", "--by", "day") == {
        "2026-02-01": 30, "Total": 30}
    # in New York, February 1 runs from 05:00Z to 05:00Z the next day: r5 only
    assert by(cli, folder, "--since", "2026-02-01", "--until", "2026-02-01", "-z", "America/New_York")["Total"] == 16
    # times with their zone; --until excludes its instant (r6 at 08:00Z is out)
    assert by(cli, folder, "--since", "2026-02-01T04:00Z", "--until", "2026-02-02T09:00+01:00")["Total"] == 8 + 16
    assert by(cli, folder, "--since", "2026-02-02")["Total"] == 32 + 64


def test_sessions_models_projects_breakdown_and_the_total_row(cli, folder):
    assert by(cli, folder, "--by", "session") == {"s1": 1 + 2 + 4 + 8, "s2": 16 + 32 + 64, "Total": 127}
    assert by(cli, folder, "--by", "project") == {"-w": 127, "Total": 127}
    code, out, _ = cli("traces", folder, "--by", "month", "-z", "UTC", "--breakdown", "--format", "json")
    doc = json.loads(out)
    assert doc["rows"][1]["models"] == [{"model": "claude-sonnet-4-5-20250929", **{
        k: doc["rows"][1][k] for k in doc["rows"][1] if k not in ("month", "models")}}]
    assert doc["totals"]["cost"] == pytest.approx(127 * PER_TOKEN) and doc["totals"]["requests"] == 7
    code, out, _ = cli("traces", folder, "--by", "day", "-z", "UTC", "--breakdown")
    lines = out.splitlines()
    assert lines[-1].split()[:3] == ["Total", "7", "127"]
    assert any(x.strip().startswith("└ claude-sonnet-4-5") for x in lines)


def test_the_collector_is_back_on_after_the_command(cli, folder):
    import gc

    assert gc.isenabled()
    by(cli, folder, "--by", "day")  # the summary path reads with the cyclic collector off
    assert gc.isenabled()  # a caller in the same process (a notebook, a test) gets it back
    assert cli("traces", folder, "--since", "tomorrow")[0] == 2  # and after bad input too
    assert gc.isenabled()


def test_the_library_gives_the_cli_numbers(folder):
    tr = load_traces(folder)
    week = tr.totals("week", timezone="UTC", week_start="monday")
    assert dict(zip(week["week"], week["input_tokens"], strict=True)) == {"2026-01-26": 31, "2026-02-02": 32,
                                                                        "2026-02-09": 64}
    assert list(tr.totals("block", timezone="UTC")["requests"]) == [2, 2, 1, 1, 1]


def test_bad_input_is_one_line_and_exit_2(cli, folder):
    for args, says in [(["--since", "2026-02-03", "--until", "2026-02-01"], "is not before --until"),
                       (["--since", "2026-02-01T04:00"], "a time with no zone"),
                       (["--until", "yesterday"], "expected a date"),
                       (["-z", "Mars/Olympus_Mons"], "unknown time zone 'Mars/Olympus_Mons'")]:
        code, out, err = cli("traces", folder, *args)
        assert code == 2 and says in err and len(err.strip().splitlines()) == 1, (args, err)


def test_a_trace_time_with_no_zone_is_a_counted_warning_read_as_utc(cli, tmp_path):
    lines = [_line(0, "2026-02-01T10:00:00", 5), _line(1, "2026-02-01T11:00:00", 7), _line(2, "2026-02-01T12:00Z", 9)]
    f = tmp_path / "s.jsonl"
    f.write_text("".join(json.dumps(x) + "\n" for x in lines))
    code, out, _ = cli("traces", f, "--by", "day", "-z", "UTC", "--wide")
    assert code == 0 and f"2 lines with usage have a time with no zone (first at {f}:1): read as UTC" in out


def test_no_path_reads_where_claude_code_and_codex_keep_sessions(folder, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "CODEX_HOME")}
    run = [sys.executable, "-m", "toolsurvey", "traces", "--format", "json", "-z", "UTC", "--wide"]
    # CLAUDE_CONFIG_DIR (comma-separated) holds projects/
    out = subprocess.run(run, env={**env, "CLAUDE_CONFIG_DIR": f"{folder},{tmp_path / 'none'}", "HOME": str(tmp_path)},
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["totals"]["input_tokens"] == 127
    assert f"read: {folder / 'projects'} (where the agents keep sessions)" in out.stderr
    # else ~/.claude/projects
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (folder / "projects").rename(home / ".claude" / "projects")
    out = subprocess.run(run, env={**env, "HOME": str(home)}, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0 and json.loads(out.stdout)["totals"]["requests"] == 7
    # nowhere: one line, exit 2
    out = subprocess.run(run, env={**env, "HOME": str(tmp_path / "empty")}, capture_output=True, text=True, cwd=ROOT,
                         timeout=120)
    assert out.returncode == 2 and "no trace folder given" in out.stderr and len(out.stderr.splitlines()) == 1
