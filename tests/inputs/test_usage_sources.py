"""A usage input is resolved once, at the edge: a trace path gives both the traces and their tool calls."""

from __future__ import annotations

import pytest
from conftest import ROOT

from toolsurvey.errors import InputError
from toolsurvey.inputs import sources
from toolsurvey.inputs.sources import load_usage, usage_and_traces
from toolsurvey.inputs.traces.load import load_traces
from toolsurvey.inputs.traces.tables import Traces
from toolsurvey.inputs.usage import Usage, read_log

CLAUDE = ROOT / "data" / "traces" / "claude-code"
LOG = ROOT / "data" / "usage" / "ops_assistant.jsonl"


def _counting(monkeypatch) -> list:
    """The sources each `load_traces` call of `inputs.sources` read, in order."""
    seen = []

    def counted(source, **kw):
        seen.append(source)
        return load_traces(source, **kw)

    monkeypatch.setattr(sources, "load_traces", counted)
    return seen


def test_a_trace_path_as_usage_is_loaded_once_and_gives_both(monkeypatch):
    seen = _counting(monkeypatch)
    tr, usage = usage_and_traces(CLAUDE, None)
    assert seen == [CLAUDE]
    assert isinstance(tr, Traces) and isinstance(usage, Usage)
    assert usage.calls.equals(tr.to_usage().calls)


def test_traces_and_a_log_are_each_read_as_what_they_are(monkeypatch):
    seen = _counting(monkeypatch)
    tr, usage = usage_and_traces(LOG, CLAUDE)
    assert seen == [CLAUDE]
    assert isinstance(tr, Traces)
    assert usage.calls.equals(read_log(LOG).calls) and usage.source == str(LOG)


def test_values_already_read_pass_through():
    tr, log = load_traces(CLAUDE), read_log(LOG)
    got_tr, got_usage = usage_and_traces(log, tr)
    assert got_tr is tr and got_usage is log
    assert usage_and_traces(None, None) == (None, None)
    got_tr, got_usage = usage_and_traces(None, tr)
    assert got_tr is tr and got_usage is None


def test_records_are_read_as_a_log():
    _, usage = usage_and_traces([{"tool": "search"}, {"tool": "search"}], None)
    assert list(usage.calls["tool"]) == ["search", "search"]


def test_load_usage_reads_a_trace_path_as_its_tool_calls_and_a_log_as_a_log():
    assert load_usage(CLAUDE).calls.equals(load_traces(CLAUDE).to_usage().calls)
    assert load_usage(LOG).calls.equals(read_log(LOG).calls)


def test_a_missing_log_is_an_input_error():
    with pytest.raises(InputError):
        usage_and_traces(ROOT / "no-such-log.jsonl", None)
