"""Hostile stdio servers: no descendant outlives a discovery (checked in /proc), whatever it does —
a new session, an empty environment, SIGTERM ignored, spawned after stdin closes, toolsurvey itself
terminated — and gigabytes of stderr cost a bounded amount of memory."""

import os
import resource
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from conftest import TESTS

ESCAPE = [sys.executable, str(TESTS / "servers" / "escape.py")]
GIB = 2**30


def alive_with(tag: str) -> list[int]:
    """Pids of live (not zombie) processes whose command line holds `tag`, read from /proc."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if tag.encode() in cmdline and state != "Z":
            out.append(int(entry.name))
    return out


def _discover(*argv, preexec_fn=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "toolsurvey", "discover", *map(str, argv)],
                          capture_output=True, text=True, timeout=timeout, preexec_fn=preexec_fn)


@pytest.mark.parametrize("mode", ["setsid", "late"])
def test_a_grandchild_in_its_own_session_is_killed_and_reported(mode):
    tag = uuid.uuid4().hex
    r = _discover("--connect-timeout", "20", "--", *ESCAPE, mode, tag)
    assert r.returncode == 0, r.stderr
    assert "killed 1 process(es) the servers left running" in r.stderr
    assert alive_with(tag) == []


def test_the_library_leaves_nothing_either():
    from toolsurvey import discover

    tag = uuid.uuid4().hex
    reg = discover([*ESCAPE, "setsid", tag], name="escape", connect_timeout=20)
    assert [t.name for t in reg] == ["ping"]
    assert any("killed 1 process(es)" in w for w in reg.warnings)
    assert alive_with(tag) == []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_termination_during_discovery_stops_every_process(sig):
    tag = uuid.uuid4().hex
    proc = subprocess.Popen([sys.executable, "-m", "toolsurvey", "discover", "--connect-timeout", "60", "--",
                             *ESCAPE, "stubborn", tag], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while len(alive_with(tag)) < 3 and time.monotonic() < deadline:  # the CLI, the server, the grandchild
        time.sleep(0.1)
    assert len(alive_with(tag)) == 3
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig and f"terminated by {sig.name}" in err
    assert alive_with(tag) == []


def test_two_gigabytes_of_stderr_cost_bounded_memory():
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (GIB, GIB))

    r = _discover("--connect-timeout", "120", "--", *ESCAPE, "stderr-flood", "x", "2048", preexec_fn=cap, timeout=300)
    assert r.returncode == 1 and "Traceback" not in r.stderr and "MemoryError" not in r.stderr
    assert "fatal: the last line of a long log" in " ".join(r.stderr.split())  # the line is wrapped to fit


def test_nan_from_a_server_fails_it_with_the_position():
    from toolsurvey import discover
    from toolsurvey.inputs.discovery.run import failures

    reg = discover([*ESCAPE, "nan", uuid.uuid4().hex], name="nan", connect_timeout=20)
    assert "tools[0].inputSchema.maximum is nan, which is not a JSON number" in failures(reg)["nan"]


def test_discover_writes_the_snapshot_to_standard_output_with_dash(cli, tmp_path, monkeypatch):
    import json

    monkeypatch.chdir(tmp_path)
    code, out, err = cli("discover", "-o", "-", "--", *ESCAPE, "names", uuid.uuid4().hex)
    assert code == 0, err
    assert list(json.loads(out)["servers"]) and not (tmp_path / "-").exists()
