"""An eval of the ops sample whose confusions are known by construction: the fake model answers each
query as `ANSWERS` says (a tool name, or None for no call), so every count the audit's confused-pair
rule and the report's "What the model picks" print is known by hand (written in the tests)."""

from __future__ import annotations

import json

from conftest import ROOT
from fake_llm import Move, serve

from toolsurvey.cli import main

REG = str(ROOT / "data" / "registries" / "ops_assistant.json")

# id -> (query, gold keys, the tool name the fake model calls or None). Planted:
# - metrics/query_metrics <-> metrics/query_logs: 2 one way (p1, p2), 1 back (<b>p3</b>): 3 in all;
# - metrics/list_alerts <-> metrics/get_active_alerts: 1 each way (p11, p12), a pair the near-duplicate
#   rule flags;
# - tickets/close_ticket -> tickets/update_ticket once (p4);
# - incidents/page_oncall skipped twice (p5, p6), deploys/restart_service once (p7);
# - right: p8, p10; rightly no call: p9. A query id with markup (<b>p3</b>) tests the escaping.
ANSWERS = {
    "p1": ("what's the p99 latency of the orders API?", ["metrics/query_metrics"], "query_logs"),
    "p2": ("run this PromQL: rate(http_requests_total[5m])", ["metrics/query_metrics"], "query_logs"),
    "<b>p3</b>": ("grep the logs for timeout errors", ["metrics/query_logs"], "query_metrics"),
    "p4": ("close OPS-812, it's fixed", ["tickets/close_ticket"], "update_ticket"),
    "p5": ("wake up whoever is on call for the database", ["incidents/page_oncall"], None),
    "p6": ("page the storage on-call <b>now</b>", ["incidents/page_oncall"], None),
    "p7": ("restart the notification pods", ["deploys/restart_service"], None),
    "p8": ("is deploy 4411 finished yet?", ["deploys/get_deploy_status"], "get_deploy_status"),
    "p9": ("thanks, that's all", [], None),
    "p10": ("look up the Slack profile of maria", ["comms/get_user"], "get_user"),
    "p11": ("what alerts are firing right now?", ["metrics/list_alerts"], "get_active_alerts"),
    "p12": ("which alerts are active?", ["metrics/get_active_alerts"], "list_alerts"),
}


def decide(query: str, names: list[str], tools: list) -> Move:
    """ANSWERS' call when its tool is offered (always, with every tool in view), else no call."""
    name = next(a for q, _, a in ANSWERS.values() if q == query)
    return Move([(name, {})]) if name in names else Move(text="nothing to call")


def write_eval(monkeypatch, tmp_path, *args) -> tuple:
    """(the --format json file, the --log file) of an eval of ANSWERS' queries on the ops sample;
    `args` are more eval options (--visible ...)."""
    serve(monkeypatch, tmp_path, decide)
    queries = tmp_path / "queries.jsonl"
    queries.write_text("".join(json.dumps({"id": i, "query": q, "gold": g}) + "\n" for i, (q, g, _) in ANSWERS.items()))
    out, log = tmp_path / "eval.json", tmp_path / "eval.jsonl"
    assert main(["eval", REG, "--queries", str(queries), "--model", "local-test-model", "--base-url",
                 "http://llm.test/v1", "--format", "json", "-o", str(out), "--log", str(log), "-q", *args]) == 0
    return out, log
