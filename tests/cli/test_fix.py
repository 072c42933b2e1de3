"""`toolsurvey fix`: schema rewrites on the sample with exact savings (the footprint of the written
registry is today's minus the printed saving), client settings for Claude Code and Codex written in a
temporary HOME (a diff, then --write; `context` then shows the planned tokens; comments and key order
survive), and the bad inputs that end in one line and exit 2 with nothing written."""

from __future__ import annotations

import json
import os
import stat

import pytest
from _oracle import compact, ntok

from toolsurvey.cli import main

SAMPLE = "data/registries/ops_assistant.json"
OWN = "catalog,deploys,metrics"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(["fix", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def footprint_total(capsys, path) -> int:
    assert main(["footprint", str(path), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    return sum(r["tokens"] for r in rows if r["kind"] == "tool")


def test_sample_rewrites_and_their_exact_savings(capsys):
    code, out, _ = run(capsys, SAMPLE, "--own", OWN, "--format", "json")
    doc = json.loads(out)["rewrites"]
    # Read off the sample by hand: two owned tools carry `$schema` (draft-07), one a `$ref` to a root
    # definition; nothing else on catalog, deploys and metrics is a rule's to change.
    assert code == 0
    assert {(a["rule"], a["tool"]) for a in doc["applied"]} == {
        ("drop-dollar-schema", "catalog/describe_service_dependencies"),
        ("inline-refs", "catalog/describe_service_dependencies"),
        ("drop-dollar-schema", "deploys/create_deploy")}
    reg = json.load(open(SAMPLE))["servers"]
    create = next(t for t in reg["deploys"]["tools"] if t["name"] == "create_deploy")
    without = {**create, "inputSchema": {k: v for k, v in create["inputSchema"].items() if k != "$schema"}}

    def tokens(t):  # the footprint's json rendering: compact JSON of name, description, inputSchema
        return ntok(compact({k: t[k] for k in ("name", "description", "inputSchema")}))

    saved = {(a["rule"], a["tool"]): a["saved"] for a in doc["applied"]}
    assert saved[("drop-dollar-schema", "deploys/create_deploy")] == tokens(create) - tokens(without)
    assert doc["tokens_saved"] == sum(saved.values())
    assert all(r["tool"] == "(all)" and "google" in r["why"] for r in doc["refused"])  # collapse: not for Gemini


def test_write_gives_a_registry_whose_footprint_is_todays_minus_the_saving(capsys, tmp_path):
    out_file = tmp_path / "fixed.json"
    code, out, _ = run(capsys, SAMPLE, "--own", OWN, "--format", "json")
    saving = json.loads(out)["rewrites"]["tokens_saved"]
    assert not out_file.exists()
    code, _, err = run(capsys, SAMPLE, "--own", OWN, "-o", str(out_file))
    assert code == 0 and not out_file.exists() and "dry run" in err  # nothing written without --write
    code, _, err = run(capsys, SAMPLE, "--own", OWN, "--write", "-o", str(out_file))
    assert code == 0 and out_file.exists()
    assert footprint_total(capsys, out_file) == footprint_total(capsys, SAMPLE) - saving
    fixed = json.load(open(out_file))["servers"]
    dsd = next(t for t in fixed["catalog"]["tools"] if t["name"] == "describe_service_dependencies")
    assert "$schema" not in dsd["inputSchema"] and "$defs" not in json.dumps(dsd["inputSchema"])
    legacy = json.load(open(SAMPLE))["servers"]["legacy_admin"]["tools"]
    assert fixed["legacy_admin"]["tools"] == legacy  # a server not owned is left as it is


def test_the_text_output_names_rules_savings_money_and_what_was_not_applied(capsys):
    code, out, _ = run(capsys, SAMPLE, "--own", OWN)
    assert code == 0
    assert "drop-dollar-schema" in out and "audit schema-ref" in out and "$/month" in out
    assert "not applied: collapse-nullable-anyof" in out


def test_describe_writes_skeletons_with_the_neighbour_named(capsys, tmp_path):
    review = tmp_path / "review.md"
    code, _, err = run(capsys, SAMPLE, "--own", OWN, "--describe", str(review))
    text = review.read_text()
    assert code == 0 and "to review" in err
    section = text.split("## catalog/get\\_service", 1)[1].split("\n## ", 1)[0]
    # get_service and fetch_service_details are the near-duplicate pair the audit finds on catalog
    assert "fetch\\_service\\_details" in section
    for element in ("What it does", "What it returns", "When to use it", "What it does not do", "Constraints"):
        assert element in section
    assert section.index("What it does**") < section.index("Constraints")


def test_without_own_or_with_both_sources_is_one_line(capsys):
    code, _, err = run(capsys, SAMPLE)
    assert code == 2 and "--own" in err
    code, _, err = run(capsys, SAMPLE, "--client", "codex")
    assert code == 2 and "one of them" in err


# --- client settings -----------------------------------------------------------------------------


def _tool(name: str, server: str) -> dict:
    words = " ".join(f"Step {i}: what {name} does on {server} with its inputs and what comes back." for i in range(25))
    return {"name": name, "description": f"{name.replace('_', ' ').capitalize()}. {words}",
            "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": "What to look for."}},
                            "required": ["q"]}}


@pytest.fixture
def setup(tmp_path, monkeypatch):
    """A HOME and project with three servers (docs: user scope, chat: local, tracker: .mcp.json), their
    tools saved as a snapshot, and a log calling only search_docs, create_issue and get_issue."""
    home, proj = tmp_path / "home", tmp_path / "proj"
    for d in (home / ".claude", home / ".codex", proj / ".claude"):
        d.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(proj)
    for var in ("ENABLE_TOOL_SEARCH", "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL", "CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.delenv(var, raising=False)
    proj = proj.resolve()
    servers = {"docs": ["search_docs", "get_page", "list_spaces"], "tracker": ["create_issue", "get_issue"],
               "chat": ["send_message"]}
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps({"servers": {s: {"tools": [_tool(t, s) for t in ts]} for s, ts in servers.items()}}))
    calls = [{"timestamp": f"2026-11-{1 + i % 28:02d}T10:00:00Z", "session": f"s{i}", "server": s, "tool": t,
              "response_tokens": 300}
             for i in range(30) for s, t in (("docs", "search_docs"), ("tracker", "create_issue"), ("tracker", "get_issue"))]
    log = tmp_path / "calls.jsonl"
    log.write_text("\n".join(json.dumps(c) for c in calls) + "\n")
    return home, proj, snap, log


def claude_files(home, proj):
    (home / ".claude.json").write_text(json.dumps({
        "numStartups": 3, "mcpServers": {"docs": {"command": "docs-server"}},
        "projects": {str(proj): {"allowedTools": [], "mcpServers": {"chat": {"command": "chat-server"}}}}}, indent=2))
    (proj / ".mcp.json").write_text(json.dumps({"mcpServers": {"tracker": {"command": "tracker-server"}}}, indent=2))
    settings = home / ".claude" / "settings.json"
    settings.write_text('{\n  "model": "claude-sonnet-4-5",\n  "env": {"ENABLE_TOOL_SEARCH": "false"},\n'
                        '  "permissions": {\n    "allow": ["Bash(ls)"]\n  },\n  "theme": "dark"\n}\n')
    return settings


def context_total(capsys, client, snap) -> int:
    assert main(["context", "--client", client, "--snapshot", str(snap), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)["totals"]["in_context"]


def test_claude_code_gets_deny_rules_and_a_disabled_server_then_context_agrees(capsys, setup):
    home, proj, snap, log = setup
    settings = claude_files(home, proj)
    before_text = settings.read_text()
    code, out, err = run(capsys, "--client", "claude-code", "--snapshot", str(snap), "--usage", str(log), "--no-defer")
    assert code == 0 and settings.read_text() == before_text  # a dry run writes nothing
    assert '+      "mcp__docs__get_page",' in out and '+        "chat"' in out  # the unified diff
    code, out, err = run(capsys, "--client", "claude-code", "--snapshot", str(snap), "--usage", str(log), "--no-defer",
                         "--format", "json")
    planned = json.loads(out)["settings"]
    assert {s["target"] for s in planned["settings"]} == {"docs/get_page", "docs/list_spaces", "chat"}
    code, _, err = run(capsys, "--client", "claude-code", "--snapshot", str(snap), "--usage", str(log), "--no-defer",
                       "--write")
    assert code == 0 and "backup" in err
    data = json.loads(settings.read_text())
    assert list(data) == ["model", "env", "permissions", "theme"]  # key order kept
    assert data["permissions"] == {"allow": ["Bash(ls)"], "deny": ["mcp__docs__get_page", "mcp__docs__list_spaces"]}
    assert json.loads(settings.with_name("settings.json.toolsurvey-backup").read_text()) == json.loads(before_text)
    state = json.loads((home / ".claude.json").read_text())
    assert state["projects"][str(proj)]["disabledMcpServers"] == ["chat"] and state["numStartups"] == 3
    after = context_total(capsys, "claude-code", snap)
    assert after == planned["in_context_after"] < planned["in_context_before"]
    # the saving is the three deleted tools loaded: each as Claude Code sends it, counted by tiktoken
    tools = {t["name"]: t for s in json.loads(snap.read_text())["servers"].values() for t in s["tools"]}
    names = {"get_page": "docs", "list_spaces": "docs", "send_message": "chat"}
    gone = sum(ntok(compact({"name": f"mcp__{s}__{n}", "description": tools[n]["description"],
                             "input_schema": tools[n]["inputSchema"]})) for n, s in names.items())
    assert planned["in_context_before"] - after == gone


CODEX = '''# my codex config
model = "gpt-5"  # the model, before tool search

[mcp_servers.docs]
command = "docs-server"  # started with stdio
args = ["--stdio"]

[mcp_servers.tracker]
command = "tracker-server"

[mcp_servers.chat]
command = "chat-server"
'''


def test_codex_gets_disabled_tools_and_enabled_false_keeping_comments_then_context_agrees(capsys, setup):
    home, proj, snap, log = setup
    config = home / ".codex" / "config.toml"
    config.write_text(CODEX)
    code, out, _ = run(capsys, "--client", "codex", "--snapshot", str(snap), "--usage", str(log), "--format", "json")
    planned = json.loads(out)["settings"]
    assert code == 0 and config.read_text() == CODEX
    code, _, _ = run(capsys, "--client", "codex", "--snapshot", str(snap), "--usage", str(log), "--write")
    text = config.read_text()
    assert code == 0
    assert '# my codex config\nmodel = "gpt-5"  # the model, before tool search\n' in text
    assert 'command = "docs-server"  # started with stdio\nargs = ["--stdio"]\ndisabled_tools = ["get_page", "list_spaces"]' in text
    assert text.index("[mcp_servers.docs]") < text.index("[mcp_servers.tracker]") < text.index("[mcp_servers.chat]")
    assert text.rstrip().endswith('command = "chat-server"\nenabled = false')
    assert context_total(capsys, "codex", snap) == planned["in_context_after"] < planned["in_context_before"]


def test_defer_turns_claude_codes_tool_search_on_where_the_settings_turned_it_off(capsys, setup, tmp_path):
    home, proj, _, log = setup
    many = {"big": {"tools": [_tool(f"tool_{i}", "big") for i in range(40)]}}
    snap = tmp_path / "big.json"
    snap.write_text(json.dumps({"servers": many}))
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"big": {"command": "big", "alwaysLoad": True}}}))
    settings = home / ".claude" / "settings.json"
    settings.write_text('{"env": {"ENABLE_TOOL_SEARCH": "false"}}\n')
    code, out, _ = run(capsys, "--client", "claude-code", "--snapshot", str(snap), "--format", "json", "--write")
    planned = json.loads(out)["settings"]
    assert code == 0
    assert {s["setting"] for s in planned["settings"]} >= {'env.ENABLE_TOOL_SEARCH = "true"',
                                                            "remove alwaysLoad from server 'big'"}
    assert json.loads(settings.read_text())["env"]["ENABLE_TOOL_SEARCH"] == "true"
    assert "alwaysLoad" not in json.loads((home / ".claude.json").read_text())["mcpServers"]["big"]
    assert context_total(capsys, "claude-code", snap) == planned["in_context_after"] < planned["in_context_before"]


def test_vscode_has_no_per_tool_switch_and_says_so(capsys, setup):
    home, proj, snap, log = setup
    (proj / ".vscode").mkdir()
    (proj / ".vscode" / "mcp.json").write_text(json.dumps({"servers": {s: {"command": s} for s in ("docs", "tracker", "chat")}}))
    code, out, _ = run(capsys, "--client", "vscode", "--snapshot", str(snap), "--usage", str(log), "--format", "json")
    rows = json.loads(out)["settings"]["settings"]
    assert code == 0 and rows and all(not r["reachable"] and "not reachable by configuration" in r["setting"] for r in rows)


# --- bad input: one line, exit 2, nothing written ----------------------------------------------------


def _unchanged(*paths):
    return {p: p.read_bytes() for p in paths}


def _one_line(code, err, words):
    lines = [x for x in err.strip().splitlines() if not x.startswith(("note:", "  ", "warning:"))]
    assert code == 2 and len(lines) == 1 and words in lines[0], err


@pytest.mark.parametrize("text, words", [
    ('{\n  // mine\n  "model": "claude-sonnet-4-5"\n}\n', "invalid JSON at line 2"),  # Claude Code reads plain JSON
    ('{"permissions": {"deny": "mcp__docs__get_page"}}\n', "expected a list at permissions.deny"),  # it would reject
])
def test_a_settings_file_with_a_comment_or_a_shape_the_client_rejects(capsys, setup, text, words):
    home, proj, snap, log = setup
    settings = claude_files(home, proj)
    settings.write_text(text)
    keep = _unchanged(settings, home / ".claude.json")
    code, _, err = run(capsys, "--client", "claude-code", "--snapshot", str(snap), "--usage", str(log), "--write")
    _one_line(code, err, words)
    assert _unchanged(*keep) == keep


@pytest.mark.skipif(os.geteuid() == 0 if hasattr(os, "geteuid") else False,
                    reason="root writes read-only files; the check is tested on the access bits below")
def test_a_read_only_file(capsys, setup):
    home, proj, snap, log = setup
    settings = claude_files(home, proj)
    settings.chmod(stat.S_IRUSR)
    code, _, err = run(capsys, "--client", "claude-code", "--snapshot", str(snap), "--usage", str(log), "--write")
    _one_line(code, err, "read-only")


def test_a_read_only_file_as_root_too(capsys, setup, monkeypatch):
    home, proj, snap, log = setup
    settings = claude_files(home, proj)
    keep = _unchanged(settings, home / ".claude.json")
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(settings) else real(p, mode))
    code, _, err = run(capsys, "--client", "claude-code", "--snapshot", str(snap), "--usage", str(log), "--write")
    _one_line(code, err, "read-only")
    assert _unchanged(*keep) == keep  # ~/.claude.json, checked first, is not half-written either


def test_a_server_name_the_client_escapes(capsys, setup, tmp_path):
    home, proj, _, log = setup
    snap = tmp_path / "dotted.json"
    snap.write_text(json.dumps({"servers": {"my.docs": {"tools": [_tool("search_docs", "d"), _tool("get_page", "d")]}}}))
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"my.docs": {"command": "d"}}}))
    log.write_text(json.dumps({"timestamp": "2026-11-01T10:00:00Z", "server": "my.docs", "tool": "search_docs"}) + "\n")
    code, _, err = run(capsys, "--client", "claude-code", "--snapshot", str(snap), "--usage", str(log), "--no-defer")
    _one_line(code, err, "'my_docs'")


def test_a_tool_in_the_plan_no_longer_in_the_config(setup):
    """fix plans on the tools the client shows today; a plan that names another (made before the config
    changed) is refused before anything is written."""
    from toolsurvey.advice.fix.settings import client_settings
    from toolsurvey.errors import InputError
    from toolsurvey.inputs.clients.read import read_client

    home, proj, _, _ = setup
    claude_files(home, proj)
    cfg = read_client("claude-code", proj, home=home, environ={"HOME": str(home)})
    action = type("Action", (), {"kind": "delete", "target": "docs/gone_tool"})()
    with pytest.raises(InputError, match="no longer shows"):
        client_settings(cfg, [action], {"docs": ["search_docs"]}, None, home=home, project=proj, environ={},
                        search_deferred=True, model="claude-sonnet-4-5")
    action.target = "wiki/get_page"
    with pytest.raises(InputError, match="no longer starts server 'wiki'"):
        client_settings(cfg, [action], {"docs": []}, None, home=home, project=proj, environ={},
                        search_deferred=True, model="claude-sonnet-4-5")


def test_a_file_changed_since_it_was_read_is_refused(tmp_path):
    from toolsurvey.errors import InputError
    from toolsurvey.inputs.clients.edit import Edit, apply, load, write_all

    path = tmp_path / "settings.json"
    path.write_text('{"a": 1}\n')
    change = load(path, "json")
    apply(change, Edit("append", ("permissions", "deny"), "mcp__x__y"))
    path.write_text('{"a": 2}\n')
    with pytest.raises(InputError, match="changed since it was read"):
        write_all([change])
    assert path.read_text() == '{"a": 2}\n' and not (tmp_path / "settings.json.toolsurvey-backup").exists()


def test_docs_quote_what_the_sample_command_prints(capsys, tmp_path):
    """docs/fix.md's sample figures come from the command beside them."""
    code, out, _ = run(capsys, SAMPLE, "--own", OWN)
    doc = open("docs/fix.md", encoding="utf-8").read()
    for line in out.splitlines()[:2] + [x for x in out.splitlines() if x.startswith(("drop-dollar-schema  ", "inline-refs  "))]:
        assert line.strip() in doc, line
    fixed = tmp_path / "fixed.json"
    run(capsys, SAMPLE, "--own", OWN, "--write", "-o", str(fixed))
    assert main(["footprint", str(fixed)]) == 0
    head = capsys.readouterr().out.splitlines()[0]  # "63 tools in 7 servers: 12,205 tokens per request ..."
    assert f"says\n  {head.split(': ')[1].split()[0]} tokens" in doc
