"""The description-needed rule (`audit --eval FILE` with a description-length sweep), on a registry and
a sweep log written by hand: which tools it flags, with which counts, and which it must not (a tool
whose description the cut leaves whole is not judged at that length)."""

from __future__ import annotations

import json

import pytest
from conftest import run_cli

from toolsurvey.advice.audit.description_needed import recall_drops
from toolsurvey.measuring.selection.stored import read_eval

LONG = ("Search the internal service catalogue by service name, owning team or tag, and return each "
        "service with its owner, rotation, runbook and tier.")
# (tool, description): a and c are long (cut at 10 tokens), b is short (left whole at 10)
TOOLS = [("a", LONG), ("b", "Get a deploy."), ("c", LONG.replace("Search", "Browse"))]
# variant -> tool -> outcomes of its two queries (a wrong answer calls another tool)
SWEEP = {"full": {"a": ["right", "right"], "b": ["right", "right"], "c": ["right", "wrong"]},
         10: {"a": ["wrong", "skip"], "b": ["wrong", "wrong"], "c": ["right", "wrong"]},
         "none": {"a": ["right", "wrong"], "b": ["right", "right"], "c": ["wrong", "skip"]}}


@pytest.fixture
def files(tmp_path):
    reg = tmp_path / "reg.json"
    reg.write_text(json.dumps({"servers": {"s": {"tools": [
        {"name": n, "description": d, "inputSchema": {"type": "object"}} for n, d in TOOLS]}}}))
    log = tmp_path / "sweep.jsonl"
    rows = []
    for label, tools in SWEEP.items():
        for tool, outs in tools.items():
            for i, o in enumerate(outs):
                called = {"right": f"s/{tool}", "wrong": "s/b" if tool != "b" else "s/a", "skip": "none"}[o]
                rows.append({"id": f"{tool}{i}", "model": "tiny-model", "repeat": 0, "gold": [f"s/{tool}"],
                             "outcome": o, "expected": f"s/{tool}", "called": called, "args_valid": None,
                             "args_match": None, "tools_offered": ["s/a", "s/b", "s/c"],
                             "description_tokens": label, "description_mean_tokens": 1.0})
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return reg, log


def test_recall_drops_counts_only_the_lengths_that_cut_the_tool(files):
    import toolsurvey as ts

    reg, log = files
    drops = {r["tool"]: r for r in recall_drops(ts.load(str(reg)), read_eval(log))}
    assert drops["s/a"]["full"] == (2, 2)
    assert drops["s/a"]["variants"] == {"none": (1, 2), 10: (0, 2)}
    assert (drops["s/a"]["drop"], drops["s/a"]["lost"], drops["s/a"]["worst"]) == (1.0, 2, 10)
    assert drops["s/b"]["variants"] == {"none": (2, 2)}  # 10 tokens leave "Get a deploy." whole
    assert drops["s/b"]["drop"] == 0
    assert drops["s/c"]["variants"] == {"none": (0, 2), 10: (1, 2)}
    assert (drops["s/c"]["drop"], drops["s/c"]["lost"]) == (0.5, 1)
    assert [r["tool"] for r in recall_drops(ts.load(str(reg)), read_eval(log))] == ["s/a", "s/c", "s/b"]


def test_audit_eval_flags_the_tools_that_lose_queries_with_their_counts(files, capsys):
    reg, log = files
    code, out, _ = run_cli("audit", reg, "--eval", log, "--rules", "description-needed", "--format", "json",
                           capsys=capsys)
    assert code == 0
    found = {f["tool"]: f["evidence"] for f in json.loads(out)}
    assert set(found) == {"a", "c"}
    assert found["a"].startswith("recall 2/2 with its full description, 1/2 with none, 0/2 at 10; "
                                 "it loses queries from 10 tokens down")
    assert found["c"].startswith("recall 1/2 with its full description, 0/2 with none, 1/2 at 10; "
                                 "it loses queries only with no description")
    assert "tiny-model" in found["a"]


def test_audit_without_a_description_sweep_has_no_such_finding(files, capsys, tmp_path):
    reg, log = files
    plain = tmp_path / "plain.jsonl"
    plain.write_text("".join(json.dumps({k: v for k, v in json.loads(x).items()
                                         if k not in ("description_tokens", "description_mean_tokens")}) + "\n"
                             for x in log.read_text().splitlines()[:6]))
    code, out, _ = run_cli("audit", reg, "--eval", plain, "--rules", "description-needed", "--format", "json",
                           capsys=capsys)
    assert code == 0 and json.loads(out) == []
    code, out, _ = run_cli("audit", reg, "--rules", "description-needed", "--format", "json", capsys=capsys)
    assert code == 0 and json.loads(out) == []
