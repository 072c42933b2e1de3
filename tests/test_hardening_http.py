"""Hostile MCP endpoints: a huge Content-Length, an endless body and a one-byte trickle end discovery
with a clear error, within the address space of 1 GiB and the time asked for; malformed URLs are bad
input (exit 2) everywhere.

Discovery runs here against a real socket (tests/hostile_http.py) in a child with its address space
capped: the MCP SDK reads the answers itself over httpx2, and discovery takes no transport. The
same hostile answers to the clients that take an httpx transport run in-process through an
httpx.MockTransport: counting in tests/measuring/test_counting.py, fetched payloads in
tests/core/test_http.py, price files in tests/providers/test_prices.py."""

import json
import os
import resource
import subprocess
import sys

import pytest
from hostile_http import HostileServer

GIB = 2**30
KEY = "sk-ant-test-0123456789abcdefghij"
TOOL = {"name": "lookup", "description": "Look up one customer by id.", "inputSchema": {"type": "object"}}


@pytest.fixture(scope="module")
def hostile():
    with HostileServer() as url:
        yield url


def _limited(*argv, timeout=90):
    """The CLI in a child capped at 1 GiB of address space; a hang fails the test through `timeout`."""
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (GIB, GIB))

    env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "toolsurvey", *map(str, argv)], preexec_fn=cap, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("path, expected", [
    ("/huge-length/mcp", "announced a 2,147,483,648-byte message"),
    ("/endless/mcp", "sent a message over 33,554,432 bytes; stopped reading"),
    ("/trickle/mcp", "within 5 s"),
])
def test_http_discovery_never_buffers_a_hostile_body(hostile, path, expected):
    r = _limited("discover", hostile + path, "--connect-timeout", "5", "--list-timeout", "5")
    # the progress line is wrapped to 100 columns, so the words are compared
    assert r.returncode == 1 and expected in " ".join(r.stderr.split()) and "Traceback" not in r.stderr


@pytest.mark.parametrize("url, problem", [("http://[::1", "Invalid IPv6 URL"),
                                          ("http://localhost:99999/mcp", "Port out of range")])
def test_malformed_urls_are_bad_input_everywhere(cli, tmp_path, url, problem):
    code, _, err = cli("discover", url)
    assert code == 2 and problem in err
    code, _, err = cli("responses", url)
    assert code == 2 and problem in err
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"remote": {"type": "http", "url": url}}}))
    code, _, err = cli("discover", "--config", config)
    assert code == 2 and problem in err and "server 'remote' url" in err
    registry = tmp_path / "tools.json"
    registry.write_text(json.dumps({"tools": [TOOL]}))
    code, _, err = cli("footprint", registry, "--count-with", "anthropic:claude-sonnet-4-5", "--base-url",
                       url.removesuffix("/mcp"), "--no-cache")
    assert code == 2 and problem in err and "the base URL" in err
