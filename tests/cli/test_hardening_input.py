"""Hostile files: devices, FIFOs, huge files, huge descriptions, NaN and Infinity end in one line and exit 2."""

import io
import json
import os
import resource
import subprocess
import sys

import pytest

TOOL = {"name": "lookup", "description": "Look up one customer by id.", "inputSchema": {"type": "object"}}
GIB = 2**30


def _limited(*argv, stdin=None, timeout=120):
    """Run the CLI in a child whose address space is capped at 1 GiB: it must end by itself, not be killed."""
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (GIB, GIB))

    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "toolsurvey", *map(str, argv)], preexec_fn=cap, env=env,
                          capture_output=True, text=True, timeout=timeout, stdin=stdin)


def _one_error_line(r):
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2, r.stderr[-2000:]
    assert len(lines) == 1 and "error:" in lines[0] and "Traceback" not in r.stderr
    return lines[0]


def test_dev_zero_is_refused_not_read():
    assert "is a device, not a regular file" in _one_error_line(_limited("footprint", "/dev/zero"))


@pytest.mark.parametrize("option", ["--usage", "--scenario"])
def test_dev_zero_as_usage_or_scenario_is_refused(write_json, option):
    r = _limited("plan", write_json({"tools": [TOOL]}), option, "/dev/zero")
    assert "is a device" in _one_error_line(r)


def test_a_fifo_with_no_writer_does_not_hang(tmp_path):
    fifo = tmp_path / "tools.json"
    os.mkfifo(fifo)
    assert "is a FIFO" in _one_error_line(_limited("footprint", fifo, timeout=60))
    assert "is a FIFO" in _one_error_line(_limited("discover", "--config", fifo, timeout=60))


def test_a_file_over_the_input_limit_is_refused_before_reading(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(3 * GIB)  # sparse: costs no disk, but reading it would cost 3 GiB
    line = _one_error_line(_limited("footprint", big))
    assert f"{3 * GIB:,} bytes" in line and "--max-input-bytes" in line


def test_max_input_bytes_is_the_limit(write_json, cli):
    path = write_json({"tools": [TOOL]})
    size = path.stat().st_size
    assert cli("footprint", path, "--max-input-bytes", size)[0] == 0
    code, _, err = cli("footprint", path, "--max-input-bytes", size - 1)
    assert code == 2 and f"more than the {size - 1:,}-byte input limit" in err


def test_a_streamed_trace_keeps_the_input_rules(tmp_path, cli):
    # A .jsonl trace is read line by line: a regular file whose every line is under the input limit,
    # since only one line is held at a time; the file as a whole may be larger.
    fifo = tmp_path / "trace.jsonl"
    os.mkfifo(fifo)
    _one_error_line(_limited("responses", fifo, timeout=60))  # refused, never opened (it would hang)
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as f:
        f.truncate(3 * GIB)  # one 3 GiB line of zero bytes
    assert "line 1 is over" in _one_error_line(_limited("responses", big))
    line = json.dumps({"tool": "lookup", "result": {"id": 7}}) + "\n"
    trace = tmp_path / "t.jsonl"
    trace.write_text(line * 3)
    size = len(line.encode())
    assert cli("responses", trace, "--max-input-bytes", size)[0] == 0  # the file is 3x the limit
    code, _, err = cli("responses", trace, "--max-input-bytes", size - 1)
    assert code == 2 and "line 1 is over" in err and f"more than the {size - 1:,}-byte input limit" in err


def test_a_100_mb_description_is_refused_within_1_gib(tmp_path):
    path = tmp_path / "huge.json"
    path.write_text(json.dumps({"tools": [{**TOOL, "description": "x" * 100_000_000}]}))
    line = _one_error_line(_limited("footprint", path))
    assert "description is 100,000,000 characters" in line


def test_a_huge_schema_is_refused(write_json, cli):
    props = {f"p{i}": {"type": "string", "description": "y" * 1000} for i in range(11_000)}
    path = write_json({"tools": [{**TOOL, "inputSchema": {"type": "object", "properties": props}}]})
    code, _, err = cli("footprint", path)
    assert code == 2 and "schema is" in err and "characters of JSON" in err


@pytest.mark.parametrize("literal", ["NaN", "-Infinity", "1e400"])
def test_nan_and_infinity_in_a_registry_are_refused_with_their_position(tmp_path, cli, literal):
    path = tmp_path / "tools.json"
    path.write_text('{"tools": [\n  {"name": "NaN", "description": "NaN", "inputSchema":\n'
                    f'    {{"type": "object", "maximum": {literal}}}}}]}}')
    code, _, err = cli("convert", path, "--to", "openai-chat")
    assert code == 2 and f"{literal} at line 3 column 35 is not a JSON number" in err


@pytest.mark.parametrize("value", ["Infinity", "1e400", "NaN"])
def test_infinite_sizes_in_a_jsonl_usage_log_are_bad_input(write_json, tmp_path, cli, value):
    usage = tmp_path / "usage.jsonl"
    usage.write_text(f'{{"tool": "lookup", "response_tokens": {value}}}\n')
    code, _, err = cli("plan", write_json({"tools": [TOOL]}), "--usage", usage)
    assert code == 2 and f"line 1: {value} at column" in err and "internal error" not in err


def test_infinite_sizes_in_a_csv_usage_log_are_skipped_with_their_line(write_json, tmp_path, cli):
    usage = tmp_path / "usage.csv"
    usage.write_text("tool,response_tokens\nlookup,Infinity\nlookup,1e400\nlookup,120\n")
    code, _, err = cli("plan", write_json({"tools": [TOOL]}), "--usage", usage, "--format", "json")
    assert code == 0
    assert "line 2: unreadable response size ('Infinity'" in err and "line 3: unreadable response size ('1e400'" in err


def test_a_usage_log_nested_thousands_deep_is_read_without_a_crash(write_json, tmp_path):
    """`arguments` given as JSON text 5,000 levels deep is read as a call; a line that is itself that deep
    is skipped and counted. Exit 0, no traceback (it was `internal error: RecursionError`)."""
    deep = "[" * 5000 + "]" * 5000
    usage = tmp_path / "usage.jsonl"
    usage.write_text("".join(json.dumps(r) + "\n" for r in [{"tool": "lookup", "arguments": deep},
                                                          {"tool": "lookup", "arguments": {"id": 1}}])
                     + '{"tool": "lookup", "arguments": ' + deep + "}\n")
    r = _limited("plan", write_json({"tools": [TOOL]}), "--usage", usage, "--format", "json")
    assert r.returncode == 0 and "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr[-2000:]
    err = " ".join(r.stderr.split())
    assert "line 3: JSON nested too deeply; skipped" in err and "2 of 2 calls have no timestamp" in err
    assert json.loads(r.stdout)["table"][0]["metric"] == "tools registered"


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_nan_or_inf_in_a_scenario_is_bad_input(write_json, tmp_path, cli, value):
    scenario = tmp_path / "s.toml"
    scenario.write_text(f"steps = {value}\n")
    code, _, err = cli("simulate", write_json({"tools": [TOOL]}), "--scenario", scenario)
    assert code == 2 and f"steps = {float(value)} is not a finite number" in err


def test_dash_reads_the_registry_from_standard_input(cli, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps({"tools": [TOOL]}).encode())))
    code, out, _ = cli("footprint", "-", "--format", "json")
    assert code == 0 and json.loads(out)[0]["tool"] == "lookup"


def test_dash_reads_a_usage_log_from_standard_input(cli, write_json, monkeypatch):
    log = '{"tool": "lookup", "response_tokens": 10}\n'
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(log.encode())))
    code, _, err = cli("plan", write_json({"tools": [TOOL]}), "--usage", "-", "--format", "json")
    assert code == 0, err


def test_standard_input_over_the_limit_is_refused(cli, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b" " * 5000)))
    code, _, err = cli("footprint", "-", "--max-input-bytes", "4K")
    assert code == 2 and "more than the 4,096-byte input limit" in err


def test_dash_reads_a_tool_result_from_standard_input(cli, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"id": 1, "name": "Ada"}')))
    code, out, err = cli("responses", "-", "--format", "json")
    assert code == 0, err
    assert json.loads(out)[0]["tool"] == "stdin"


def test_dash_reads_an_mcp_config_from_standard_input(cli, monkeypatch):
    config = {"mcpServers": {"s": {"command": "definitely-not-a-command-xyz"}}}
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(config).encode())))
    code, _, err = cli("discover", "--config", "-", "--connect-timeout", "5")
    assert code == 1 and "definitely-not-a-command-xyz" in err


@pytest.mark.parametrize("argv", [["simulate", "--prices", "/dev/zero"], ["audit", "--config", "/dev/zero"]])
def test_assumption_files_are_read_as_regular_files_only(write_json, argv):
    r = _limited(argv[0], write_json({"tools": [TOOL]}), *argv[1:])
    assert "is a device" in _one_error_line(r)
