"""Every line the CLI prints fits the terminal, or 100 columns when there is none: tables, headers,
warnings, notes and progress lines, for every command (COLUMNS=100). `--wide` keeps long lines whole;
the assumptions read as text.

Long names and long words are what make lines long, so the commands run on the real registries (of
tests/data and ../shared/data/tools) that hold the longest of each (LONGEST: the rule picks them,
not a list), and on registries hypothesis draws with names and words longer than any real one."""

from __future__ import annotations

import contextlib
import io
import json
import os
import pty
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from _public_data import REAL_TOOLS, SHARED
from _strategies import ODD
from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolsurvey as ts
from toolsurvey.cli import _commands, main

REGISTRIES = sorted(REAL_TOOLS.glob("*.json")) + sorted((SHARED / "tools").glob("*.json"))
WIDTH = 100


def _longest_word(reg) -> int:
    return max((len(w) for t in reg.tools for w in (t.description or "").split()), default=0)


# What makes a line long, each measured on every registry; the registry with the most of each runs.
LONGEST = {
    "tool name": lambda reg: max((len(t.name) for t in reg.tools), default=0),
    "server name": lambda reg: max((len(s) for s in reg.servers), default=0),
    "server and tool name": lambda reg: max((len(t.server) + len(t.name) for t in reg.tools), default=0),
    "word in a description": _longest_word,
    "tools": lambda reg: len(reg.tools),  # the widest counts and the longest tables
}


def longest_registries() -> list[Path]:
    """For each measure in LONGEST, the registry that has the most of it (the next one when that
    registry was already chosen for another measure): len(LONGEST) distinct registries."""
    loaded = {p: ts.load(p) for p in REGISTRIES}
    chosen: list[Path] = []
    for measure in LONGEST.values():
        ranked = sorted(REGISTRIES, key=lambda p: (-measure(loaded[p]), p.stem))
        chosen.append(next(p for p in ranked if p not in chosen))
    return chosen


def lines_of(argv: list[str]) -> tuple[int, list[str]]:
    """Run the CLI in-process; the exit code and every line it printed on stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as e:  # --help
            code = e.code
    return code, (out.getvalue() + err.getvalue()).splitlines()


def too_wide(lines: list[str]) -> list[str]:
    return [line for line in lines if len(line) > WIDTH]


def client_home(tmp_path, reg_path) -> dict:
    """A HOME whose Claude Code, Codex and Gemini CLI configs name the registry's servers (measured
    from the file with --snapshot)."""
    servers = ts.load(reg_path).servers
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True, exist_ok=True)
    (home / ".gemini").mkdir(exist_ok=True)
    entries = json.dumps({"mcpServers": {n: {"command": "unused"} for n in servers}})
    (home / ".claude.json").write_text(entries)
    (home / ".gemini" / "settings.json").write_text(entries)
    (home / ".codex" / "config.toml").write_text(
        "".join(f'[mcp_servers.{json.dumps(n)}]\ncommand = "unused"\n' for n in servers))
    return {"HOME": str(home)}


def per_registry(reg, tmp_path) -> list[list]:
    """Each command's argv on one registry file."""
    other = REGISTRIES[(REGISTRIES.index(reg) + 1) % len(REGISTRIES)] if reg in REGISTRIES else REGISTRIES[0]
    return [["footprint", reg], ["footprint", reg, "--by", "server"], ["footprint", reg, "--by", "part"],
            ["audit", reg], ["plan", reg], ["simulate", reg, "--steps", "1-12", "--visible", "10,40"],
            ["check", reg, "--max-tool-tokens", "150", "--max-request-tokens", "2000"],
            ["report", reg, "-o", tmp_path / "report.html"], ["diff", other, reg],
            ["convert", reg, "--to", "openai-chat", "-o", tmp_path / "tools.json"],
            ["calibrate", reg, "--provider", "anthropic:claude-sonnet-4-5", "--dry-run"]]


def too_wide_anywhere(reg: Path, tmp_path: Path, monkeypatch) -> dict[str, list[str]]:
    """Every command on `reg` (and `context` for three clients whose configs name its servers): the
    lines wider than WIDTH, by command; an empty dict when every line fits."""
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    wide = {}
    for argv in per_registry(reg, tmp_path):
        code, lines = lines_of(argv)
        assert code in (0, 1), (argv, lines[-3:])
        wide[argv[0] + " " + " ".join(map(str, argv[2:]))] = too_wide(lines)
    for key, value in client_home(tmp_path, reg).items():
        monkeypatch.setenv(key, value)
    for client in ("claude-code", "codex", "gemini-cli"):  # their notes on the names they rewrite too
        code, lines = lines_of(["context", "--client", client, "--snapshot", reg, "--project", tmp_path])
        assert code == 0, (client, lines[-3:])
        wide[f"context {client}"] = too_wide(lines)
    return {k: v for k, v in wide.items() if v}


@pytest.mark.parametrize("reg", longest_registries(), ids=lambda p: p.stem)
def test_every_command_fits_100_columns_on_the_real_registries_with_the_longest_names(reg, tmp_path, monkeypatch):
    assert too_wide_anywhere(reg, tmp_path, monkeypatch) == {}


# Names as providers allow them (^[a-zA-Z0-9_-]{1,64}$), at the long end; words longer than the width,
# among ordinary words and odd text (control and bidi characters are escaped, which lengthens them).
long_names = st.from_regex(r"[a-z][a-zA-Z0-9_-]{40,63}", fullmatch=True)
long_words = st.from_regex(r"[a-zA-Z0-9_./:-]{60,160}", fullmatch=True)
prose = st.lists(st.one_of(long_words, st.sampled_from(ODD), st.sampled_from(["Look", "up", "the", "record", "by", "id;", "returns",
                                                        "JSON."])), min_size=1, max_size=30).map(" ".join)


@st.composite
def long_named_registry(draw) -> dict:
    """A registry file (`{"servers": {name: {"tools": [...]}}}`) of 1-2 servers with long names,
    tools with long names, long parameter names and descriptions with words longer than the width."""
    servers = draw(st.lists(st.from_regex(r"[a-z][a-z0-9-]{30,60}", fullmatch=True), min_size=1, max_size=2,
                            unique=True))
    names = draw(st.lists(long_names, min_size=len(servers), max_size=6, unique=True))
    out = {s: {"tools": []} for s in servers}
    for i, name in enumerate(names):
        params = draw(st.dictionaries(long_names, prose.map(lambda d: {"type": "string", "description": d}),
                                      max_size=3))
        out[servers[i % len(servers)]]["tools"].append(
            {"name": name, "description": draw(prose), "inputSchema": {"type": "object", "properties": params}})
    return {"servers": out}


@settings(max_examples=4, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(doc=long_named_registry())
def test_every_command_fits_100_columns_on_registries_with_longer_names_than_any_real_one(doc, monkeypatch):
    with tempfile.TemporaryDirectory() as folder:
        reg = Path(folder) / "long-names.json"
        reg.write_text(json.dumps(doc))
        assert too_wide_anywhere(reg, Path(folder), monkeypatch) == {}


def test_commands_without_a_registry_fit_too(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    missing = tmp_path / "a-server-that-is-not-installed-with-a-long-name-to-make-its-failure-line-long"
    runs = [["responses", ROOT / "data" / "responses"], ["prices", "show"], ["prices", "show", "gemini-2.5-pro"],
            ["traces", ROOT / "data" / "traces"],
            ["discover", "--connect-timeout", "5", "--", missing, "--with", "many", "arguments", "x" * 40]]
    for argv in runs:
        code, lines = lines_of(argv)
        assert code in (0, 1), (argv, lines[-3:])
        assert too_wide(lines) == [], argv


def test_every_commands_help_fits(monkeypatch):
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    for name in _commands():
        code, lines = lines_of([name.replace("_", "-"), "--help"])
        assert code == 0 and lines and too_wide(lines) == [], name


def test_wide_keeps_long_lines_whole(monkeypatch):
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    reg = REAL_TOOLS / "atlassian.json"
    _, narrow = lines_of(["plan", reg])
    _, whole = lines_of(["plan", reg, "--wide"])
    [warning] = [line for line in whole if line.startswith("warning: not merged")]
    assert len(warning) > WIDTH  # the 191-character warning the issue saw
    assert warning not in narrow and warning.split()[-1] in " ".join(narrow)  # wrapped, nothing lost


def test_a_terminal_sets_the_width(tmp_path):
    """On a terminal, stdout and stderr lines fit its width (COLUMNS=72 here), warnings included."""
    parent, child = pty.openpty()
    env = {**os.environ, "COLUMNS": "72", "LINES": "40"}
    proc = subprocess.Popen([sys.executable, "-m", "toolsurvey", "plan", str(REAL_TOOLS / "atlassian.json")],
                            stdout=child, stderr=child, env=env, cwd=tmp_path)
    os.close(child)
    chunks = []
    with contextlib.suppress(OSError):  # the other end closes when the process ends
        while data := os.read(parent, 65536):
            chunks.append(data)
    assert proc.wait(timeout=120) == 0
    os.close(parent)
    lines = b"".join(chunks).decode("utf-8", "replace").replace("\r", "").splitlines()
    assert any(line.startswith("warning: not merged") for line in lines)
    assert [line for line in lines if len(line) > 72] == []


def test_plan_assumptions_read_as_text(capsys):
    reg = ROOT / "data" / "registries" / "ops_assistant.json"
    code = main(["plan", str(reg), "--scenario", str(ROOT / "data" / "scenarios" / "ops_assistant.toml"),
                 "--phases", str(ROOT / "data" / "phases" / "ops_assistant.toml"), "--wide"])
    out = capsys.readouterr().out
    block = out[out.index("assumptions:"):]
    assert code == 0 and "{" not in block and "origins" not in block  # no raw JSON record
    # claude-sonnet-4-5 in the bundled LiteLLM snapshot: $3 in, $15 out, $3.75 write, $0.30 read, per million
    [price] = [line for line in block.splitlines() if line.strip().startswith("price:")]
    assert ("input $3.00, output $15.00, cache write $3.75, 1-hour cache write $6.00, cache read $0.30; "
            "context window 200,000 tokens; from LiteLLM 1.110.2 snapshot (2026-11-30)") in price
    assert "phases: investigate (4 tool patterns, 5 steps); act (4 tool patterns, 3 steps)" in block
