"""The audit on the bundled samples: every defect planted in ops_assistant (data/registries/README.md)
is found, and the clean support_desk registry has no findings at all."""

import pytest
from conftest import DATA

import toolsurvey as ts
from toolsurvey.advice.audit.run import audit


@pytest.fixture(scope="module")
def ops():
    return audit(ts.load(DATA / "registries" / "ops_assistant.json"))


def tools_of(findings, rule) -> set[str]:
    return set(findings.loc[findings["rule"] == rule, "tool"])


def keys_of(findings, rule) -> set[str]:
    f = findings[findings["rule"] == rule]
    return {f"{s}/{t}" for s, t in zip(f["server"], f["tool"], strict=True)}


def test_clean_registry_has_no_findings():
    f = audit(ts.load(DATA / "registries" / "support_desk.json"))
    assert f.empty, f[["rule", "tool", "evidence"]].to_string()


SHORT = {
    "catalog": ["search", "get_service", "fetch_service_details", "list_services", "list_all_services_for_team",
                "get_owner"],
    "metrics": ["query_metric", "get_metrics_data", "list_dashboards", "get_dashboard", "get_active_alerts"],
    "deploys": ["get_deploy_history", "trigger_deployment", "rollback_service", "get_deploy_status",
                "release_calendar"],
    "incidents": ["open_incident", "get_incident", "get_incident_details", "acknowledge_alert"],
    "tickets": ["search", "create_ticket", "create_jira_issue", "get_ticket", "close_ticket", "list_my_tickets"],
    "comms": ["send_slack_message", "list_channels", "get_user"],
    "legacy_admin": ["get_user_data"],
}
RESTATED = {"catalog/search", "catalog/get_service", "catalog/list_services", "catalog/get_owner",
            "metrics/query_metric", "metrics/get_metrics_data", "metrics/list_dashboards",
            "deploys/get_deploy_status", "incidents/get_incident", "incidents/get_incident_details",
            "tickets/get_ticket", "tickets/close_ticket", "comms/list_channels", "comms/get_user",
            "legacy_admin/get_user_data"}
PAIRS = [("get_service", "fetch_service_details"), ("list_services", "list_all_services_for_team"),
         ("query_metrics", "query_metric"), ("list_alerts", "get_active_alerts"),
         ("list_deploys", "get_deploy_history"), ("create_deploy", "trigger_deployment"),
         ("rollback_deploy", "rollback_service"), ("create_incident", "open_incident"),
         ("get_incident", "get_incident_details"), ("create_ticket", "create_jira_issue"),
         ("notify_channel", "send_slack_message")]
NO_REQUIRED = {"catalog/search", "catalog/list_services", "catalog/get_owner", "metrics/query_metric",
               "metrics/get_metrics_data", "metrics/list_dashboards", "metrics/list_alerts",
               "metrics/get_active_alerts", "metrics/query_logs", "deploys/trigger_deployment",
               "deploys/release_calendar", "incidents/list_incidents", "tickets/search", "tickets/list_my_tickets",
               "comms/list_channels", "comms/get_user", "legacy_admin/get_api_v1_users",
               "legacy_admin/get_user_data", "legacy_admin/get_api_v1_audit_log",
               "legacy_admin/get_api_v1_feature_flags"}
LEGACY = {"get_api_v1_users", "post_api_v1_users", "get_api_v1_users_id", "put_api_v1_users_id",
          "delete_api_v1_users_id", "post_api_v1_teams_id_members", "get_api_v1_audit_log",
          "get_api_v1_feature_flags", "patch_api_v1_feature_flags_key", "post_api_v1_cache_purge"}


def test_every_short_description(ops):
    assert keys_of(ops, "description-short") == {f"{s}/{t}" for s, ts_ in SHORT.items() for t in ts_}


def test_every_restated_name(ops):
    # The README lists 15; the audit also finds 7 more that restate their name just as plainly
    # ("Get active alerts." for get_active_alerts), which the test names so a change is visible.
    extra = {"deploys/release_calendar", "tickets/search", "metrics/get_active_alerts",
             "comms/send_slack_message", "deploys/get_deploy_history", "catalog/fetch_service_details",
             "catalog/list_all_services_for_team"}
    assert keys_of(ops, "description-restates-name") == RESTATED | extra


def pairs_of(f):
    found = {}
    for server, tool, other in zip(f["server"], f["tool"], f["other"], strict=True):
        found[frozenset((tool, other.split("/", 1)[1]))] = frozenset((server, other.split("/", 1)[0]))
    return found


# what data/registries/README.md calls similar by design, or a reader can confuse
BY_DESIGN = {frozenset(p) for p in [("search", "search"), ("search", "search_tickets"), ("search", "query_metric"),
                                    ("query_metric", "search"), ("get_user", "get_user_data"),
                                    ("get_user", "get_api_v1_users_id"), ("get_user_data", "get_api_v1_users_id"),
                                    ("get_api_v1_users", "get_user"), ("get_api_v1_users", "get_api_v1_users_id"),
                                    ("list_channels", "list_channel_members"), ("get_metrics_data", "get_user_data")]}


def test_the_tfidf_rule_finds_every_near_duplicate_pair():
    # The 11 planted pairs sit within one server each: mergeable overlaps.
    ops = audit(ts.load(DATA / "registries" / "ops_assistant.json"), rules=["overlap*"],
                config={"similarity": {"method": "tfidf", "threshold": 0.55}})
    within = pairs_of(ops[ops["rule"] == "overlap"])
    across = pairs_of(ops[ops["rule"] == "overlap-across-servers"])
    assert {frozenset(p) for p in PAIRS} <= set(within)
    assert all(len(servers) == 1 for servers in within.values())
    assert all(len(servers) == 2 for servers in across.values())
    # and the extras are the ones the README calls similar by design, or confusable on reading
    assert (set(within) | set(across)) - {frozenset(p) for p in PAIRS} <= BY_DESIGN


def test_the_default_method_pairs_only_planted_or_similar_by_design_tools(ops):
    # The default (scored) method is precise on real servers; on the sample it finds fewer of the
    # planted pairs, whose tools were given different parameter names on purpose (docs/audit.md).
    found = set(pairs_of(ops[ops["rule"].isin(["overlap", "overlap-across-servers"])]))
    planted = {frozenset(p) for p in PAIRS}
    assert found & planted and found <= planted | BY_DESIGN


def test_overlap_is_charged_once_per_merged_cluster(ops):
    # A cluster the plan merges carries its saving on one pair; the others carry none.
    f = ops[ops["rule"] == "overlap"]
    charged = f[f["tokens"] != 0]
    assert charged["group"].is_unique and (charged["tokens"] > 0).all()
    assert (ops.loc[ops["rule"] == "overlap-across-servers", "tokens"] == 0).all()


def test_poisoning_and_hidden_text(ops):
    assert keys_of(ops, "poisoning-instructions") == {"incidents/summarize_postmortem"}
    assert keys_of(ops, "poisoning-secrets") == {"incidents/summarize_postmortem"}
    assert keys_of(ops, "poisoning-hidden-text") == {"comms/list_channel_members"}
    assert "U+200B" in ops.loc[ops["rule"] == "poisoning-hidden-text", "evidence"].iloc[0]
    security = ops[ops["impact"] == "security"]
    assert set(security["severity"]) == {"poisoning"}  # planted defects, nothing merely suspicious


def test_names(ops):
    assert keys_of(ops, "name-long") == {"deploys/get_deployment_pipeline_status_for_release_train"}
    assert keys_of(ops, "name-not-verb-object") == {"deploys/release_calendar"}
    assert keys_of(ops, "name-generic") == {"catalog/search", "tickets/search"}
    assert keys_of(ops, "name-collision") == {"catalog/search", "tickets/search"}
    assert tools_of(ops, "name-mirrors-endpoint") == LEGACY


def test_schemas(ops):
    assert keys_of(ops, "schema-ref") == {"catalog/describe_service_dependencies", "incidents/get_incident_timeline"}
    assert keys_of(ops, "schema-root-combinator") == {"metrics/query_logs"}
    assert keys_of(ops, "schema-dollar-schema") == ({"catalog/describe_service_dependencies", "deploys/create_deploy"}
                                                    | {f"legacy_admin/{t}" for t in LEGACY | {"get_user_data"}})
    assert keys_of(ops, "param-no-type") == {"catalog/get_owner", "tickets/create_jira_issue", "tickets/create_ticket"}
    assert keys_of(ops, "schema-no-required") == NO_REQUIRED
    assert keys_of(ops, "param-enum-in-prose") == {"catalog/update_service_metadata", "metrics/query_logs",
                                                   "incidents/update_incident"}
    assert keys_of(ops, "output-schema-heavy") == {"metrics/describe_slo"}
    undescribed = ops[ops["rule"] == "param-no-description"].set_index("tool")["evidence"]
    for tool, param in [("trigger_deployment", "service"), ("get_user_data", "user_id"),
                        ("get_api_v1_users", "team_id")]:
        assert param in undescribed[tool]
    assert "q" in undescribed.loc["search"].iloc[0] if hasattr(undescribed.loc["search"], "iloc") else True


def test_annotations(ops):
    f = keys_of(ops, "annotations-missing")
    assert len(f) == 50
    assert {"legacy_admin/delete_api_v1_users_id", "legacy_admin/put_api_v1_users_id"} <= f
    assert not f & {"deploys/rollback_deploy", "deploys/restart_service", "comms/notify_channel"}


def test_docs_quote_the_samples_audit_totals(ops):
    from conftest import ROOT

    text = " ".join((ROOT / "docs" / "audit.md").read_text("utf-8").split())
    saving, cost = ops.loc[ops["tokens"] > 0, "tokens"].sum(), -ops.loc[ops["tokens"] < 0, "tokens"].sum()
    assert f"save {saving:,} tokens per request and the ones that add text cost {cost:,}" in text
