"""The consolidation plan: its before/after figures are the simulation's, and each action is checked
against figures worked out independently from the registry and the raw log."""

import dataclasses
import json
import re
import warnings

import pytest
from _oracle import compact
from conftest import DATA

import toolsurvey as ts
from toolsurvey.advice.merging import merge_tools
from toolsurvey.advice.plan.stages import plan
from toolsurvey.core.registry import Registry, Tool
from toolsurvey.core.tokens import get_encoding
from toolsurvey.errors import InputError
from toolsurvey.inputs.sources import load_usage
from toolsurvey.model.scenario import Phase, Scenario
from toolsurvey.model.simulate import simulate

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


def test_before_is_the_scenarios_own_gating_and_adds_no_gate_stage(sample):
    # The sample scenario already gates by the same phases: every stage keeps that gating, until the
    # last stage defers the tools behind Anthropic's tool search (docs/audit.md, stage 5).
    assert sample.before_scenario.strategy == "phases" == sample.runs["gate"].scenario.strategy
    assert sample.after_scenario.strategy == "tool_search" and sample.after_scenario.search == "anthropic-bm25"
    assert not [a for a in sample.actions if a.kind == "gate"]
    assert any("already gates by phase" in w for w in sample.warnings)
    base = ts.load_scenario(SCENARIO)
    for field in ("model", "steps", "caching", "system_prompt_tokens", "tasks_per_day", "call_tokens", "phases"):
        assert getattr(sample.before_scenario, field) == getattr(base, field) == getattr(sample.after_scenario, field)


def test_report_plan_and_simulate_share_one_baseline(raw):
    # Worked out apart from the library: the scenario file as written, with the log's mean result.
    mean = sum(r["response_tokens"] for r in raw) / len(raw)
    direct = sim(ts.load(REG), dataclasses.replace(ts.load_scenario(SCENARIO), response_tokens=mean))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = ts.report(REG, usage=LOG, scenario=SCENARIO)
        p = plan(ts.load(REG), usage=LOG, scenario=SCENARIO)
    before = p.stages.set_index("stage").loc["before", "cost_per_completed_task"]
    head = rep.headlines["cost_per_completed_task"].value
    assert head == pytest.approx(before, rel=0.005) and head == pytest.approx(direct["cost_per_completed_task"], rel=0.005)
    assert rep.headlines["cost_per_month"].value == pytest.approx(direct["cost_per_month"], rel=0.005)
    # and every later stage is a change from it, here each one a saving
    months = [p.runs[k].summary["cost_per_month"] for k in ("before", "delete", "merge", "trim", "after")]
    assert all(b >= a for b, a in zip(months, months[1:], strict=False)) and months[-1] < months[0]


def test_readme_command_tells_one_story(cli, tmp_path):
    code, out, _ = cli("report", REG, "--usage", LOG, "--scenario", SCENARIO, "-o", tmp_path / "r.html")
    assert code == 0
    month = re.search(r"\$([\d,]+)\s+per month", out).group(1)
    today, after = re.search(r"from today's \$([\d,]+) to \$([\d,]+) per month", out).groups()
    assert today == month and int(after.replace(",", "")) < int(today.replace(",", ""))
    code, out, _ = cli("plan", REG, "--usage", LOG, "--scenario", SCENARIO, "--format", "json")
    before = json.loads(out)["stages"][0]
    assert f"{before['cost_per_completed_task'] * 150_000:,.0f}" == month
    code, out, _ = cli("simulate", REG, "--scenario", SCENARIO, "--usage", LOG, "--format", "json")
    assert f"{json.loads(out)['rows'][0]['cost_per_month']:,.0f}" == month


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


def test_delete_saving_is_the_tools_tokens_on_the_requests_that_show_it(sample):
    # The phases file's globs, by hand: 5 requests investigate, 3 act, the rest (to the expected
    # request count) escalate; a tool saves its compact-JSON tokens on the requests of its phases.
    import fnmatch

    n = sample.runs["before"].summary["expected_requests"]
    phases = {"investigate": (["search_*", "query_*", "list_*", "describe_*"], 5 / n),
              "act": (["create_*", "update_*", "restart_*", "rollback_*"], 3 / n),
              "escalate": (["page_oncall", "create_incident", "notify_channel"], (n - 8) / n)}
    enc = get_encoding("o200k_base")
    tools = {t.key: t for t in ts.load(REG)}
    deletes = [a for a in sample.actions if a.kind == "delete"]
    for a in deletes:
        t = tools[a.target]
        share = sum(w for globs, w in phases.values() if any(fnmatch.fnmatchcase(t.name, g) for g in globs))
        tokens = len(enc.encode_ordinary(compact({"name": t.name, "description": t.description,
                                                  "inputSchema": t.input_schema})))
        assert a.tokens_per_request == pytest.approx(tokens * share)
    assert sum(a.tokens_per_request > 0 for a in deletes) == 3  # 16 of the 19 are never shown anyway


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
                         "gate": ("trim", "gate"), "defer": ("gate", "after")}.items():
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
    p = plan(small(), usage=log, stages=("trim", "defer"), window_days=None,
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
    keep = plan(small(), usage=log, phases=phases, scenario=Scenario(steps=3), stages=("delete", "defer"))
    hide = plan(small(), usage=log, phases=phases, scenario=Scenario(steps=3), stages=("delete", "defer"),
                unphased="hide")
    # get_active_alerts and get_owner match no phase: visible everywhere, or nowhere
    assert any("match no phase" in w for w in keep.warnings)
    mean = lambda p: p.table.set_index("metric").loc["mean tools visible", "after"]
    assert mean(keep) == pytest.approx((2 * 4 + 1 * 3) / 3)
    assert mean(hide) == pytest.approx((2 * 2 + 1 * 1) / 3)


def test_bad_input():
    with pytest.raises(InputError):
        plan(small(), unphased="sometimes", phases=[Phase("x", tools=("*",))])
    with pytest.raises(InputError):
        plan(small(), trim={"cap": 3})
    with pytest.raises(InputError, match="no such usage log"):
        plan(small(), usage="/nonexistent.jsonl")


def test_empty_registry_has_no_actions():
    p = plan(Registry())
    assert len(p.after) == 0 and p.actions == []


def test_refuses_to_delete_every_tool(cli, tmp_path):
    reg = Registry.from_tools([Tool("list_x", "List x.", {"type": "object"}), Tool("get_y", "Get y.", {"type": "object"})])
    with pytest.raises(InputError, match="would delete every tool"):
        plan(reg, usage=[{"tool": "other"}], phases=[Phase("a", tools=("list_*",))])
    p = plan(reg, usage=[{"tool": "other"}, {"tool": "get_y"}])
    assert [a.target for a in p.actions if a.kind == "delete"] == ["default/list_x"]
    assert any("other, which the registry does not have" in w for w in p.warnings)
    assert any("window is ignored" in w for w in p.warnings)
    (tmp_path / "reg.json").write_text(json.dumps([t.to_mcp() for t in reg]))
    (tmp_path / "log.jsonl").write_text(json.dumps({"tool": "other", "timestamp": "2026-01-01T00:00:00Z"}) + "\n")
    code, out, err = cli("plan", tmp_path / "reg.json", "--usage", tmp_path / "log.jsonl")
    assert code == 2 and "would delete every tool" in err and "Traceback" not in err
    code, out, err = cli("plan", tmp_path / "reg.json", "--usage", tmp_path / "log.jsonl", "--no-delete")
    assert code == 0


def test_a_window_of_zero_days_is_an_error(cli, tmp_path):
    with pytest.raises(InputError, match="window_days must be"):
        plan(small(), usage=calls("search_logs"), window_days=0)
    code, out, err = cli("plan", REG, "--usage", LOG, "--window-days", "0")
    assert code == 2 and "expected a number of days > 0 or 'all'" in err
    # 'all' counts the whole log: the sample's log covers 90 days, so the same 19 tools go
    code, out, err = cli("plan", REG, "--usage", LOG, "--window-days", "all", "--format", "json", "--show", "actions")
    assert code == 0 and sum(a["kind"] == "delete" for a in json.loads(out)) == 19


# --- several vendors' servers loaded together -------------------------------------------------------

def vendor_registry():
    """Four vendors whose tools overlap the way real MCP servers do: the same user-profile lookup on
    two of them, issue tools on a code host and a tracker, search everywhere, and one vendor with a
    near-duplicate pair of its own."""
    def obj(**props):
        return {"type": "object", "properties": {k: {"type": "string", "description": d} for k, d in props.items()},
                "required": list(props)[:1]}

    # two servers of one product (a second Slack app): a merge across them is a real option when both are
    # yours; tools of different products (Slack vs Jira) are never near-duplicates (docs/audit.md)
    profile = "Get a user's profile: display name, email, time zone and status, by user id."
    return Registry.from_tools([
        Tool("get_user_profile", profile, obj(user_id="the user's id"), server="slack"),
        Tool("get_user_profile", profile, obj(user_id="the user's account id"), server="slack-admin"),
        Tool("slack_post_message", "Post a message to a Slack channel; returns its timestamp.",
             obj(channel="channel id", text="message text"), server="slack"),
        Tool("list_channels", "List the public channels of the Slack workspace, newest first.", obj(limit="max"), server="slack"),
        Tool("create_issue", "Create an issue in a GitHub repository with a title, body and labels.",
             obj(repo="owner/name", title="issue title", body="markdown body"), server="github"),
        Tool("jira_create_issue", "Create a Jira issue in a project with a summary, description and type.",
             obj(project="project key", summary="issue summary", description="issue description"), server="atlassian"),
        Tool("get_issue", "Get one GitHub issue by repository and number: title, body, labels, state.",
             obj(repo="owner/name", number="issue number"), server="github"),
        Tool("get_issue_details", "Get the details of a GitHub issue by repository and number: title, body, "
             "labels, state and comments.", obj(repo="owner/name", number="issue number"), server="github"),
        Tool("search_code", "Search code across GitHub repositories with the code search syntax.", obj(q="query"),
             server="github"),
        Tool("search_pages", "Search Notion pages and databases by title and content.", obj(query="search text"),
             server="notion"),
        Tool("search", "Search Confluence and Jira content with CQL or JQL.", obj(query="CQL or JQL"), server="atlassian"),
        Tool("get_page", "Get a Notion page's properties and blocks by page id.", obj(page_id="page id"), server="notion"),
        Tool("alerting_rules_read", "Alerting rules of a Grafana instance: name, condition, folder and labels.",
             obj(uid="rule uid"), server="grafana"),
        Tool("alerting_rules_write", "Alerting rules of a Grafana instance: name, condition, folder and labels.",
             obj(uid="rule uid", rule="rule JSON"), server="grafana"),
    ])


def test_default_plan_on_several_vendors_merges_only_within_a_server(tmp_path):
    reg = vendor_registry()
    used = ["slack/get_user_profile", "slack-admin/get_user_profile", "slack/slack_post_message",
            "github/create_issue", "atlassian/jira_create_issue", "github/get_issue", "github/get_issue_details",
            "notion/search_pages", "atlassian/search", "notion/get_page", "grafana/alerting_rules_read",
            "grafana/alerting_rules_write"]
    log = [{"server": k.split("/")[0], "tool": k.split("/")[1], "response_tokens": 400} for k in used * 3]
    p = plan(reg, usage=log, scenario=Scenario(steps=5), window_days=None)
    merges = [a for a in p.actions if a.kind == "merge"]
    assert [set(a.tools) for a in merges] == [{"github/get_issue", "github/get_issue_details"}]
    assert {a.kind for a in p.actions} <= {"delete", "merge", "trim", "gate"}
    assert {a.target for a in p.actions if a.kind == "delete"} == {"slack/list_channels", "github/search_code"}
    # the saving is the deletes plus the one merge, exactly (every tool visible on every request)
    tools = {t.key: t for t in reg}
    enc = get_encoding("o200k_base")
    tok = lambda t: len(enc.encode_ordinary(compact({"name": t.name, "description": t.description,
                                                     "inputSchema": t.input_schema})))
    merged = merge_tools([tools["github/get_issue"], tools["github/get_issue_details"]], name=merges[0].target.split("/")[1])
    expected = (tok(tools["slack/list_channels"]) + tok(tools["github/search_code"])
                + tok(tools["github/get_issue"]) + tok(tools["github/get_issue_details"]) - tok(merged))
    s = p.stages.set_index("stage")["tool_tokens_per_request"]
    assert s["before"] - s["after"] == pytest.approx(expected)
    # cross-vendor overlap is an audit finding with its own fix, never a merge
    f = ts.audit(reg, rules=["overlap*"])
    across = f[f["rule"] == "overlap-across-servers"]
    assert {frozenset((a, b)) for a, b in zip(across["server"], across["other"].str.split("/").str[0], strict=True)} \
        >= {frozenset(("slack", "slack-admin"))}
    assert across["fix"].str.startswith("namespace them").all() and (across["tokens"] == 0).all()
    assert not (f["tool"].str.startswith("alerting_rules")).any()  # read and write: never paired
    # naming the servers you own lets the plan merge across them
    owned = plan(reg, usage=log, scenario=Scenario(steps=5), window_days=None, own="slack,slack-admin,github")
    pairs = [set(a.tools) for a in owned.actions if a.kind == "merge"]
    assert {"slack/get_user_profile", "slack-admin/get_user_profile"} in pairs
    assert owned.assumptions["servers owned"] == ["github", "slack", "slack-admin"]


def test_own_on_the_command_line(cli, tmp_path):
    reg = vendor_registry()
    (tmp_path / "reg.json").write_text(json.dumps({"servers": {
        s: {"tools": [t.to_mcp() for t in reg if t.server == s]} for s in reg.servers}}))
    code, out, err = cli("plan", tmp_path / "reg.json", "--format", "json", "--show", "actions")
    assert code == 0 and all(len({k.split("/")[0] for k in a["tools"].split(", ")}) == 1
                             for a in json.loads(out) if a["kind"] == "merge")
    code, out, err = cli("plan", tmp_path / "reg.json", "--own", "slack,slack-admin", "--format", "json", "--show", "actions")
    assert code == 0 and any(a["tools"] == "slack/get_user_profile, slack-admin/get_user_profile"
                             or a["tools"] == "slack-admin/get_user_profile, slack/get_user_profile" for a in json.loads(out))
    code, out, err = cli("plan", tmp_path / "reg.json", "--own", "slack,nosuch")
    assert code == 2 and "nosuch" in err and "Traceback" not in err
    code, out, err = cli("audit", tmp_path / "reg.json", "--own", "slack,slack-admin", "--rules", "overlap*", "--format", "json")
    assert code == 0 and "slack" in {r["server"] for r in json.loads(out) if r["rule"] == "overlap"}


def test_layers_run_one_way():
    # the modules the audit, the plan and the report share sit below them; the audit and the plan
    # import neither each other nor anything above them
    import ast
    import importlib.util
    import pkgutil

    import toolsurvey.advice.audit as audit_pkg
    import toolsurvey.advice.plan as plan_pkg

    def imports(module):
        tree = ast.parse(open(importlib.util.find_spec(module).origin, encoding="utf-8").read())
        package = module.rsplit(".", 1)[0]
        return {importlib.util.resolve_name("." * n.level + (n.module or ""), package) if n.level else n.module
                for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}

    def modules(pkg):
        return [f"{pkg.__name__}.{m.name}" for m in pkgutil.iter_modules(pkg.__path__)]

    above = ("toolsurvey.advice.audit", "toolsurvey.advice.plan", "toolsurvey.present")
    for m in ("thresholds", "ownership", "merging", "visibility", "pricing", "baseline"):
        assert not {i for i in imports(f"toolsurvey.advice.{m}") if i.startswith(above)}, m
    assert modules(audit_pkg) and modules(plan_pkg)
    for m in modules(audit_pkg):
        assert not {i for i in imports(m) if i.startswith(("toolsurvey.advice.plan", "toolsurvey.present"))}, m
    for m in modules(plan_pkg):
        assert not {i for i in imports(m) if i.startswith(("toolsurvey.advice.audit", "toolsurvey.present"))}, m


def test_a_gate_stage_that_widens_the_scenarios_gating_is_a_cost():
    # The scenario shows 1 tool per request; the phases given show 4: the gate stage adds tokens.
    narrow = Scenario(steps=2, accuracy=False, strategy="phases", phases=[Phase("a", tools=("search_*",), steps=2)])
    wide = [Phase("look", tools=("search_*", "list_*", "get_*", "restart_*"), steps=2)]
    p = plan(small(), scenario=narrow, phases=wide, stages=("delete", "trim", "defer"))
    [gate] = [a for a in p.actions if a.kind == "gate"]
    tools = {t.key: t for t in small()}
    enc = get_encoding("o200k_base")
    tok = lambda k: len(enc.encode_ordinary(compact({"name": tools[k].name, "description": tools[k].description,
                                                     "inputSchema": tools[k].input_schema})))
    assert gate.tokens_per_request == pytest.approx(-sum(tok(k) for k in tools if k != "obs/search_logs"))
    s = p.stages.set_index("stage")["cost_per_task"]
    assert s["after"] > s["trim"] and gate.tokens_per_task < 0


def test_docs_quote_the_samples_plan_as_it_is(sample):
    from conftest import ROOT

    text = " ".join((ROOT / "docs" / "audit.md").read_text("utf-8").split())
    t = sample.table.set_index("metric")
    kinds = [a.kind for a in sample.actions]
    row = lambda m, f: f"{f(t.loc[m, 'before'])} -> {f(t.loc[m, 'after'])}"
    for quoted in [row("tools registered", lambda v: f"{v:.0f}") + " tools",
                   f"{kinds.count('delete')} deletes, {kinds.count('merge')} merges",
                   f"{kinds.count('trim')} trims",
                   "tool definitions per request " + row("tool definitions per request", lambda v: f"{v:,.0f}"),
                   "cost per completed task " + row("cost per completed task", lambda v: f"${v:.3f}"),
                   "per month " + row("cost per month", lambda v: f"${v:,.0f}"),
                   f"results of {sample.before_scenario.response_tokens.expected():,.0f} tokens"]:
        assert quoted in text


def test_a_phase_of_the_scenario_keeps_its_last_tool():
    sc = Scenario(steps=3, strategy="phases", phases=[Phase("look", tools=("search_*", "list_*"), steps=2),
                                                      Phase("fix", tools=("restart_*",), steps=1)])
    log = calls("search_logs", "list_alerts", "get_active_alerts", "get_owner")  # restart_service never called
    p = plan(small(), usage=log, scenario=sc, window_days=None, stages=("delete", "trim", "defer"))
    assert "ops/restart_service" in {t.key for t in p.after}
    assert any("only tool(s) of the scenario's phase 'fix'" in w for w in p.warnings)


def test_default_plan_on_six_real_vendor_servers_merges_nothing_across_them():
    # issue 12: GitHub, Atlassian, Notion, Slack, Sentry and Grafana loaded together (their published
    # tool lists; GitHub's from ../shared/data/tools): nobody can merge tools that live on another vendor's server
    from _public_data import REAL_TOOLS
    from conftest import shared

    files = [shared("tools", "github.json")] + [REAL_TOOLS / f"{n}.json" for n in ("atlassian", "notion", "slack",
                                                                                  "sentry", "grafana")]
    reg = Registry.from_tools([t for f in files for t in ts.load(f).tools])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = plan(reg)
    merges = [a for a in p.actions if a.kind == "merge"]
    assert all(len({k.split("/")[0] for k in a.tools}) == 1 for a in merges)
