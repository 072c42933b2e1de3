"""docs/clients.md's example, run as written: the pinned test servers (tests/servers) started through
Claude Code's, Codex's, VS Code's and Cursor's configs in a temporary HOME, and every output line the
page quotes found in what its command prints (timings aside).

Oracle: the page itself; the figures in it were read off these commands, so a change in what
`context` counts, or a page left behind by one, fails here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from _public_data import SHARED
from conftest import ROOT, TESTS

pytest.importorskip("mcp", reason="the MCP SDK ('pip install toolsurvey[discover]') starts the servers")

DOC = ROOT / "docs" / "clients.md"
SERVERS = TESTS / "servers"
PROGRESS = re.compile(r"^\[\d+/\d+\] .*: ok - \d+ tools? in [\d.]+ s$")  # its time varies from run to run


def blocks(text: str) -> list[list[str]]:
    """The page's fenced blocks without a language, each as its lines."""
    return [b.splitlines() for b in re.findall(r"^```\n(.*?)^```$", text, flags=re.S | re.M)]


def normal(text: str) -> str:
    """Whitespace folded, so a line the page wraps where the terminal did not still matches."""
    return " ".join(text.split())


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The page's setup script, pointed at a temporary folder, and its command blocks."""
    for binary in (SERVERS / ".venv" / "bin" / "mcp-server-time",
                   SERVERS / "node_modules" / ".bin" / "mcp-server-memory",
                   SERVERS / "node_modules" / ".bin" / "mcp-server-filesystem"):
        if not binary.exists():
            why = f"{binary} is missing: run scripts/install-system.sh to install the test MCP servers"
            if os.environ.get("CI") or os.environ.get("TOOLSURVEY_REQUIRE_SERVERS"):
                pytest.fail(why)
            pytest.skip(why)
    page = blocks(DOC.read_text())
    [setup] = [b for b in page if b and b[0].startswith("T=$PWD/tests/servers")]
    commands = [b for b in page if b and b[0].startswith("$ ")]
    where = tmp_path_factory.mktemp("clients-demo")
    script = "\n".join(setup).replace("DEMO=/tmp/clients-demo", f"DEMO={where}") \
        .replace("DATA=$PWD/../shared/data", f"DATA={SHARED}")
    assert script != "\n".join(setup)
    return script, commands, where


def run(script: str, commands: list[str]) -> str:
    """The setup, then the block's commands, in one shell as a reader would type them."""
    env = {k: v for k, v in os.environ.items()
           if k not in {"ENABLE_TOOL_SEARCH", "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL", "CLAUDE_CONFIG_DIR",
                        "CODEX_HOME", "XDG_CONFIG_HOME", "CI"}}
    env.update(COLUMNS="100", PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}")
    proc = subprocess.run(["bash", "-ec", script + "\n" + "\n".join(commands)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout + proc.stderr


def test_every_quoted_line_is_what_its_command_prints(demo):
    script, commands, where = demo
    assert len(commands) >= 6  # Claude Code (default, false, auto), Codex, VS Code, Cursor
    for block in commands:
        if any("$DATA" in line for line in block) and not (SHARED / "tools" / "github.json").exists():
            continue  # the shared data folder is not on this machine
        typed = [line[2:].replace("/tmp/clients-demo", str(where)) for line in block if line.startswith("$ ")]
        printed = normal(run(script, typed))
        quoted = [line for line in block if not line.startswith("$ ") and line.strip() != "..."
                  and not PROGRESS.match(line)]
        missing = [line for line in quoted if normal(line.replace("/tmp/clients-demo", str(where))) not in printed]
        assert missing == [], (typed, missing)


def test_the_figures_in_the_prose_too(demo):
    """Figures the page gives in its sentences, each from the command the sentence names."""
    script, _, _ = demo
    text = normal(DOC.read_text())
    per_tool = normal(run(script, ["toolsurvey context --client claude-code"]))
    [row] = re.findall(r"`(mcp__time__convert_time +deferred +\d+ +\d+)`", text)
    assert normal(row) in per_tool
    if (SHARED / "tools" / "github.json").exists():
        assert "25,101 in Anthropic's JSON with `--model claude-sonnet-4-5`" in text
        anthropic = run(script, ["toolsurvey context --client cursor --snapshot $DATA/tools/github.json "
                                 "--model claude-sonnet-4-5 --by server"])
        assert "in the context: 25,101 tokens" in normal(anthropic)
