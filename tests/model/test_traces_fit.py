"""A scenario fitted to traces, and the simulation checked against the bill."""

from __future__ import annotations

import dataclasses
import json

import pytest
from conftest import ROOT

import toolsurvey as ts
from toolsurvey.core.tokens import get_encoding

RESULT = json.dumps({"items": [{"id": n, "title": f"issue {n} about login"} for n in range(40)]})
R = len(get_encoding("o200k_base").encode_ordinary(RESULT))
P, C, A = 3000, 60, 200  # prefix, call output, answer output


def _line(rid, ts_, usage, content=()):
    return {"type": "assistant", "sessionId": "s1", "requestId": rid, "timestamp": ts_,
            "message": {"model": "claude-sonnet-4-5", "content": list(content), "usage": usage}}


@pytest.fixture
def traces(tmp_path):
    """A two-request task billed exactly as the simulation's model has it, with no caching:
    request 1 reads the prefix and calls a tool, request 2 reads prefix + call + result and answers."""
    lines = [
        _line("r1", "2026-01-05T10:00:00Z", {"input_tokens": P, "output_tokens": C},
              [{"type": "tool_use", "id": "t1", "name": "mcp__gh__search", "input": {"q": "login"}}]),
        {"type": "user", "sessionId": "s1", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": RESULT}]}},
        _line("r2", "2026-01-05T10:00:09Z", {"input_tokens": P + C + R, "output_tokens": A}),
    ]
    (tmp_path / "s1.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return ts.load_traces(tmp_path, engine="python")


def test_fit_reads_steps_results_prefix_outputs_and_caching(traces):
    sc = ts.fit_scenario(traces)
    assert sc.model == "claude-sonnet-4-5"
    assert sc.steps.expected() == 2
    assert sc.response_tokens.expected() == R
    assert sc.system_prompt_tokens == P and sc.tool_tokens == 0
    assert (sc.call_tokens, sc.answer_tokens) == (C, A)
    assert sc.caching == "none" and sc.accuracy is False


def test_compare_matches_a_bill_that_follows_the_model(traces):
    billed = ((P + (P + C + R)) * 3.0 + (C + A) * 15.0) / 1e6  # claude-sonnet-4-5: $3 in, $15 out
    table = ts.compare(traces)
    total = table.iloc[-1]
    assert total["session"] == "(total)"
    assert total["billed"] == pytest.approx(billed)
    assert total["simulated"] == pytest.approx(billed)
    assert abs(total["error"]) < 1e-9 and "within" in table.attrs["verdict"]


def test_compare_names_the_input_behind_a_gap(traces):
    wrong = dataclasses.replace(ts.fit_scenario(traces), response_tokens=5 * R)
    table = ts.compare(traces, wrong)
    expected = ((P + (P + C + 5 * R)) * 3.0 + (C + A) * 15.0) / 1e6
    assert table.iloc[-1]["simulated"] == pytest.approx(expected)
    verdict = table.attrs["verdict"]
    assert "over the billed cost" in verdict and "response_tokens" in verdict


def test_the_sample_traces_fit_within_ten_percent():
    for fmt in ("claude-code", "otel", "provider-log"):
        tr = ts.load_traces(ROOT / "data" / "traces" / fmt, engine="python")
        assert ts.compare(tr).iloc[-1]["within_10pct"], fmt


def test_report_with_traces_has_the_measured_vs_simulated_section():
    root = ROOT
    folder = root / "data" / "traces" / "claude-code"
    rep = ts.report(root / "data" / "registries" / "ops_assistant.json", usage=folder)
    s = rep.section("traces")
    assert s.missing is None
    table = rep.tables["traces_vs_simulated"].data
    assert table.iloc[-1]["session"] == "(total)"
    assert table.iloc[-1]["billed_usd"] == pytest.approx(ts.load_traces(folder).requests["cost"].sum())
    assert "What your traces say" in rep.to_markdown()
    # the usage log sections read the same traces: every recorded tool call counts
    assert rep.tables["responses"].data["calls"].sum() <= len(ts.load_traces(folder).calls)


def test_notebook_06_shows_measured_vs_simulated_for_the_sample_traces():
    import nbformat
    from _notebooks import NOTEBOOKS, execute

    done = execute(nbformat.read(NOTEBOOKS / "06_traces.ipynb", as_version=4))
    text = "\n".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", ""))
                     for c in done.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "(total)" in text and "simulated" in text
    assert "within" in text  # the verdict on the sample traces
