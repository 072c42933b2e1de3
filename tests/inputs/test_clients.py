"""Client configs read where and as each client reads them: scopes and their precedence, the servers
a client turns off, each client's variables, and bad input as one error or a warning with its line."""

from __future__ import annotations

import json
import sys

import pytest

from toolsurvey.errors import InputError
from toolsurvey.inputs.clients.read import read_client


@pytest.fixture
def home(tmp_path):
    (tmp_path / "home").mkdir()
    (tmp_path / "proj").mkdir()
    return tmp_path / "home"


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text if isinstance(text, str) else json.dumps(text, indent=1), encoding="utf-8")
    return path


def read(client, home, **kw):
    kw.setdefault("environ", {"HOME": str(home)})
    return read_client(client, home.parent / "proj", home=home, **kw)


def names(cfg):
    return {s.name: s for s in cfg.servers}


def test_claude_code_local_beats_project_beats_user(home):
    proj = str((home.parent / "proj").resolve())
    write(home / ".claude.json", {
        "mcpServers": {"a": {"command": "user-a"}, "u": {"command": "user-only"}},
        "projects": {proj: {"mcpServers": {"a": {"command": "local-a"}, "b": {"command": "local-b"}}},
                     "/elsewhere": {"mcpServers": {"other": {"command": "x"}}}}})
    write(home.parent / "proj" / ".mcp.json", {"mcpServers": {"a": {"command": "project-a"},
                                                            "b": {"command": "project-b"},
                                                            "p": {"command": "project-only"}}})
    cfg = read("claude-code", home)
    got = {n: (s.scope, s.spec.command) for n, s in names(cfg).items()}
    assert got == {"a": ("local", "local-a"), "b": ("local", "local-b"), "u": ("user", "user-only"),
                   "p": ("project", "project-only")}
    replaced = sorted((o.name, o.scope) for o in cfg.left_out)
    assert replaced == [("a", "project"), ("a", "user"), ("b", "project")]
    assert all("replaced by the local-scope entry" in o.why for o in cfg.left_out)


def test_claude_code_leaves_out_what_it_turns_off(home):
    proj = str((home.parent / "proj").resolve())
    write(home / ".claude.json", {"projects": {proj: {
        "mcpServers": {"off": {"command": "x"}, "on": {"command": "y"}},
        "disabledMcpServers": ["off"], "enabledMcpjsonServers": ["ok"]}}})
    write(home.parent / "proj" / ".mcp.json", {"mcpServers": {"ok": {"command": "a"}, "new": {"command": "b"},
                                                            "no": {"command": "c"}}})
    write(home.parent / "proj" / ".claude" / "settings.local.json", {"disabledMcpjsonServers": ["no"]})
    cfg = read("claude-code", home)
    assert set(names(cfg)) == {"on", "ok", "new"}
    why = {o.name: o.why for o in cfg.left_out}
    assert "turned off in /mcp" in why["off"] and "rejected" in why["no"]
    assert names(cfg)["ok"].notes == ()
    assert "not yet approved" in names(cfg)["new"].notes[0]  # approved neither way: Claude Code asks


def test_a_server_both_disabled_and_named_is_an_error(home):
    proj = str((home.parent / "proj").resolve())
    write(home / ".claude.json", {"projects": {proj: {"mcpServers": {"off": {"command": "x"}},
                                                      "disabledMcpServers": ["off"]}}})
    with pytest.raises(InputError, match="server 'off' is named but Claude Code leaves it out.*turned off in /mcp"):
        read("claude-code", home, servers=["off"])
    with pytest.raises(InputError, match="has no server named 'nope'"):
        read("claude-code", home, servers=["nope"])


def test_claude_code_reads_claude_config_dir(home, tmp_path):
    write(tmp_path / "cfgdir" / ".claude.json", {"mcpServers": {"z": {"command": "z"}}})
    cfg = read("claude-code", home, environ={"CLAUDE_CONFIG_DIR": str(tmp_path / "cfgdir")})
    assert set(names(cfg)) == {"z"}


def test_unknown_keys_are_warnings_with_file_and_line(home):
    write(home / ".claude.json", '{\n "mcpServers": {\n  "a": {\n   "comand": "x",\n   "command": "y"\n  }\n }\n}\n')
    cfg = read("claude-code", home)
    [w] = cfg.warnings
    assert w.startswith("~/.claude.json line 4: server 'a': unknown key 'comand'")  # 'comand' is on line 4
    assert names(cfg)["a"].spec.command == "y"


def test_claude_code_expands_variables_and_a_missing_one_needs_a_value(home):
    write(home.parent / "proj" / ".mcp.json", {"mcpServers": {
        "api": {"type": "http", "url": "${BASE:-http://127.0.0.1:9}/mcp", "headers": {"X-Key": "${KEY}"}},
        "needs": {"command": "${TOOL_BIN}"}}})
    cfg = read("claude-code", home, environ={"KEY": "k-123456"})
    assert names(cfg)["api"].spec.url == "http://127.0.0.1:9/mcp"
    assert names(cfg)["api"].spec.headers == {"X-Key": "k-123456"}
    [needs] = cfg.left_out
    assert needs.name == "needs" and needs.why.startswith("needs a value: command: environment variable TOOL_BIN")


def test_codex_toml_servers_filters_and_disabled(home):
    write(home / ".codex" / "config.toml", """model = "gpt-5.4"
[mcp_servers.fs]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]
env = { DEBUG = "1" }
enabled_tools = ["read_file", "list_directory"]
disabled_tools = ["list_directory"]

[mcp_servers.remote]
url = "https://mcp.example.com/mcp"
bearer_token_env_var = "REMOTE_TOKEN"
http_headers = { "X-Team" = "a" }

[mcp_servers.off]
command = "x"
enabled = false
""")
    cfg = read("codex", home, environ={"REMOTE_TOKEN": "tok-123456789"})
    fs, remote = names(cfg)["fs"], names(cfg)["remote"]
    assert fs.spec.args == ("-y", "@modelcontextprotocol/server-filesystem", "/tmp") and fs.spec.env == {"DEBUG": "1"}
    assert [t for t in ("read_file", "list_directory", "write_file") if fs.keeps(t)] == ["read_file"]
    assert remote.spec.headers == {"X-Team": "a", "Authorization": "Bearer tok-123456789"}
    assert [(o.name, o.why) for o in cfg.left_out] == [("off", "enabled = false")]
    assert cfg.model == "gpt-5.4"
    cfg = read("codex", home, environ={})
    assert "environment variable REMOTE_TOKEN is not set" in {o.name: o.why for o in cfg.left_out}["remote"]


def test_codex_reads_a_projects_config_only_when_trusted(home):
    proj = (home.parent / "proj").resolve()
    write(proj / ".codex" / "config.toml", '[mcp_servers.local]\ncommand = "p"\n')
    write(home / ".codex" / "config.toml", '[mcp_servers.user]\ncommand = "u"\n')
    cfg = read("codex", home)
    assert set(names(cfg)) == {"user"} and "not read, as Codex reads a project's config only" in cfg.warnings[0]
    write(home / ".codex" / "config.toml", f'[projects."{proj.parent}"]\ntrust_level = "trusted"\n'
                                           '[mcp_servers.user]\ncommand = "u"\n')
    assert set(names(read("codex", home))) == {"user", "local"}  # a trusted parent folder trusts the project


def test_codex_toml_syntax_error_names_file_and_line(home):
    write(home / ".codex" / "config.toml", '[mcp_servers.a]\ncommand = "x"\nargs = [1, 2\n\n[other]\n')
    with pytest.raises(InputError, match=r"config.toml: not valid TOML \(.*at line 5, column 1"):
        read("codex", home)


def test_codex_unknown_key_line(home):
    write(home / ".codex" / "config.toml", '[mcp_servers.a]\ncommand = "x"\n\nstartup_timeout = 20\n')
    [w] = read("codex", home).warnings
    assert w.startswith("~/.codex/config.toml line 4: server 'a': unknown key 'startup_timeout'")


def test_vscode_servers_inputs_and_comments(home):
    proj = (home.parent / "proj").resolve()
    write(proj / ".vscode" / "mcp.json", """{
  // VS Code's own format: servers, and inputs it prompts for
  "inputs": [{"type": "promptString", "id": "api-key", "description": "Docs API key", "password": true}],
  "servers": {
    "docs": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${input:api-key}"}},
    "local": {"command": "node", "args": ["${workspaceFolder}/server.js"], "env": {"HOME_DIR": "${userHome}"}},
  },
}""")
    cfg = read("vscode", home)
    assert names(cfg)["local"].spec.args == (f"{proj}/server.js",)
    assert names(cfg)["local"].spec.env == {"HOME_DIR": str(home)}
    [docs] = cfg.left_out
    assert docs.why == ("needs a value: input 'api-key' (Docs API key), which VS Code asks for when it starts "
                        "the server; give it with --input api-key=VALUE")
    cfg = read("vscode", home, inputs={"api-key": "secret-1234"})
    assert names(cfg)["docs"].spec.headers == {"Authorization": "Bearer secret-1234"}


def test_vscode_file_with_mcpservers_says_it_reads_servers(home):
    write(home.parent / "proj" / ".vscode" / "mcp.json", {"mcpServers": {"a": {"command": "x"}}})
    cfg = read("vscode", home)
    assert not cfg.servers and "VS Code reads `servers`, not `mcpServers`" in cfg.warnings[0]


def test_gemini_cli_allowed_excluded_and_transports(home):
    write(home / ".gemini" / "settings.json", """{
  "mcp": {"excluded": ["gone"]},
  "model": {"name": "gemini-2.5-flash"},
  "mcpServers": {
    "web": {"httpUrl": "http://127.0.0.1:9/mcp", "includeTools": ["search"]},
    "old": {"url": "http://127.0.0.1:9/sse"},
    "gone": {"command": "x"},
    "cli": {"command": "y", "excludeTools": ["rm"]}
  }
}""")
    cfg = read("gemini-cli", home)
    assert set(names(cfg)) == {"web", "cli"} and cfg.model == "gemini-2.5-flash"
    assert names(cfg)["web"].spec.url == "http://127.0.0.1:9/mcp" and names(cfg)["web"].keeps("search")
    assert not names(cfg)["web"].keeps("fetch") and not names(cfg)["cli"].keeps("rm")
    why = {o.name: o.why for o in cfg.left_out}
    assert why["gone"] == "excluded (mcp.excluded)" and "legacy SSE transport" in why["old"]


def test_cursor_project_beats_global_and_fills_env(home):
    write(home / ".cursor" / "mcp.json", {"mcpServers": {"a": {"command": "global"}, "g": {"command": "g"}}})
    write(home.parent / "proj" / ".cursor" / "mcp.json",
          {"mcpServers": {"a": {"command": "project", "env": {"T": "${env:TOKEN}"}}}})
    cfg = read("cursor", home, environ={"TOKEN": "t-12345"})
    assert {n: s.spec.command for n, s in names(cfg).items()} == {"a": "project", "g": "g"}
    assert names(cfg)["a"].spec.env == {"T": "t-12345"}


def test_windsurf_disabled_and_server_url(home):
    write(home / ".codeium" / "windsurf" / "mcp_config.json", {"mcpServers": {
        "off": {"command": "x", "disabled": True},
        "web": {"serverUrl": "http://127.0.0.1:9/mcp", "disabledTools": ["rm"]}}})
    cfg = read("windsurf", home)
    assert set(names(cfg)) == {"web"} and names(cfg)["web"].spec.url == "http://127.0.0.1:9/mcp"
    assert not names(cfg)["web"].keeps("rm") and cfg.left_out[0].why == '"disabled": true'


def test_claude_desktop_path_per_platform(home, monkeypatch):
    folder = {"darwin": home / "Library" / "Application Support", "linux": home / ".config"}
    if sys.platform not in folder:
        pytest.skip("the test knows the macOS and Linux folders")
    write(folder[sys.platform] / "Claude" / "claude_desktop_config.json", {"mcpServers": {"d": {"command": "d"}}})
    assert set(names(read("claude-desktop", home))) == {"d"}


@pytest.mark.parametrize("client,where", [
    ("claude-code", "~/.claude.json (user and local)"), ("codex", "~/.codex/config.toml (user)"),
    ("vscode", ".vscode/mcp.json (project)"), ("cursor", "~/.cursor/mcp.json (user)"),
    ("windsurf", "~/.codeium/windsurf/mcp_config.json (user)"), ("gemini-cli", "~/.gemini/settings.json (user)"),
    ("claude-desktop", "claude_desktop_config.json (user)")])
def test_no_config_found_says_where_it_looked(home, client, where):
    with pytest.raises(InputError, match="no .* config found for") as e:
        read(client, home)
    assert where in str(e.value)


def test_invalid_json_is_one_error_with_line(home):
    write(home / ".claude.json", '{"mcpServers": {"a": {"command": "x",}}}')
    with pytest.raises(InputError, match=r"\.claude\.json: invalid JSON at line 1 column"):
        read("claude-code", home)


def test_unknown_client(home):
    with pytest.raises(InputError, match="unknown client 'emacs'; expected one of: claude-code, codex, vscode"):
        read("emacs", home)


def test_claude_code_project_is_the_git_root_and_a_worktree_its_main_repository(home, tmp_path):
    """Claude Code keys `projects` in .claude.json by the git root of the folder it starts in (a
    worktree's main repository), else by the folder (getProjectPathForConfig)."""
    repo = (tmp_path / "repo").resolve()
    (repo / ".git" / "worktrees" / "feature").mkdir(parents=True)
    sub = repo / "src" / "pkg"
    sub.mkdir(parents=True)
    tree = (tmp_path / "feature-tree").resolve()
    write(tree / ".git", f"gitdir: {repo}/.git/worktrees/feature\n")
    plain = (tmp_path / "plain" / "sub").resolve()
    plain.mkdir(parents=True)
    write(home / ".claude.json", {"projects": {
        str(repo): {"mcpServers": {"in-repo": {"command": "x"}}},
        str(plain): {"mcpServers": {"in-plain": {"command": "y"}}}}})
    env = {"HOME": str(home)}
    for folder in (repo, sub, tree):
        assert list(names(read_client("claude-code", folder, home=home, environ=env))) == ["in-repo"], folder
    assert list(names(read_client("claude-code", plain, home=home, environ=env))) == ["in-plain"]
    assert names(read_client("claude-code", plain.parent, home=home, environ=env)) == {}


def test_claude_code_reads_the_mcp_json_of_each_folder_above_a_closer_one_winning(home, tmp_path):
    """Claude Code reads .mcp.json in the folder it starts in and in every folder above it, the
    closer file's entry winning (getMcpConfigsByScope('project'))."""
    top = (tmp_path / "top").resolve()
    sub = top / "mid" / "leaf"
    sub.mkdir(parents=True)
    write(top / ".mcp.json", {"mcpServers": {"shared": {"command": "from-top"}, "top-only": {"command": "t"}}})
    write(sub / ".mcp.json", {"mcpServers": {"shared": {"command": "from-leaf"}}})
    cfg = read_client("claude-code", sub, home=home, environ={"HOME": str(home)})
    got = {n: (s.scope, s.spec.command) for n, s in names(cfg).items()}
    assert got == {"shared": ("project", "from-leaf"), "top-only": ("project", "t")}
    assert [(o.name, o.source) for o in cfg.left_out] == [("shared", str(top / ".mcp.json"))]
    looked = " ".join(cfg.lines())
    assert str(top / "mid" / ".mcp.json") not in looked  # a folder above without one is not a note
