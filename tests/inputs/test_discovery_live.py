"""Discovery against real MCP servers (npm, PyPI, one built with the SDK) and misbehaving ones.

Oracles: a plain JSON-RPC exchange with the same server (tests/servers/oracle.py), tiktoken called
on the received JSON, and facts the servers' authors publish (tool names, instructions).
"""

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pytest
from _oracle import compact
from conftest import TESTS

import toolsurvey as ts
from tests.servers.oracle import read_stdio
from toolsurvey.core.tokens import get_encoding
from toolsurvey.inputs.discovery.run import discover, failures
from toolsurvey.inputs.discovery.snapshots import save_snapshot

SERVERS = TESTS / "servers"
BIN = SERVERS / "node_modules" / ".bin"
PYBIN = SERVERS / ".venv" / "bin"
MISBEHAVE = [sys.executable, str(SERVERS / "misbehave.py")]
SECRET = "tok-" + uuid.uuid4().hex  # a header/env value that must never be printed or saved


def need(path: Path) -> str:
    """The server binary, or a skip (a failure in CI, which installs every server)."""
    if path.exists():
        return str(path)
    why = f"{path} is missing: run scripts/install-system.sh to install the test MCP servers"
    if os.environ.get("CI") or os.environ.get("TOOLSURVEY_REQUIRE_SERVERS"):
        pytest.fail(why)
    pytest.skip(why)


def tokens(text: str) -> int:
    return len(get_encoding("o200k_base").encode(text, disallowed_special=()))


def leftovers(tag: str) -> list:
    """Live processes whose command line carries `tag`."""
    found = []
    for p in psutil.process_iter(["cmdline", "status"]):
        cmd = " ".join(p.info["cmdline"] or [])
        if tag in cmd and p.info["status"] != psutil.STATUS_ZOMBIE and p.pid != os.getpid():
            found.append(cmd)
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(command: list[str], port: int, env: dict | None = None):
    """Start an HTTP server process and wait until its port accepts connections."""
    proc = subprocess.Popen(command, env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(f"{command} exited with {proc.returncode} before listening") from None
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"{command} did not listen on {port} within 30 s")


def stop(proc):
    os.killpg(proc.pid, 9)
    proc.wait(10)


# --- real servers over stdio, discovered together from one client config -----------------------


@pytest.fixture(scope="module")
def stdio_servers(tmp_path_factory):
    """Command lines of every real stdio server, by name."""
    root = tmp_path_factory.mktemp("fsroot")
    return {
        "everything": [need(BIN / "mcp-server-everything")],
        "memory": [need(BIN / "mcp-server-memory")],
        "filesystem": [need(BIN / "mcp-server-filesystem"), str(root)],
        "time": [need(PYBIN / "mcp-server-time")],
        "fetch": [need(PYBIN / "mcp-server-fetch")],
    }


@pytest.fixture(scope="module")
def live(stdio_servers, tmp_path_factory):
    """One concurrent discovery of every stdio server through a config file, and its snapshot."""
    tmp = tmp_path_factory.mktemp("live")
    config = {"mcpServers": {name: {"command": cmd[0], "args": cmd[1:]} for name, cmd in stdio_servers.items()}}
    config["mcpServers"]["memory"]["env"] = {"MEMORY_FILE_PATH": str(tmp / "memory.jsonl"),
                                             "SOME_TOKEN": "${TEST_SECRET}"}
    path = tmp / ".mcp.json"
    path.write_text(json.dumps(config))
    os.environ["TEST_SECRET"] = SECRET
    try:
        reg = discover(config=path)
    finally:
        del os.environ["TEST_SECRET"]
    snap = tmp / "snapshot.json"
    save_snapshot(reg, snap)
    with ThreadPoolExecutor(len(stdio_servers)) as pool:  # the oracle reads each server on its own
        oracle = dict(zip(stdio_servers, pool.map(read_stdio, stdio_servers.values()), strict=True))
    return reg, snap, oracle, path


def test_every_real_server_is_read_with_its_published_tools(live):
    reg, _, _, _ = live
    assert failures(reg) == {}
    names = {s: {t.name for t in reg.servers[s].tools} for s in reg.servers}
    assert {"echo", "get-sum", "get-env"} <= names["everything"]
    assert {"create_entities", "read_graph", "search_nodes", "open_nodes"} <= names["memory"]
    assert {"read_text_file", "write_file", "list_directory", "search_files"} <= names["filesystem"]
    assert names["time"] == {"get_current_time", "convert_time"}
    assert names["fetch"] == {"fetch"}


def test_tools_are_kept_exactly_as_the_server_sent_them(live):
    reg, _, oracle, _ = live
    for name, seen in oracle.items():
        got = [t.as_sent() for t in reg.servers[name].tools]
        assert compact(got) == compact(seen["tools"]), name  # same objects, same key order


def test_server_facts_match_the_initialize_answer(live):
    reg, _, oracle, _ = live
    for name, seen in oracle.items():
        info = reg.servers[name].info
        assert info["serverInfo"]["name"] == seen["initialize"]["serverInfo"]["name"]
        assert info["serverInfo"]["version"] == seen["initialize"]["serverInfo"]["version"]
        assert set(info["capabilities"]) >= {"tools"}
        assert info["protocolVersion"] and info["captured_at"].endswith("Z")
        assert reg.servers[name].instructions == seen["initialize"].get("instructions")
    assert "Everything Server" in reg.servers["everything"].instructions


def test_footprint_equals_tiktoken_on_the_received_json(live):
    reg, snap, oracle, _ = live
    for render in ("sent", "json"):
        table = ts.footprint(ts.load(snap), render=render)
        for name, seen in oracle.items():
            rows = table[(table.server == name) & (table.kind == "tool")]
            if render == "sent":
                expected = [tokens(compact(t)) for t in seen["tools"]]
            else:
                expected = [tokens(compact({"name": t["name"], **({"description": t["description"]}
                                            if "description" in t else {}), "inputSchema": t["inputSchema"]}))
                            for t in seen["tools"]]
            assert rows.tokens.tolist() == expected, (render, name)
        everything = table[(table.server == "everything") & (table.kind == "instructions")]
        assert everything.tokens.tolist() == [tokens(oracle["everything"]["initialize"]["instructions"])]


def test_snapshot_records_the_launch_without_secrets(live):
    reg, snap, _, _ = live
    text = snap.read_text()
    assert SECRET not in text
    launch = json.loads(text)["servers"]["memory"]["launch"]
    assert launch["transport"] == "stdio" and launch["env"] == {"MEMORY_FILE_PATH": "<redacted>",
                                                                "SOME_TOKEN": "<redacted>"}
    assert json.loads(text)["toolsurvey"]["kind"] == "snapshot"


def test_cli_discovers_a_config_then_footprint_reads_the_snapshot(live, tmp_path, cli, monkeypatch):
    _, _, oracle, config = live
    monkeypatch.setenv("TEST_SECRET", SECRET)
    out = tmp_path / "snap.json"
    code, stdout, err = cli("discover", "--config", config, "--server", "time", "--server", "memory",
                            "-o", out)
    assert code == 0, err
    assert "[2/2]" in err and "time: ok" in err and "memory: ok" in err
    assert list(json.loads(out.read_text())["servers"]) == ["time", "memory"]
    code, stdout, err = cli("footprint", out, "--by", "server", "--format", "json")
    assert code == 0, err
    per_server = {row["server"]: row for row in json.loads(stdout)}
    for name in ("time", "memory"):
        tools = oracle[name]["tools"]
        expected = sum(tokens(compact({"name": t["name"], "description": t["description"],
                                       "inputSchema": t["inputSchema"]})) for t in tools)
        assert per_server[name]["tokens"] == expected and per_server[name]["tools"] == len(tools)


def test_cli_single_command_after_double_dash(stdio_servers, cli):
    code, stdout, err = cli("discover", "--prefix", "claude-code", "--", *stdio_servers["time"])
    assert code == 0, err
    assert "mcp-server-time" in stdout and "ok" in stdout


# --- Streamable HTTP: the SDK's own server, and server-everything's HTTP mode -------------------


@pytest.fixture(scope="module")
def sdk_http():
    """The SDK-built server (tests/servers/sdk_http_server.py) requiring a bearer token."""
    port = free_port()
    proc = serve([sys.executable, str(SERVERS / "sdk_http_server.py"), str(port), SECRET], port)
    yield f"http://127.0.0.1:{port}"
    stop(proc)


def test_http_server_built_with_the_sdk(sdk_http, cli, tmp_path):
    out = tmp_path / "snap.json"
    code, stdout, err = cli("discover", f"{sdk_http}/mcp", "--name", "weather",
                            "--header", f"Authorization: Bearer {SECRET}", "-o", out)
    assert code == 0, err
    reg = ts.load(out)
    server = reg.servers["weather"]
    assert [t.name for t in server.tools] == ["get_forecast", "get_alerts", "convert-units"]
    assert server.tools[0].description == "Get the weather forecast for a city for the next few days."
    assert server.tools[0].input_schema["required"] == ["city"]
    assert server.instructions == "Weather tools for the toolsurvey tests."
    assert server.info["serverInfo"]["version"] == "1.2.3"
    assert server.info["launch"] == {"transport": "streamable-http", "url": f"{sdk_http}/mcp",
                                     "headers": {"Authorization": "<redacted>"}}
    assert SECRET not in out.read_text() + stdout + err


@pytest.mark.parametrize("path, headers, message", [
    ("/mcp", {}, "HTTP 401 Unauthorized: the server wants credentials"),
    ("/mcp", {"Authorization": "Bearer wrong"}, "HTTP 401 Unauthorized: the server refused the credentials"),
    ("/status/404", {}, "HTTP 404 Not Found: no MCP endpoint at this URL"),
    ("/status/500", {}, "HTTP 500 Internal Server Error"),
    ("/html", {}, "answered with text/html (HTTP 200), not an MCP endpoint"),
])
def test_broken_http_endpoints_get_a_specific_error(sdk_http, path, headers, message):
    reg = discover(sdk_http + path, headers=headers, name="s", connect_timeout=10)
    assert message in failures(reg)["s"]
    assert reg.servers["s"].tools == ()


@pytest.mark.timeout(60)
def test_http_endpoint_that_never_answers(sdk_http):
    reg = discover(sdk_http + "/hang", name="s", connect_timeout=2)
    assert failures(reg)["s"] == f"{sdk_http}/hang: no answer to initialize within 2 s (the timeout)"


def test_nothing_listening(cli):
    code, _, err = cli("discover", f"http://127.0.0.1:{free_port()}/mcp", "--connect-timeout", "5")
    assert code == 1 and "cannot reach the server (ConnectError" in err


def test_everything_over_streamable_http_lists_what_it_lists_over_stdio(stdio_servers, live):
    port = free_port()
    proc = serve([stdio_servers["everything"][0], "streamableHttp"], port, env={"PORT": str(port)})
    try:
        reg = discover(f"http://127.0.0.1:{port}/mcp", name="everything")
    finally:
        stop(proc)
    assert failures(reg) == {}
    stdio = live[0].servers["everything"]
    assert [t.name for t in reg] == [t.name for t in stdio.tools]
    assert [t.as_sent() for t in reg] == [t.as_sent() for t in stdio.tools]


# --- misbehaving servers: a clear error within the timeout, and no process left behind ----------


@pytest.mark.timeout(60)
@pytest.mark.parametrize("mode, error", [
    ("exit", "the server exited or closed stdout during initialize; its stderr ends with: "
             "fatal: missing configuration file (LEAK=)"),
    ("junk", "no answer to initialize within 2 s (the timeout); it printed non-JSON on stdout: "
             "'Starting server v1.0 ...'"),
    ("silent", "no answer to initialize within 2 s"),
    ("spawn-silent", "no answer to initialize within 2 s"),
    ("hang-list", "tools/list did not finish within 2 s"),
    ("loop-cursor", "tools/list page 2: the server sent cursor 'same-cursor' again"),
    ("endless", "tools/list: still more pages after 20"),
    ("invalid", "the tools/list result is not valid MCP (tools.1.inputSchema: Field required)"),
])
def test_misbehaving_server_fails_clearly_and_leaves_no_process(mode, error):
    tag = uuid.uuid4().hex
    reg = discover([*MISBEHAVE, mode, "3", tag], name="bad", connect_timeout=2, list_timeout=2, max_pages=20)
    assert error in failures(reg)["bad"]
    assert any(error in w for w in reg.warnings)
    assert leftovers(tag) == []


def test_secrets_are_scrubbed_from_error_messages(cli, tmp_path):
    """The server prints its env secret on stderr, and the URL carries a token in its query."""
    reg = discover([*MISBEHAVE, "exit"], name="leaky", env={"LEAK": SECRET})
    assert failures(reg)["leaky"].endswith("fatal: missing configuration file (LEAK=<redacted>)")
    code, out, err = cli("discover", f"http://127.0.0.1:{free_port()}/mcp?key={SECRET}", "--name", "q")
    assert code == 1 and "/mcp?key=<redacted>: cannot reach the server" in err
    assert SECRET not in json.dumps(reg.servers["leaky"].info) + str(reg.warnings) + out + err


def test_cli_reports_names_that_collide_across_servers(tmp_path, cli):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        name: {"command": sys.executable, "args": [*MISBEHAVE[1:], "ok", "2"]} for name in ("one", "two")}}))
    code, _, err = cli("discover", "--config", config)
    assert code == 0
    assert "tool name 'tool_0' is defined by several servers (one, two)" in err
    code, _, err = cli("discover", "--config", config, "--prefix", "{server}.{tool}")
    assert "several servers" not in err
    assert "one/one.tool_0: name 'one.tool_0' breaks ^[a-zA-Z0-9_-]{1,64}$" in err


def test_missing_command_is_named():
    reg = discover(["no-such-mcp-server-xyz", "--flag"], name="gone")
    assert failures(reg)["gone"] == ("no-such-mcp-server-xyz --flag: cannot start the server: "
                                     "the command 'no-such-mcp-server-xyz' was not found on PATH")


def test_stdout_banner_is_a_warning_not_a_failure():
    reg = discover([*MISBEHAVE, "banner", "2"], name="chatty")
    assert failures(reg) == {} and len(reg) == 2
    assert any("printed 1 line(s) on stdout that are not JSON-RPC" in w and "Starting server" in w
               for w in reg.warnings)


def test_a_child_the_server_leaves_running_is_killed():
    tag = uuid.uuid4().hex
    reg = discover([*MISBEHAVE, "spawn", "1", tag], name="parent")
    assert failures(reg) == {} and len(reg) == 1
    assert any("left 1 process(es) running" in w for w in reg.warnings)
    assert leftovers(tag) == []


def test_pagination_is_followed_to_the_end():
    reg = discover([*MISBEHAVE, "paged", "4"], name="paged")
    assert [t.name for t in reg] == [f"tool_{i}" for i in range(8)]
    assert reg.servers["paged"].info["pages"] == 4


def test_ten_thousand_tools(tmp_path):
    reg = discover([*MISBEHAVE, "many", "10000"], name="huge")
    assert len(reg) == 10000 and len({t.name for t in reg}) == 10000
    table = ts.footprint(reg, render="sent")
    expected = sum(tokens(compact({"name": f"tool_{i}", "description": f"Tool number {i}.",
                                   "inputSchema": {"type": "object", "properties": {"x": {"type": "integer"}}}}))
                   for i in range(10000))
    assert int(table[table.kind == "tool"].tokens.sum()) == expected


def test_one_failure_does_not_lose_the_others(tmp_path, cli):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        "good": {"command": sys.executable, "args": [*MISBEHAVE[1:], "ok", "3"]},
        "crash": {"command": sys.executable, "args": [*MISBEHAVE[1:], "exit"]},
        "missing": {"command": "no-such-mcp-server-xyz", "env": {"KEY": SECRET}},
    }}))
    out = tmp_path / "snap.json"
    code, stdout, err = cli("discover", "--config", config, "-o", out)
    assert code == 1
    assert "2 of 3 servers failed: crash, missing" in err
    snap = json.loads(out.read_text())
    assert [t["name"] for t in snap["servers"]["good"]["tools"]] == ["tool_0", "tool_1", "tool_2"]
    assert "missing configuration file" in snap["servers"]["crash"]["error"]
    assert snap["servers"]["missing"]["tools"] == [] and "not found on PATH" in snap["servers"]["missing"]["error"]
    assert SECRET not in out.read_text() + stdout + err


def test_cli_input_errors_exit_2(tmp_path, cli):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"a": {"command": "x", "env": {"K": "${NOT_SET_ANYWHERE}"}}}}))
    code, _, err = cli("discover", "--config", config)
    assert code == 2 and "NOT_SET_ANYWHERE is not set" in err and "Traceback" not in err
    code, _, err = cli("discover")
    assert code == 2 and "nothing to discover" in err
    code, _, err = cli("discover", "--config", config, "--header", "A: b")
    assert code == 2 and "with a config file, set them in its entries" in err
    code, _, err = cli("discover", "--server", "a", "--", "true")
    assert code == 2 and "--server picks servers from a --config file" in err


def test_discover_works_inside_a_running_event_loop():
    """As in a Jupyter notebook, where a loop already runs on the calling thread."""
    async def main():
        return ts.discover([*MISBEHAVE, "ok", "2"], name="nb")

    reg = asyncio.run(main())
    assert [t.name for t in reg] == ["tool_0", "tool_1"]


@pytest.mark.timeout(60)
def test_ctrl_c_leaves_no_process_behind():
    tag = uuid.uuid4().hex
    code = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
            "from toolsurvey.cli import main; sys.exit(main(sys.argv[1:]))")
    proc = subprocess.Popen([sys.executable, "-c", code, "discover", "--connect-timeout", "30", "--",
                             *MISBEHAVE, "spawn-silent", "1", tag], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while len(leftovers(tag)) < 3 and time.monotonic() < deadline:  # the CLI, the server and its child
        time.sleep(0.1)
    proc.send_signal(2)  # SIGINT, as Ctrl-C sends
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "interrupted" in err
    assert leftovers(tag) == []
