"""The DuckDB and Dask engines give exactly the numbers (and warnings) of the built-in reader."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest
from _public_data import CLAUDE_CODE_LOG, absent_reason, shared_path
from conftest import ROOT

from toolsurvey.errors import InputError
from toolsurvey.inputs.traces.load import load_traces


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """Generated traces of all three formats, the Claude Code layouts of tests/data/traces (progress
    lines, two objects on a line, metadata.json), the real fixture (left out when ../shared/data is
    absent), and every kind of bad input."""
    root = tmp_path_factory.mktemp("traces")
    shutil.copytree(ROOT / "tests" / "data" / "traces", root / "layouts")
    for fmt in ("claude-code", "otel", "provider-log"):
        subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_traces.py"), fmt, str(root / fmt),
                        "--sessions", "5", "--steps", "6", "--seed", "3"], check=True, capture_output=True)
    real = shared_path(*CLAUDE_CODE_LOG)
    if real is None:
        warnings.warn(f"engines compared without the real fixture: {absent_reason(*CLAUDE_CODE_LOG)}", stacklevel=1)
    else:
        (root / "real.jsonl").write_bytes(real.read_bytes())
    bad = root / "claude-code" / "bad.jsonl"
    first = (root / "claude-code" / "00000000-0000-4000-8000-000000000001.jsonl").read_text().splitlines()
    bad.write_text("\n".join(first[:6] + ['{"type": "mystery"}', "[1, 2]", '{"type": "assistant", "message": {}}',
                                          "{not json"]) + '\n{"type": "assistant", "requestId": "cut')
    good = gzip.compress("\n".join(first).encode() + b"\n")
    (root / "claude-code" / "cut.jsonl.gz").write_bytes(good[: len(good) // 2])
    return root


def _same(a, b):
    pd.testing.assert_frame_equal(a.requests, b.requests)
    pd.testing.assert_frame_equal(a.calls, b.calls)
    pd.testing.assert_frame_equal(a.sessions, b.sessions)
    pd.testing.assert_frame_equal(a.events, b.events)
    assert [str(s) for s in a.skips.items] == [str(s) for s in b.skips.items]
    assert a.warnings == b.warnings and a.account.lines() == b.account.lines()


def test_duckdb_gives_the_numbers_and_warnings_of_the_builtin_reader(folder):
    ref = load_traces(folder, engine="python")
    assert ref.account.repeated_in  # bad.jsonl repeats a session's requests
    assert {"truncated last line", "not an object", "no usage", "invalid JSON",
            "corrupt gzip"} <= set(ref.skips.reasons)
    assert ref.account.unknown_types["mystery"][0] == 1  # counted per type, not skipped per line
    assert ref.account.not_traces["metadata.json"] == 1 and (ref.requests["source"] == "progress").sum() == 2
    assert ref.account.skips.joined
    # OTLP nanoseconds and ISO text read into one column: every generated request is on 2026-03-02/03
    generated = ~ref.requests["file"].str.endswith("real.jsonl") & ~ref.requests["file"].str.contains("layouts")
    stamps = ref.requests.loc[generated, "timestamp"]
    assert stamps.dt.strftime("%Y-%m").eq("2026-03").all()
    _same(ref, load_traces(folder, engine="duckdb"))


def test_dask_on_a_two_worker_local_cluster_gives_the_same_numbers(folder, monkeypatch, capsys):
    from toolsurvey.cli import main

    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        got = load_traces(folder, engine="dask", scheduler=cluster.scheduler_address)
        monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", cluster.scheduler_address)
        assert main(["traces", str(folder), "--engine", "dask", "--format", "json", "--by", "day"]) == 0
    ref = load_traces(folder, engine="python")
    _same(ref, got)
    doc = json.loads(capsys.readouterr().out)
    assert sum(r["cost"] or 0 for r in doc["rows"]) == pytest.approx(ref.requests["cost"].sum())
    assert doc["totals"]["cost"] == pytest.approx(ref.requests["cost"].sum())


def test_a_missing_engine_names_its_extra(folder, monkeypatch):
    monkeypatch.setitem(sys.modules, "duckdb", None)  # import duckdb now raises ImportError
    with pytest.raises(InputError, match=r"toolsurvey\[traces\]"):
        load_traces(folder, engine="duckdb")
    monkeypatch.setitem(sys.modules, "dask.bag", None)
    with pytest.raises(InputError, match=r"toolsurvey\[dask\]"):
        load_traces(folder, engine="dask")


def test_cli_reads_with_duckdb(folder, capsys):
    from toolsurvey.cli import main

    assert main(["traces", str(folder), "--engine", "duckdb", "--format", "json", "--by", "model"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    ref = load_traces(folder, engine="python").totals("model")
    assert {r["model"]: r["requests"] for r in rows} == dict(zip(ref["model"], ref["requests"], strict=True))


def test_the_summary_path_gives_the_tables_numbers_with_every_engine_and_both_cores(folder, monkeypatch):
    from toolsurvey.inputs.traces import read
    from toolsurvey.inputs.traces.summary import summarize

    monkeypatch.setattr(read, "CHUNK_BYTES", 1)  # every file a chunk: the processes share a small folder too
    ref = load_traces(folder, engine="python")
    want = ref.totals("model", timezone="UTC").drop(columns="models", errors="ignore")
    one = summarize(folder, workers=1)
    for s in (one, summarize(folder, workers=2), summarize(folder, engine="duckdb")):
        got = pd.DataFrame(s.view("model", z=None).rows)
        pd.testing.assert_frame_equal(got, want, check_dtype=False)
        lean, full = {str(x) for x in s.account.skips.items}, {str(x) for x in ref.skips.items}
        assert lean <= full
        # the pre-filter passes over lines without usage: only such lines' problems go unseen
        for x in ref.skips.items:
            if str(x) not in lean:
                assert b'"usage"' not in Path(x.file).read_bytes().split(b"\n")[x.line - 1], x
    # two or three processes share the files: the same rules, skips and summary as one
    assert summarize(folder, workers=2).summary() == one.summary()
    assert summarize(folder, workers=3).summary() == one.summary()
    assert one.headline()[:2] == ref.summary().split("\n")[:2]


def test_processes_share_the_chunks_and_a_dead_worker_loses_nothing(folder, monkeypatch):
    import os

    from toolsurvey.inputs.traces import read
    from toolsurvey.inputs.traces.files import source_files
    from toolsurvey.inputs.traces.summary import summarize

    monkeypatch.setattr(read, "CHUNK_BYTES", 1)
    one = summarize(folder, workers=1)
    claimed = []
    claim = read._claim
    monkeypatch.setattr(read, "_claim", lambda ends, first: claimed.append(c := claim(ends, first)) or c)
    two = summarize(folder, workers=2)
    files = len(source_files(folder))
    mine = [c for c in claimed if c >= 0]  # this process's claims (a worker's are made in the worker)
    assert 0 < len(mine) < files and mine == list(range(len(mine)))  # from the front, in order
    assert two.summary() == one.summary()

    def dies(chunks, format, ends, conn):  # killed after claiming a chunk, before sending it (a signal, OOM)
        claim(ends, False)
        os._exit(1)

    monkeypatch.setattr(read, "_worker", dies)
    assert summarize(folder, workers=2).summary() == one.summary()  # its chunks read again by this process
