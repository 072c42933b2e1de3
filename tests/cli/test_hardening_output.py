"""`-o` writes through devices, FIFOs and standard output, follows symlinks, and leaves nothing stale."""

import os
import signal
import subprocess
import sys
import threading

import pytest

from toolsurvey.core import writing as _io

TOOLS = {"tools": [{"name": "search_docs", "description": "Search the docs.", "inputSchema": {"type": "object"}}]}


def _cli(*argv, **kw):
    return subprocess.run([sys.executable, "-m", "toolsurvey", *map(str, argv)], capture_output=True, text=True,
                          timeout=120, **kw)


def test_dash_means_standard_output_and_creates_no_file(cli, write_json, tmp_path, monkeypatch):
    path = write_json(TOOLS)
    monkeypatch.chdir(tmp_path)
    code, out, _ = cli("footprint", path, "--format", "csv", "-o", "-")
    assert code == 0 and "search_docs" in out
    assert not (tmp_path / "-").exists()


def test_dev_stdout_reaches_standard_output(write_json):
    path = write_json(TOOLS)
    r = _cli("footprint", path, "--format", "csv", "-o", "/dev/stdout")
    assert r.returncode == 0 and "search_docs" in r.stdout


def test_dev_null_stays_a_device(write_json):
    before = os.stat("/dev/null")
    r = _cli("footprint", write_json(TOOLS), "-o", "/dev/null")
    after = os.stat("/dev/null")
    assert r.returncode == 0
    assert (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


def test_a_fifo_is_written_through(write_json, tmp_path, cli):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    code, _, _ = cli("footprint", write_json(TOOLS), "--format", "csv", "-o", fifo)
    reader.join(10)
    assert code == 0 and "search_docs" in got[0]
    assert fifo.is_fifo()


def test_a_symlink_is_kept_and_its_target_replaced(write_json, tmp_path, cli):
    target = tmp_path / "real.csv"
    target.write_text("old")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    code, _, _ = cli("footprint", write_json(TOOLS), "--format", "csv", "-o", link)
    assert code == 0 and link.is_symlink()
    assert "search_docs" in target.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.csv", "real.csv", "tools.json"]


def test_a_csv_report_set_removes_the_files_of_the_previous_set(write_json, tmp_path, cli):
    folder = tmp_path / "tables"
    bad = write_json({"tools": [{"name": "x", "description": "", "inputSchema": {"type": "object"}}]}, "bad.json")
    assert cli("report", bad, "--format", "csv", "-o", folder)[0] == 0
    first = {p.name for p in folder.glob("*.csv")}
    (folder / "notes.csv").write_text("mine")  # not written by toolsurvey: must survive
    good = write_json({"tools": [{"name": "y", "description": "Look up one customer by id.",
                                  "inputSchema": {"type": "object"}}]}, "good.json")
    assert cli("report", good, "--format", "csv", "-o", folder)[0] == 0
    second = {p.name for p in folder.glob("*.csv")} - {"notes.csv"}
    expected = {name for name in os.listdir(folder) if name.endswith(".csv")} - {"notes.csv"}
    assert second == expected and (folder / "notes.csv").exists()
    manifest = (folder / ".toolsurvey-report").read_text().split()
    assert set(manifest) == second
    assert first - second == {n for n in first if not (folder / n).exists()}


def test_sigterm_while_writing_the_report_leaves_no_temporary(write_json, tmp_path, cli, monkeypatch):
    real_replace = os.replace

    def terminated_midway(src, dst):
        os.kill(os.getpid(), signal.SIGTERM)  # the CLI's handler raises here, as a real kill would
        real_replace(src, dst)

    monkeypatch.setattr(_io.os, "replace", terminated_midway)
    code, _, err = cli("report", write_json(TOOLS), "-o", tmp_path / "report.html")
    assert code == 128 + signal.SIGTERM and "terminated by SIGTERM" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tools.json"]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


@pytest.mark.parametrize("fmt", ["html", "markdown"])
def test_report_to_standard_output(write_json, cli, fmt, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = cli("report", write_json(TOOLS), "--format", fmt, "-o", "-")
    assert code == 0 and "search" in out and not (tmp_path / "-").exists()


def test_an_ignored_sighup_stays_ignored(write_json, cli, tmp_path, monkeypatch):
    real_replace = os.replace

    def hangup_midway(src, dst):
        os.kill(os.getpid(), signal.SIGHUP)
        real_replace(src, dst)

    monkeypatch.setattr(_io.os, "replace", hangup_midway)
    old = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as nohup leaves it
    try:
        assert cli("footprint", write_json(TOOLS), "-o", tmp_path / "out.txt")[0] == 0
        assert (tmp_path / "out.txt").exists()
    finally:
        signal.signal(signal.SIGHUP, old)


def test_a_csv_report_cannot_go_to_standard_output(write_json, cli):
    code, _, err = cli("report", write_json(TOOLS), "--format", "csv", "-o", "-")
    assert code == 2 and "a CSV report is a folder of files" in err
