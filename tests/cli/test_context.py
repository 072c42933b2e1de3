"""`toolsurvey context`: a real MCP server (written here, run with the MCP SDK) configured the way each
client keeps it, in a temporary HOME; its tools listed with their exact tokens, deferred or loaded as
the client's tool-search setting says.

Oracles: the server's tools read with a plain JSON-RPC exchange (tests/servers/oracle.py), tokens
counted by tiktoken itself on the JSON each client renders (tests/_oracle.py), and the OpenAI
cookbook's counting ported literally for Codex.
"""

from __future__ import annotations

import json
import sys

import pytest
from _oracle import compact, ntok, num_tokens_for_tools

from tests.servers.oracle import read_stdio
from toolsurvey.cli import main

pytest.importorskip("mcp", reason="the MCP SDK ('pip install toolsurvey[discover]') runs the test server")

SERVER = '''
from typing import Annotated
from pydantic import Field
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("weather", instructions="Weather forecasts and alerts for US cities.")

@mcp.tool()
def get_forecast(city: Annotated[str, Field(description="The city, e.g. Boston")],
                 days: Annotated[int, Field(description="How many days ahead")] = 3) -> str:
    """Get the weather forecast for a city for the next few days."""
    return "sunny"

@mcp.tool()
def get_alerts(state: Annotated[str, Field(description="Two-letter US state code")]) -> str:
    """List active weather alerts for a US state."""
    return "none"

if __name__ == "__main__":
    mcp.run()
'''
SEARCH_TOOL = 500  # Anthropic's search tool, ~500 tokens ([search.anthropic-bm25]); Codex's is assumed the same


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The server's file, and its tools as it sends them (read without toolsurvey)."""
    path = tmp_path_factory.mktemp("server") / "weather.py"
    path.write_text(SERVER)
    sent = read_stdio([sys.executable, str(path)])
    return path, sent["tools"], sent["initialize"]["instructions"]


@pytest.fixture
def project(tmp_path, monkeypatch):
    home, proj = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    proj.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(proj)
    for var in ("ENABLE_TOOL_SEARCH", "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL", "CLAUDE_CONFIG_DIR", "CODEX_HOME",
                "XDG_CONFIG_HOME"):
        monkeypatch.delenv(var, raising=False)
    return home, proj.resolve()


def context(capsys, *argv) -> tuple[int, dict]:
    code = main(["context", *argv, "--format", "json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def by_name(doc) -> dict:
    return {t["name"]: t for t in doc["tools"]}


def anthropic_tokens(tools, prefix="mcp__weather__") -> dict[str, int]:
    """Each tool as Anthropic's tools JSON, under Claude Code's name for it, counted by tiktoken."""
    return {prefix + t["name"]: ntok(compact({"name": prefix + t["name"], "description": t["description"],
                                              "input_schema": t["inputSchema"]})) for t in tools}


def test_claude_code_project_server_deferred_by_default_loaded_without_tool_search(server, project, capsys,
                                                                                     monkeypatch):
    path, tools, instructions = server
    home, proj = project
    (home / ".claude.json").write_text(json.dumps({
        "numStartups": 4,
        "mcpServers": {},
        "projects": {str(proj): {"mcpServers": {"weather": {"command": sys.executable, "args": [str(path)]}}},
                     "/some/other/project": {"mcpServers": {"other": {"command": "not-started"}}}}}))
    expected = anthropic_tokens(tools)
    assert len(expected) == 2

    code, doc = context(capsys, "--client", "claude-code")
    assert code == 0
    got = by_name(doc)
    assert {n: t["tokens"] for n, t in got.items()} == expected  # exact, per tool: no two share a count
    assert len(set(expected.values())) == 2
    assert {t["state"] for t in got.values()} == {"deferred"}
    assert doc["tool_search"]["setting"] == "ENABLE_TOOL_SEARCH unset"
    names = sum(ntok(n + "\n") for n in expected)  # a deferred tool leaves its name, one per line
    assert doc["totals"]["in_context"] == names + ntok(instructions) + SEARCH_TOOL
    assert doc["servers"][0]["scope"] == "local" and doc["model"] == "claude-sonnet-5"

    monkeypatch.setenv("ENABLE_TOOL_SEARCH", "false")
    code, doc = context(capsys, "--client", "claude-code")
    assert {t["state"] for t in doc["tools"]} == {"loaded"}
    assert doc["totals"]["in_context"] == sum(expected.values()) + ntok(instructions)  # no names, no search tool
    assert doc["totals"]["context_share"] == doc["totals"]["in_context"] / 1_000_000  # claude-sonnet-5: 1M window

    monkeypatch.setenv("ENABLE_TOOL_SEARCH", "true")
    assert {t["state"] for t in context(capsys, "--client", "claude-code")[1]["tools"]} == {"deferred"}


def test_claude_code_table_shows_each_tool_with_its_state(server, project, capsys):
    path, tools, _ = server
    home, proj = project
    (proj / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "weather": {"command": sys.executable, "args": [str(path)], "alwaysLoad": True}}}))
    assert main(["context", "--client", "claude-code"]) == 0
    out, err = capsys.readouterr()
    for name, tokens in anthropic_tokens(tools).items():
        line = next(line for line in out.splitlines() if name in line)
        assert "loaded (always)" in line and line.split()[-1] == str(tokens)  # alwaysLoad skips deferral
    assert "not yet approved" in " ".join(err.split())  # a .mcp.json server nobody approved: Claude Code asks


def test_codex_toml_deferred_for_gpt_5_4_and_later_loaded_for_older_models(server, project, capsys):
    path, tools, instructions = server
    home, _ = project
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(
        f'model = "gpt-5.4"\n\n[mcp_servers.weather]\ncommand = {json.dumps(sys.executable)}\n'
        f'args = [{json.dumps(str(path))}]\n')
    functions = {"mcp__weather__" + t["name"]: {"type": "function", "function": {
        "name": "mcp__weather__" + t["name"], "description": t["description"],
        "parameters": t["inputSchema"]}} for t in tools}
    # The cookbook counts a request; 12 of it is the per-request end, not any tool's
    expected = {n: num_tokens_for_tools([f], "gpt-4o") - 12 for n, f in functions.items()}

    code, doc = context(capsys, "--client", "codex")
    assert code == 0 and doc["model"] == "gpt-5.4" and doc["model_source"] == "the model of Codex's config.toml"
    assert {n: t["tokens"] for n, t in by_name(doc).items()} == expected
    assert {t["state"] for t in doc["tools"]} == {"deferred"}
    # deferred, a server is a namespace: its name and instructions stay, its tools' names do not
    assert doc["totals"]["in_context"] == ntok("weather\n") + ntok(instructions) + SEARCH_TOOL

    code, doc = context(capsys, "--client", "codex", "--model", "gpt-4.1")
    assert {t["state"] for t in doc["tools"]} == {"loaded"} and "does not support" in doc["tool_search"]["why"]
    assert doc["totals"]["in_context"] == sum(expected.values()) + ntok(instructions)


def test_vscode_mcp_json_inputs_need_a_value_then_load(server, project, capsys):
    path, tools, instructions = server
    _, proj = project
    (proj / ".vscode").mkdir()
    command, args = json.dumps(sys.executable), json.dumps(str(path))
    (proj / ".vscode" / "mcp.json").write_text("""{
  // a workspace server that needs a key VS Code prompts for
  "inputs": [{"type": "promptString", "id": "weather-key", "description": "Weather API key", "password": true}],
  "servers": {
    "weather": {"type": "stdio", "command": COMMAND, "args": [ARGS], "env": {"WEATHER_KEY": "${input:weather-key}"}},
  }
}""".replace("COMMAND", command).replace("ARGS", args))
    assert main(["context", "--client", "vscode"]) == 2  # its only server needs a value
    err = " ".join(capsys.readouterr().err.split())  # the lines are wrapped to 100 columns
    assert "needs a value: input 'weather-key' (Weather API key)" in err and "--input weather-key=VALUE" in err

    code, doc = context(capsys, "--client", "vscode", "--input", "weather-key=k-123456")
    assert code == 0
    # VS Code sends the chat model's provider its own tool format; the default model is Claude's
    assert doc["model"] == "claude-sonnet-4-5"
    # VS Code names a tool mcp_<the name its server announces>_<tool>: the server calls itself "weather"
    expected = anthropic_tokens(tools, prefix="mcp_weather_")
    assert {n: t["tokens"] for n, t in by_name(doc).items()} == expected
    assert {t["state"] for t in doc["tools"]} == {"loaded"}
    assert doc["totals"]["in_context"] == sum(expected.values()) + ntok(instructions)
    assert doc["limits"] == []  # 2 tools: far from VS Code's 128


def test_markdown_and_a_failed_server(server, project, capsys, tmp_path):
    path, _, _ = server
    home, proj = project
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {
        "weather": {"command": sys.executable, "args": [str(path)]},
        "broken": {"command": str(tmp_path / "no-such-server")}}}))
    assert main(["context", "--client", "claude-code", "--format", "markdown"]) == 1  # ran; a server failed
    out, err = capsys.readouterr()
    assert "## What Claude Code puts in the context" in out and "| weather | mcp\\_\\_weather\\_\\_get\\_alerts |" in out
    assert "incomplete: 1 server(s) could not be read" in " ".join((out + err).split())


def test_snapshot_instead_of_starting_servers(server, project, capsys, tmp_path):
    path, tools, _ = server
    home, _ = project
    (home / ".cursor").mkdir()
    (home / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": {
        "weather": {"command": "not-started-with-a-snapshot"}}}))
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps({"servers": {"weather": {"tools": tools}}}))
    code, doc = context(capsys, "--client", "cursor", "--snapshot", str(snap))
    assert code == 0 and len(doc["tools"]) == 2 and doc["limits"] == []


def test_bad_setting_is_one_line_exit_2(server, project, capsys, monkeypatch):
    path, _, _ = server
    home, _ = project
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"weather": {"command": sys.executable,
                                                                              "args": [str(path)]}}}))
    monkeypatch.setenv("ENABLE_TOOL_SEARCH", "sometimes")
    assert main(["context", "--client", "claude-code"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("toolsurvey context: error: ENABLE_TOOL_SEARCH='sometimes': expected unset")


def test_discover_client_saves_the_servers_the_client_starts(server, project, capsys, tmp_path):
    path, tools, _ = server
    home, proj = project
    (home / ".claude.json").write_text(json.dumps({"projects": {str(proj): {
        "mcpServers": {"weather": {"command": sys.executable, "args": [str(path)]},
                       "off": {"command": "never-started"}},
        "disabledMcpServers": ["off"]}}}))
    snap = tmp_path / "snap.json"
    assert main(["discover", "--client", "claude-code", "-o", str(snap)]) == 0
    err = " ".join(capsys.readouterr().err.split())
    saved = json.loads(snap.read_text())["servers"]
    assert list(saved) == ["weather"] and [t["name"] for t in saved["weather"]["tools"]] == [t["name"] for t in tools]
    assert "left out 'off' (local, ~/.claude.json projects[" in err and "turned off in /mcp" in err


def test_hostile_names_in_a_config_are_escaped(project, capsys, tmp_path):
    home, _ = project
    name = "evil\x1b]0;pwned\x07\u202e"
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {name: {"command": "x"}}}))
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps({"servers": {name: {"tools": [
        {"name": "t\x1b[2J", "description": "d", "inputSchema": {"type": "object"}}]}}}))
    for fmt in ("table", "markdown"):
        assert main(["context", "--client", "claude-code", "--snapshot", str(snap), "--format", fmt]) == 0
        out, err = capsys.readouterr()
        assert "\x1b" not in out + err and "\u202e" not in out + err and "\\x1b" in out


def test_long_names_flagged_only_where_the_client_sends_them_long(project, capsys, tmp_path):
    """Claude Code sends mcp__<server>__<tool> as it is, over the API's 64 characters; Codex and
    Gemini CLI shorten such a name (their own rules, providers.toml name_source) and say so."""
    home, _ = project
    server, tool = "a-server-with-a-long-name", "a_tool_whose_name_is_long_as_well_" + "x" * 20
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps({"servers": {server: {"tools": [
        {"name": tool, "description": "d", "inputSchema": {"type": "object"}}]}}}))
    entry = {"mcpServers": {server: {"command": "unused"}}}
    (home / ".claude.json").write_text(json.dumps(entry))
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text(json.dumps(entry))
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(f'[mcp_servers.{server}]\ncommand = "unused"\n')

    _, doc = context(capsys, "--client", "claude-code", "--snapshot", str(snap))
    [name] = [t["name"] for t in doc["tools"]]
    assert name == f"mcp__{server}__{tool}" and len(name) > 64
    assert any("longer than" in line and "64" in line for line in doc["limits"])

    for client, length in (("codex", 64), ("gemini-cli", 63)):
        _, doc = context(capsys, "--client", client, "--snapshot", str(snap))
        [sent] = [t["name"] for t in doc["tools"]]
        assert len(sent) == length and doc["limits"] == [], client
        assert any("rewrites 1 tool name(s)" in n and repr(sent) in n for n in doc["notes"]), client
    full = f"mcp_{server}_{tool}"  # Gemini CLI keeps the '-'; its first and last 30 around '...'
    assert sent == full[:30] + "..." + full[-30:]


def test_tool_search_from_claude_code_settings_and_a_tools_always_load_meta(project, capsys, tmp_path, monkeypatch):
    """ENABLE_TOOL_SEARCH in the `env` of Claude Code's settings files counts as the environment does
    (Claude Code applies it on start; the project's local settings win), and a tool whose
    _meta["anthropic/alwaysLoad"] is true stays loaded while its server's other tools are deferred."""
    home, proj = project
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps({"servers": {"notes": {"tools": [
        {"name": "search", "description": "Find notes.", "inputSchema": {"type": "object"},
         "_meta": {"anthropic/alwaysLoad": True}},
        {"name": "archive", "description": "Archive a note.", "inputSchema": {"type": "object"}}]}}}))
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"notes": {"command": "unused"}}}))

    def states() -> dict[str, str]:
        _, doc = context(capsys, "--client", "claude-code", "--snapshot", str(snap))
        return {t["tool"]: t["state"] for t in doc["tools"]}

    assert states() == {"search": "loaded", "archive": "deferred"}
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps({"env": {"ENABLE_TOOL_SEARCH": "false"}}))
    assert states() == {"search": "loaded", "archive": "loaded"}
    monkeypatch.setenv("ENABLE_TOOL_SEARCH", "true")  # the settings' env is applied over the shell's
    assert states() == {"search": "loaded", "archive": "loaded"}
    (proj / ".claude").mkdir()
    (proj / ".claude" / "settings.local.json").write_text(json.dumps({"env": {"ENABLE_TOOL_SEARCH": "true"}}))
    assert states() == {"search": "loaded", "archive": "deferred"}


@pytest.mark.parametrize("client,model,tools,flagged", [
    ("vscode", "claude-sonnet-4-5", 129, ["over VS Code's limit of 128 tools"]),
    ("cursor", "claude-sonnet-4-5", 41, ["over Cursor's limit of about 40 tools"]),
    ("windsurf", "claude-sonnet-4-5", 101, ["over Windsurf's limit of 100 tools"]),
    ("vscode", "gpt-5", 129, ["over VS Code's limit of 128 tools", "129 tools in one request, over openai's limit of 128"]),
    ("codex", "gpt-5", 129, ["129 tools in one request, over openai's limit of 128"]),  # no tool_search: all loaded
    ("codex", "gpt-5.4", 129, []),  # deferred behind tool_search: none of them is in the request's tools
    ("gemini-cli", "gemini-2.5-pro", 513, ["513 tools in one request, over google's limit of 512"]),
    ("gemini-cli", "gemini-2.5-pro", 512, []),
])
def test_limits_flagged_one_over(project, capsys, tmp_path, client, model, tools, flagged):
    """The client's own limit and the API's, each flagged from one tool over it, not at it."""
    home, proj = project
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps({"servers": {"big": {"tools": [
        {"name": f"tool_{i}", "description": "d", "inputSchema": {"type": "object"}} for i in range(tools)]}}}))
    entry = json.dumps({"mcpServers": {"big": {"command": "unused"}}})
    places = {"vscode": proj / ".vscode" / "mcp.json", "cursor": home / ".cursor" / "mcp.json",
              "windsurf": home / ".codeium" / "windsurf" / "mcp_config.json",
              "gemini-cli": home / ".gemini" / "settings.json", "codex": home / ".codex" / "config.toml"}
    places[client].parent.mkdir(parents=True)
    places[client].write_text('[mcp_servers.big]\ncommand = "unused"\n' if client == "codex"
                              else entry.replace("mcpServers", "servers") if client == "vscode" else entry)
    code, doc = context(capsys, "--client", client, "--snapshot", str(snap), "--model", model)
    assert code == 0 and len(doc["tools"]) == tools
    assert len(doc["limits"]) == len(flagged) and all(
        any(f in line for line in doc["limits"]) for f in flagged), doc["limits"]


def test_markdown_counts_read_as_the_table_prints_them(project, capsys, tmp_path):
    home, _ = project
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps({"servers": {"big": {"tools": [
        {"name": "long", "description": "alpha " * 1500, "inputSchema": {"type": "object"}}]}}}))
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"big": {"command": "unused"}}}))
    _, doc = context(capsys, "--client", "claude-code", "--snapshot", str(snap))
    [tokens] = [t["tokens"] for t in doc["tools"]]
    assert tokens > 1000
    assert main(["context", "--client", "claude-code", "--snapshot", str(snap), "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert f"| {tokens:,} |" in out and f"| {tokens} |" not in out
