"""The consolidation plan: its before/after figures are the simulation's, and each action is checked
against figures worked out independently from the registry and the raw log."""

import json
import warnings

import pytest
from conftest import DATA, compact

import toolsurvey as ts
from toolsurvey.errors import InputError
from toolsurvey.planning import merge_tools, plan
from toolsurvey.registry import Registry, Tool
from toolsurvey.scenario import Phase, Scenario
from toolsurvey.simulation import simulate
from toolsurvey.tokens import get_encoding
from toolsurvey.usage import load_usage

REG = DATA / "registries" / "ops_assistant.json"
LOG = DATA / "usage" / "ops_assistant.jsonl"
PHASES = DATA / "phases" / "ops_assistant.toml"
SCENARIO = DATA / "scenarios" / "ops_assistant.toml"


@pytest.fixture(scope="module")
def sample():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return plan(ts.load(REG), usage=LOG, phases=PHASES, scenario=SCENARIO)


@pytest.fixture(scope="module")
def raw():
    return [json.loads(x) for x in LOG.read_text().splitlines()]


def sim(reg, sc):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return simulate(reg, sc).summary


def test_before_after_equal_separate_simulations(sample):
    before = sim(sample.before, sample.before_scenario)
    after = sim(sample.after, sample.after_scenario)
    t = sample.table.set_index("metric")
    for metric, key in [("mean tools visible", "mean_visible"), ("tool definitions per request", "tool_tokens_per_request"),
                        ("mean steps per task", "expected_requests"), ("wrong-tool selections", "wrong_rate"),
                        ("task success", "success"), ("input tokens per task", "input_tokens_per_task"),
                        ("cost per task", "cost_per_task"), ("cost per completed task", "cost_per_completed_task"),
                        ("cost per month", "cost_per_month")]:
        assert t.loc[metric, "before"] == pytest.approx(before[key], rel=1e-12)
        assert t.loc[metric, "after"] == pytest.approx(after[key], rel=1e-12)
    assert t.loc["tools registered", "before"] == 63 == len(ts.load(REG))
    assert t.loc["tools registered", "after"] == len(sample.after)


def test_before_is_everything_visible_and_after_is_gated(sample):
    assert sample.before_scenario.strategy == "all" and sample.after_scenario.strategy == "phases"
    base = ts.load_scenario(SCENARIO)
    for field in ("model", "steps", "caching", "system_prompt_tokens", "tasks_per_day", "call_tokens"):
        assert getattr(sample.before_scenario, field) == getattr(base, field) == getattr(sample.after_scenario, field)


def test_deletes_exactly_the_tools_the_log_never_calls(sample, raw):
    called = {f"{r['server']}/{r['tool']}" for r in raw}
    never = {t.key for t in ts.load(REG)} - called
    deleted = {a.target for a in sample.actions if a.kind == "delete"}
    assert deleted == never and len(never) == 19


def test_after_registry_is_before_minus_deleted_and_merged_away(sample):
    gone = {a.target for a in sample.actions if a.kind == "delete"}
    for a in sample.actions:
        if a.kind == "merge":
            gone |= set(a.tools) - {a.target}
    assert {t.key for t in sample.after} == {t.key for t in sample.before} - gone


def test_delete_saving_is_the_tools_compact_json_tokens(sample):
    enc = get_encoding("o200k_base")
    tools = {t.key: t for t in ts.load(REG)}
    for a in (a for a in sample.actions if a.kind == "delete"):
        t = tools[a.target]
        assert a.tokens_per_request == len(enc.encode_ordinary(
            compact({"name": t.name, "description": t.description, "inputSchema": t.input_schema})))


def test_response_tokens_before_and_after_trim_from_the_raw_log(sample, raw):
    # before: the mean result of every call; after: results of the trimmed tools capped at 1,000
    # (merged-away tools' calls count for their survivor, whose own mean decides)
    assert sample.before_scenario.response_tokens.expected() == pytest.approx(sum(r["response_tokens"] for r in raw) / len(raw))
    trimmed = {a.target for a in sample.actions if a.kind == "trim"}
    survivor = {m: a.target for a in sample.actions if a.kind == "merge" for m in a.tools}
    after = [min(r["response_tokens"], 1000) if survivor.get(k, k) in trimmed else r["response_tokens"]
             for r in raw for k in [f"{r['server']}/{r['tool']}"]]
    assert sample.after_scenario.response_tokens.expected() == pytest.approx(sum(after) / len(after))


def test_per_task_savings_add_up_to_each_stage(sample):
    s = sample.stages.set_index("stage")["input_tokens_per_task"]
    for kind, (a, b) in {"delete": ("before", "delete"), "merge": ("delete", "merge"), "trim": ("merge", "trim"),
                         "gate": ("trim", "after")}.items():
        total = sum(x.tokens_per_task for x in sample.actions if x.kind == kind)
        assert total == pytest.approx(s[a] - s[b])
    assert s["before"] - s["after"] == pytest.approx(sum(x.tokens_per_task for x in sample.actions))


def test_assumptions_are_shown(sample):
    a = sample.assumptions
    assert a["accuracy curve"]["points"][0] == {"visible": 6.0, "wrong": 0.04, "success": 0.91}
    assert a["model"] == "claude-sonnet-4-5" and a["steps per task (before wrong calls)"] == 9
    assert "mean of the log" in a["tool result tokens per call"]


# --- merge_tools, worked by hand --------------------------------------------------------------------

def test_merge_tools_unions_parameters_and_intersects_required():
    a = Tool("get_incident", "Gets an incident.", {"type": "object", "properties": {"id": {"type": "string"}},
                                                   "required": ["id"]})
    b = Tool("get_incident_details", "Gets incident details, with its timeline and owner.",
             {"type": "object", "properties": {"id": {"type": "integer"}, "verbose": {"type": "boolean"}},
              "required": ["id", "verbose"], "additionalProperties": False})
    m = merge_tools([a, b], name="get_incident")
    assert m.name == "get_incident" and m.description == b.description
    assert m.input_schema == {"type": "object", "properties": {"id": {"type": "string"}, "verbose": {"type": "boolean"}},
                              "required": ["id"]}
    with pytest.raises(InputError):
        merge_tools([])


# --- small registries built in the test -------------------------------------------------------------

def small():
    s = {"type": "object", "properties": {"q": {"type": "string", "description": "query"}}, "required": ["q"]}
    return Registry.from_tools([
        Tool("search_logs", "Search application logs by text over a time window.", s, server="obs"),
        Tool("list_alerts", "List firing alerts, newest first.", s, server="obs"),
        Tool("get_active_alerts", "Get active alerts.", s, server="obs"),
        Tool("restart_service", "Restart a service in batches.", s, server="ops"),
        Tool("get_owner", "Gets owner.", s, server="ops"),
    ])


def calls(*tools, tokens=100, **extra):
    return [{"tool": t, "response_tokens": tokens, **extra} for t in tools]


def test_plan_without_usage_or_phases_only_merges():
    p = plan(small(), scenario=Scenario(steps=5))
    assert [a.kind for a in p.actions] == ["merge"]
    assert p.after_scenario.strategy == "all"
    assert {t.name for t in p.after} == {"search_logs", "list_alerts", "restart_service", "get_owner"}


def test_trim_applies_real_strategies_to_logged_payloads():
    items = [{"id": i, "title": f"alert {i}", "labels": {"team": "core", "env": "prod"}, "body": "x " * 50}
             for i in range(30)]
    log = load_usage([{"tool": "search_logs", "response": items}] * 4 + calls("list_alerts", tokens=50))
    p = plan(small(), usage=log, merge=False, delete_unused=False, window_days=None,
             trim={"trim_when_mean_over": 100, "keep": ["[].id", "[].title"], "cap_tokens": 100000})
    [t] = [a for a in p.actions if a.kind == "trim"]
    enc = get_encoding("o200k_base")
    full = len(enc.encode_ordinary(compact(items)))
    kept = len(enc.encode_ordinary(compact([{"id": i["id"], "title": i["title"]} for i in items])))
    assert f"mean {full:,} -> {kept:,}" in t.detail
    assert p.after_scenario.response_tokens.expected() == pytest.approx((4 * kept + 50) / 5)


def test_unphased_tools_stay_visible_or_are_hidden():
    phases = [Phase("look", tools=("search_*", "list_*"), steps=2), Phase("fix", tools=("restart_*",), steps=1)]
    log = load_usage(calls("search_logs", "list_alerts", "get_active_alerts", "restart_service", "get_owner"))
    keep = plan(small(), usage=log, phases=phases, scenario=Scenario(steps=3), merge=False, trim=False)
    hide = plan(small(), usage=log, phases=phases, scenario=Scenario(steps=3), merge=False, trim=False,
                unphased="hide")
    # get_active_alerts and get_owner match no phase: visible everywhere, or nowhere
    assert any("match no phase" in w for w in keep.warnings)
    mean = lambda p: p.table.set_index("metric").loc["mean tools visible", "after"]  # noqa: E731
    assert mean(keep) == pytest.approx((2 * 4 + 1 * 3) / 3)
    assert mean(hide) == pytest.approx((2 * 2 + 1 * 1) / 3)


def test_bad_input():
    with pytest.raises(InputError):
        plan(small(), unphased="sometimes", phases=[Phase("x", tools=("*",))])
    with pytest.raises(InputError):
        plan(small(), trim={"cap": 3})
    with pytest.raises(InputError, match="no such usage log"):
        plan(small(), usage="/nonexistent.jsonl")


def test_empty_registry_and_nothing_left():
    p = plan(Registry())
    assert len(p.after) == 0 and p.actions == []
    reg = Registry.from_tools([Tool("list_x", "List x.", {"type": "object"})])
    p = plan(reg, usage=[{"tool": "other"}], phases=[Phase("a", tools=("list_*",))])
    assert [a.kind for a in p.actions] == ["delete"] and len(p.after) == 0
    assert any("phase gating is skipped" in w for w in p.warnings)
    assert any("other, which the registry does not have" in w for w in p.warnings)
    assert any("window is ignored" in w for w in p.warnings)
