"""Client config files, ${VAR} expansion, redaction, namespacing and snapshots (no servers started)."""

import json
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolsurvey import InputError, Registry, Server, Tool, load
from toolsurvey.core.http import REDACTED, parse_header, redact_url
from toolsurvey.inputs.configs import _expand, name_for, read_config, spec_for
from toolsurvey.inputs.discovery.names import apply_prefix, name_problems
from toolsurvey.inputs.discovery.snapshots import snapshot


def write_config(tmp_path, servers, key="mcpServers"):
    p = tmp_path / ".mcp.json"
    p.write_text(json.dumps({key: servers}), encoding="utf-8")
    return p


def test_config_reads_stdio_and_http_entries_with_env_expansion(tmp_path):
    cfg = write_config(tmp_path, {
        "fs": {"command": "npx", "args": ["-y", "server-fs", "${ROOT_DIR}"], "env": {"API_KEY": "${KEY}"}},
        "web": {"type": "http", "url": "${BASE:-http://127.0.0.1:9}/mcp",
                "headers": {"Authorization": "Bearer ${KEY}"}},
    })
    fs, web = read_config(cfg, environ={"ROOT_DIR": "/data", "KEY": "s3cr3t-value"})
    assert (fs.command, fs.args, fs.env) == ("npx", ("-y", "server-fs", "/data"), {"API_KEY": "s3cr3t-value"})
    assert web.url == "http://127.0.0.1:9/mcp"  # the default after :- applies when BASE is unset
    assert web.headers == {"Authorization": "Bearer s3cr3t-value"}
    # The saved launch shows the config as written, and never a value of env or headers.
    assert fs.launch() == {"transport": "stdio", "command": "npx", "args": ["-y", "server-fs", "${ROOT_DIR}"],
                           "env": {"API_KEY": REDACTED}}
    assert web.launch()["headers"] == {"Authorization": REDACTED}
    assert "s3cr3t" not in json.dumps([fs.launch(), web.launch()])


def test_missing_variable_names_it_and_the_server(tmp_path):
    cfg = write_config(tmp_path, {"gh": {"command": "gh-mcp", "env": {"TOKEN": "${GITHUB_TOKEN}"}}})
    with pytest.raises(InputError, match=r"'gh'.*GITHUB_TOKEN is not set"):
        read_config(cfg, environ={})


def test_server_selection_and_unknown_names(tmp_path):
    cfg = write_config(tmp_path, {"a": {"command": "x"}, "b": {"command": "y", "env": {"T": "${UNSET}"}},
                                  "c": {"command": "z"}})
    # Only picked servers are expanded: b's missing variable does not block picking a and c.
    assert [s.name for s in read_config(cfg, ["c", "a"], environ={})] == ["c", "a"]
    with pytest.raises(InputError, match=r"no server named 'nope'.*a, b, c"):
        read_config(cfg, ["nope"], environ={})


def test_vscode_servers_key_and_disabled_entries(tmp_path):
    cfg = write_config(tmp_path, {"on": {"command": "x"}, "off": {"command": "y", "disabled": True}}, key="servers")
    assert [s.name for s in read_config(cfg, environ={})] == ["on"]


@pytest.mark.parametrize("entry, message", [
    ({"url": "http://h/sse", "type": "sse"}, "SSE transport is not supported"),
    ({"args": ["x"]}, "neither 'command'"),
    ({"command": "x", "args": "not-a-list"}, "args must be a list"),
    ("npx server", "expected an object"),
])
def test_bad_entries_say_what_was_expected(tmp_path, entry, message):
    with pytest.raises(InputError, match=message):
        read_config(write_config(tmp_path, {"s": entry}), environ={})


def test_not_a_config(tmp_path):
    p = tmp_path / "tools.json"
    p.write_text('{"tools": []}')
    with pytest.raises(InputError, match="expected an MCP client config with an 'mcpServers' object, found keys tools"):
        read_config(p)


def test_urls_lose_passwords_and_query_values():
    assert redact_url("https://user:pw@h.example/mcp?api_key=abc&x=1") == \
        "https://user:<redacted>@h.example/mcp?api_key=<redacted>&x=<redacted>"
    assert redact_url("https://tok123@h.example/mcp") == "https://<redacted>@h.example/mcp"
    assert redact_url("http://127.0.0.1:8000/mcp") == "http://127.0.0.1:8000/mcp"


@given(st.text().filter(lambda t: "${" not in t))
def test_text_without_variables_is_left_alone(text):
    assert _expand(text, "here", {}, []) == text


@given(st.from_regex(r"[A-Z_][A-Z0-9_]{0,10}", fullmatch=True), st.text(alphabet="abc/:.-_ 1", max_size=15),
       st.text(alphabet="xyz/:.-_ 2", max_size=15))
def test_variables_and_defaults(var, value, default):
    used = []
    assert _expand(f"<${{{var}}}|${{{var}:-{default}}}>", "here", {var: value}, used) == f"<{value}|{value}>"
    assert used == [value, value]
    assert _expand(f"<${{{var}:-{default}}}>", "here", {}, []) == f"<{default}>"


def test_derived_names():
    assert name_for(["npx", "-y", "@modelcontextprotocol/server-filesystem@1.2", "/tmp"]) == "server-filesystem"
    assert name_for(["uvx", "mcp-server-time"]) == "mcp-server-time"
    assert name_for(["python", "servers/weather.py"]) == "weather"
    assert name_for("http://127.0.0.1:8000/mcp") == "127-0-0-1-8000"
    assert spec_for("http://h:1/mcp", headers={"A": "b"}).transport == "http"
    assert spec_for(["http://h:1/mcp"]).url == "http://h:1/mcp"
    assert spec_for("python -m srv --flag").args == ("-m", "srv", "--flag")


def test_header_parsing():
    assert parse_header("Authorization: Bearer a:b") == ("Authorization", "Bearer a:b")
    with pytest.raises(InputError, match="expected 'Name: value'") as e:
        parse_header("Authorization Bearer s3cr3t")
    assert "s3cr3t" not in str(e.value)  # without a colon, any of it may be the secret


# --- names as the model sees them ---------------------------------------------------------------


def _reg(**servers):
    return Registry({name: Server(name, tuple(Tool(t, server=name, raw={"name": t, "inputSchema": {}})
                                              for t in tools)) for name, tools in servers.items()})


def test_prefix_renames_tools_and_their_raw_form():
    reg = apply_prefix(_reg(github=["search"], jira=["search"]), "mcp__{server}__{tool}")
    assert [t.name for t in reg] == ["mcp__github__search", "mcp__jira__search"]
    assert [t.as_sent()["name"] for t in reg] == ["mcp__github__search", "mcp__jira__search"]
    assert name_problems(reg) == []


def test_name_problems_find_collisions_and_provider_limit_breaks():
    plain = _reg(github=["search", "ok"], jira=["search"])
    (collision,) = name_problems(plain)
    assert "'search'" in collision and "github, jira" in collision
    long_server = "an-extremely-long-server-name-that-someone-chose-for-clarity"
    prefixed = apply_prefix(_reg(**{long_server: ["get_issue"], "my.server": ["x"]}), "mcp__{server}__{tool}")
    problems = name_problems(prefixed)
    assert len(problems) == 2
    assert "over 64" in problems[0] and f"mcp__{long_server}__get_issue" in problems[0]
    assert "outside a-z" in problems[1]


@given(st.from_regex(r"[a-z]{1,20}", fullmatch=True), st.from_regex(r"[a-z_]{1,30}", fullmatch=True))
def test_prefixed_names_break_the_limit_exactly_when_over_64(server, tool):
    reg = apply_prefix(_reg(**{server: [tool]}), "mcp__{server}__{tool}")
    name = reg.tools[0].name
    assert name == f"mcp__{server}__{tool}"
    assert bool(name_problems(reg)) == (len(name) > 64)


def test_prefix_template_needs_tool_field():
    with pytest.raises(InputError, match="no {tool} field"):
        apply_prefix(_reg(a=["x"]), "mcp__{server}")


# --- snapshots ----------------------------------------------------------------------------------


def test_snapshot_keeps_tools_exactly_as_sent_and_loads_as_a_registry(tmp_path):
    sent = {"inputSchema": {"type": "object"}, "name": "b_tool", "description": "Second.", "_meta": {"k": 1}}
    reg = Registry({"srv": Server("srv", (Tool("b_tool", "Second.", {"type": "object"}, server="srv", raw=sent),),
                                  "Read me first.", {"serverInfo": {"name": "srv", "version": "1"},
                                                     "launch": {"transport": "stdio", "command": "x"}}),
                    "down": Server("down", (), None, {"error": "HTTP 500"})})
    value = snapshot(reg)
    assert value["toolsurvey"]["kind"] == "snapshot"
    assert value["servers"]["srv"]["tools"] == [sent]
    assert list(value["servers"]["srv"]["tools"][0]) == list(sent)  # key order as sent
    p = tmp_path / "snap.json"
    p.write_text(json.dumps(value))
    back = load(p)
    assert back.servers["srv"].instructions == "Read me first."
    assert back.servers["srv"].info["serverInfo"] == {"name": "srv", "version": "1"}
    assert back.servers["srv"].tools[0].as_sent() == sent
    assert back.servers["down"].info["error"] == "HTTP 500" and back.servers["down"].tools == ()
    assert back.warnings == [f"{p}: server 'down': was not read when the snapshot was taken (HTTP 500); "
                             "it counts as no tools"]


def test_import_toolsurvey_does_not_import_the_mcp_sdk():
    code = ("import sys, toolsurvey; toolsurvey.discover; import toolsurvey.cli.discover; "
            "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'httpx2'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
