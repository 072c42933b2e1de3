"""Retired public names (issue 36, "public names with one vocabulary"): each old name still works for one
release, warns with a DeprecationWarning that names the new one, gives what the new name gives, and is
listed in CHANGELOG.md's "Deprecated" of the release that retires it (this version's section, or
[Unreleased] on a development version)."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from conftest import DATA, ROOT

import toolsurvey as ts
from toolsurvey.core.deprecation import deprecated

REG = DATA / "registries" / "ops_assistant.json"
LOG = DATA / "usage" / "ops_assistant.jsonl"


def _unreleased_deprecated() -> str:
    """The "Deprecated" lists of this version's section; on a development version, of [Unreleased] and
    of the newest release (whose deprecations are still in the tree until the next release removes them)."""
    text = (ROOT / "CHANGELOG.md").read_text("utf-8")
    sections = re.split(r"\n## \[", text)[1:]
    if "dev" in ts.__version__:
        mine = [s for s in sections if s.startswith("Unreleased]")] + [s for s in sections if s[:1].isdigit()][:1]
    else:
        mine = [s for s in sections if s.startswith(f"{ts.__version__}]")]
    assert mine, f"CHANGELOG.md has no section for {ts.__version__}"
    return "\n".join(s.split("### Deprecated", 1)[1].split("\n### ", 1)[0] for s in mine if "### Deprecated" in s)


def test_the_warning_names_the_old_and_the_new_name_and_points_at_the_caller():
    with pytest.warns(DeprecationWarning) as got:
        deprecated("old()", "new()", stacklevel=2)
    [w] = got
    assert str(w.message) == "old() is deprecated and will be removed in the next release; use new()"
    assert w.filename == __file__


def test_check_is_check_budget():
    reg = ts.load(REG)
    with pytest.warns(DeprecationWarning, match=r"toolsurvey\.check\(\) is deprecated.*use toolsurvey\.check_budget\(\)"):
        old = ts.check(reg, max_tool_tokens=200)
    new = ts.check_budget(reg, max_tool_tokens=200)
    assert old == new and len(new) > 0  # the sample has tools over 200 tokens


@pytest.mark.parametrize("switch, stages", [
    ({"merge": False}, ("delete", "trim", "defer")),
    ({"delete_unused": False}, ("merge", "trim", "defer")),
    ({"trim": False, "defer": False}, ("delete", "merge")),
])
def test_plan_switches_are_stages(switch, stages):
    reg = ts.load(REG)
    with pytest.warns(DeprecationWarning, match=r"plan\(\.\.\., \w+=False\) is deprecated.*use plan\(\.\.\., stages=") as got:
        old = ts.plan(reg, usage=str(LOG), **switch)
    assert len(got) == len(switch)
    new = ts.plan(reg, usage=str(LOG), stages=stages)
    pd.testing.assert_frame_equal(old.stages, new.stages)
    assert [a.kind for a in old.actions] == [a.kind for a in new.actions]


def test_plan_refuses_an_unknown_stage():
    with pytest.raises(ts.InputError, match="unknown plan stage.*gate; expected some of delete, merge, trim, defer"):
        ts.plan(ts.load(REG), stages=("delete", "gate"))


def test_usage_problems_is_usage_warnings(tmp_path):
    log = tmp_path / "u.jsonl"
    log.write_text('{"tool": "a"}\nnot json\n')
    u = ts.load_usage(str(log))
    with pytest.warns(DeprecationWarning, match=r"Usage\.problems is deprecated.*use Usage\.warnings"):
        assert u.problems == u.warnings and u.warnings[0].startswith("line 2")


def test_trace_queries_notes_is_warnings(tmp_path):
    rows = [{"type": "user", "sessionId": "s", "timestamp": "2026-11-01T00:00:00Z",
             "message": {"role": "user", "content": "list the open incidents"}},
            {"type": "assistant", "sessionId": "s", "timestamp": "2026-11-01T00:00:01Z",
             "message": {"role": "assistant", "model": "claude-sonnet-4-5", "content": [
                 {"type": "tool_use", "id": "t1", "name": "mcp__ops__list_incidents", "input": {}}],
                 "usage": {"input_tokens": 1, "output_tokens": 1}}}]
    p = tmp_path / "s.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    reg = ts.Registry.from_tools([ts.Tool("list_incidents", "List incidents.", {"type": "object"}, server="ops")])
    q = ts.queries_from_traces(p, reg)
    with pytest.warns(DeprecationWarning, match=r"TraceQueries\.notes is deprecated.*use TraceQueries\.warnings"):
        assert q.notes == q.warnings and "1 prompts read" in q.warnings[0]


def test_report_takes_scenario_changes_as_simulate_does():
    reg = ts.load(REG)
    by_keyword = ts.report(reg, scenario=ts.Scenario(steps=4), model="gpt-4o", tasks_per_day=200)
    as_simulate = ts.report(reg, ts.Scenario(steps=4), model="gpt-4o", tasks_per_day=200)
    assert by_keyword.to_markdown() == as_simulate.to_markdown()
    assert "gpt-4o" in as_simulate.to_markdown()
    with pytest.raises(TypeError, match="'stepz' \\(not a Scenario field\\)"):
        ts.report(reg, stepz=4)


@pytest.mark.parametrize("old", ["`toolsurvey.check()`", "`plan(..., delete_unused=)`", "`Usage.problems`",
                                 "`TraceQueries.notes`", 'calibration["key"]',
                                 "`measure_responses(URL, headers=..., timeout=...)`"])
def test_changelog_lists_each_deprecated_name(old):
    listed = _unreleased_deprecated()
    assert re.sub(r"[`\s]", "", old) in re.sub(r"[`\s]", "", listed)
