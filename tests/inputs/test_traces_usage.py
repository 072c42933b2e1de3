"""Traces feed everything that takes a usage log: plan (unused tools), report --usage and responses."""

from __future__ import annotations

import json

from conftest import ROOT

import toolsurvey as ts
from toolsurvey.advice.plan.stages import plan
from toolsurvey.cli import main
from toolsurvey.inputs.sources import load_usage

REG = ROOT / "data" / "registries" / "ops_assistant.json"
CLAUDE = ROOT / "data" / "traces" / "claude-code"


def _called() -> list[tuple[str, str, str]]:
    """(server, tool, tool_use id) of every tool_use block in the sample sessions, read directly."""
    out = {}
    for f in CLAUDE.rglob("*.jsonl"):
        for line in f.read_text().splitlines():
            rec = json.loads(line)
            for b in (rec.get("message") or {}).get("content") or []:
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    _, server, tool = b["name"].split("__")
                    out[b["id"]] = (server, tool)
    return list(out.values())


def test_load_usage_accepts_a_folder_of_claude_code_sessions():
    u = load_usage(CLAUDE)
    called = _called()
    assert len(u) == len(called)
    assert sorted(zip(u.calls["server"], u.calls["tool"], strict=True)) == sorted(called)


def test_plan_deletes_exactly_the_tools_the_traces_never_call():
    called = {(s, t) for s, t in _called()}
    never = sorted(f"{t.server}/{t.name}" for t in ts.load(REG) if (t.server, t.name) not in called)
    assert never
    p = plan(ts.load(REG), usage=CLAUDE, window_days=None, stages=("delete", "trim", "defer"), phases=None)
    deleted = sorted(a.target for a in p.actions if a.kind == "delete")
    assert deleted == never


def test_responses_reads_the_results_recorded_in_traces(capsys):
    assert main(["responses", str(CLAUDE), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    results = sum(1 for f in CLAUDE.rglob("*.jsonl") for line in f.read_text().splitlines()
                  for b in (json.loads(line).get("message") or {}).get("content") or []
                  if isinstance(b, dict) and b.get("type") == "tool_result")
    assert sum(r["payloads"] for r in rows) == results


def test_notebook_04_runs_on_agent_traces():
    import nbformat
    from _notebooks import NOTEBOOKS, execute, with_parameters

    nb = with_parameters(nbformat.read(NOTEBOOKS / "04_response_trimming.ipynb", as_version=4),
                         'responses = "../data/traces/claude-code"')
    done = execute(nb)
    assert not [o for c in done.cells if c.cell_type == "code" for o in c.get("outputs", [])
                if o.get("output_type") == "error"]
