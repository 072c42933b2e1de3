"""Hostile endpoints: a huge Content-Length, an endless body and a one-byte trickle end with a clear error,
within the address space of 1 GiB and the time asked for; malformed URLs are bad input (exit 2)."""

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


@pytest.fixture
def registry(tmp_path):
    p = tmp_path / "tools.json"
    p.write_text(json.dumps({"tools": [TOOL]}))
    return p


def _limited(*argv, timeout=90):
    """The CLI in a child capped at 1 GiB of address space; a hang fails the test through `timeout`."""
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (GIB, GIB))

    env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "toolsurvey", *map(str, argv)], preexec_fn=cap, env=env,
                          capture_output=True, text=True, timeout=timeout)


def _bad_input(r) -> str:
    assert r.returncode == 2, r.stderr[-2000:]
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr and KEY not in r.stderr
    return lines[0]


def _count(registry, base):
    return _limited("footprint", registry, "--count-with", "anthropic:claude-sonnet-4-5", "--base-url", base,
                    "--timeout", "5", "--retries", "0", "--no-cache")


def test_counting_refuses_a_huge_content_length(hostile, registry):
    line = _bad_input(_count(registry, hostile + "/huge-length"))
    assert "announced 2,147,483,648 bytes (Content-Length)" in line


def test_counting_stops_an_endless_answer_at_the_cap(hostile, registry):
    assert "sent more than 1,048,576 bytes; stopped reading" in _bad_input(_count(registry, hostile + "/endless"))


def test_counting_gives_up_on_a_trickle_at_the_timeout(hostile, registry):
    assert "no answer within 5 s (the whole answer" in _bad_input(_count(registry, hostile + "/trickle"))


def test_a_fetched_payload_stops_at_the_cap(hostile):
    line = _bad_input(_limited("responses", hostile + "/endless/result.json"))
    assert "stopped reading" in line


def test_a_fetched_payload_gives_up_on_a_trickle(hostile):
    line = _bad_input(_limited("responses", hostile + "/trickle/result.json", "--timeout", "5"))
    assert "no complete answer within 5 s" in line


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


def test_a_prices_url_stops_at_the_cap(hostile, registry):
    line = _bad_input(_limited("simulate", registry, "--prices", hostile + "/huge-length/prices.json"))
    assert "cannot fetch prices" in line and "Content-Length" in line
