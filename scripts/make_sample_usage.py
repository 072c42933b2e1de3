"""Write data/usage/ops_assistant.jsonl: 90 days of tool calls of the sample operations assistant.

Deterministic (a fixed seed, no clock): running it again writes the same bytes. The shape follows
seed 001's worked example: tasks of several calls that investigate, then act, then sometimes
escalate; 19 of the 63 tools are never called; a few are called rarely; a tool that fails is often
called again with identical arguments (the repeated-identical-call metric); results are sized per
kind of tool. Every record: timestamp, session (the task), server, tool, arguments,
response_tokens, outcome.

    .venv/bin/python scripts/make_sample_usage.py [--out PATH] [--tasks N] [--seed N]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from toolsurvey.inputs.formats import load  # noqa: E402

# Never called in the 90 days: the endpoint-shaped legacy tools, one member of five near-duplicate
# pairs, tools nobody remembers, and the poisoned one.
NEVER = {
    "legacy_admin": ["post_api_v1_users", "put_api_v1_users_id", "delete_api_v1_users_id",
                     "post_api_v1_teams_id_members", "get_api_v1_audit_log", "get_api_v1_feature_flags",
                     "patch_api_v1_feature_flags_key", "post_api_v1_cache_purge"],
    "deploys": ["release_calendar", "get_deployment_pipeline_status_for_release_train", "trigger_deployment",
                "rollback_service"],
    "catalog": ["list_all_services_for_team", "get_owner"],
    "metrics": ["get_metrics_data", "get_dashboard"],
    "incidents": ["summarize_postmortem"],
    "tickets": ["create_jira_issue"],
    "comms": ["send_slack_message"],
}
RARE = {"comms/list_channel_members": 2, "metrics/describe_slo": 3, "legacy_admin/get_api_v1_users": 1}

# Weighted choices per stage of a task: (server/tool, weight).
INVESTIGATE = [("catalog/search_service_catalog", 10), ("catalog/search", 3), ("catalog/get_service", 6),
               ("catalog/fetch_service_details", 3), ("catalog/list_services", 3),
               ("catalog/describe_service_dependencies", 5), ("metrics/query_metrics", 14),
               ("metrics/query_metric", 4), ("metrics/list_dashboards", 2), ("metrics/list_alerts", 9),
               ("metrics/get_active_alerts", 4), ("metrics/query_logs", 10), ("deploys/list_deploys", 8),
               ("deploys/get_deploy_history", 3), ("deploys/get_deploy_status", 3),
               ("incidents/list_incidents", 4), ("incidents/get_incident", 3),
               ("incidents/get_incident_details", 2), ("incidents/get_incident_timeline", 3),
               ("tickets/search_tickets", 5), ("tickets/search", 2), ("tickets/get_ticket", 3),
               ("tickets/list_my_tickets", 2), ("comms/list_channels", 1), ("comms/get_user", 1),
               ("legacy_admin/get_api_v1_users_id", 1), ("legacy_admin/get_user_data", 1)]
ACT = [("deploys/rollback_deploy", 5), ("deploys/restart_service", 5), ("deploys/create_deploy", 3),
       ("catalog/update_service_metadata", 1), ("incidents/update_incident", 4),
       ("incidents/acknowledge_alert", 4), ("tickets/create_ticket", 3), ("tickets/update_ticket", 3),
       ("tickets/add_comment", 4), ("tickets/close_ticket", 2)]
ESCALATE = [("incidents/page_oncall", 3), ("incidents/create_incident", 2), ("incidents/open_incident", 1),
            ("comms/notify_channel", 4)]
# Result size (tokens): median per kind of tool; lists and log searches are the big ones.
SIZE = {"list": 2400, "search": 1800, "query": 2600, "get": 700, "fetch": 900, "describe": 1200}
SERVICES = ["checkout-api", "payments", "search-svc", "auth", "notifications", "inventory", "web-frontend"]
FAIL_RATE = 0.16       # a call fails ...
REPEAT_AFTER_FAIL = 0.7  # ... and is then often retried with identical arguments (bare [] errors)


def arguments(rng: random.Random, tool: str) -> dict:
    svc = rng.choice(SERVICES)
    if tool.startswith(("query_metric", "query_logs")):
        return {"service": svc, "query": rng.choice(["error_rate", "p99_latency", "5xx", "oom"]),
                "window": rng.choice(["15m", "1h", "6h"])}
    if "incident" in tool:
        return {"incident_id": f"INC-{rng.randint(2100, 2399)}"}
    if "ticket" in tool or tool in ("search", "add_comment"):
        return {"ticket": f"OPS-{rng.randint(1000, 1999)}"} if "search" not in tool else {"q": svc}
    return {"service": svc}


def size(rng: random.Random, tool: str, outcome: str) -> int:
    if outcome == "error":
        return rng.randint(3, 12)  # a bare [] or a one-line error
    median = SIZE.get(tool.split("_", 1)[0], 150)
    return max(20, int(rng.lognormvariate(0, 0.5) * median))


def task(rng: random.Random, pools) -> list[str]:
    calls = [rng.choices(*pools["investigate"])[0] for _ in range(rng.randint(2, 6))]
    if rng.random() < 0.7:
        calls += [rng.choices(*pools["act"])[0] for _ in range(rng.randint(1, 2))]
    if rng.random() < 0.25:
        calls.append(rng.choices(*pools["escalate"])[0])
    return calls


def generate(tasks: int, seed: int) -> list[dict]:
    reg = load(ROOT / "data" / "registries" / "ops_assistant.json")
    known = {t.key for t in reg}
    never = {f"{s}/{t}" for s, ts in NEVER.items() for t in ts}
    pools = {name: ([k for k, _ in pool], [w for _, w in pool])
             for name, pool in (("investigate", INVESTIGATE), ("act", ACT), ("escalate", ESCALATE))}
    for keys, _ in pools.values():
        assert set(keys) <= known - never, set(keys) - known
    rng = random.Random(seed)
    start = datetime(2026, 8, 30, tzinfo=UTC)
    span = timedelta(days=90).total_seconds()
    starts = sorted(rng.uniform(0, span) for _ in range(tasks))
    # the rarely called tools go into randomly chosen tasks, a fixed number of times
    extra = {i: [] for i in range(tasks)}
    for key, n in RARE.items():
        for _ in range(n):
            extra[rng.randrange(tasks)].append(key)
    out = []
    for i, t0 in enumerate(starts):
        when = start + timedelta(seconds=t0)
        session = f"task-{i + 1:04d}"
        plan = task(rng, pools)
        plan[1:1] = extra[i]
        for key in plan:
            server, tool = key.split("/", 1)
            args = arguments(rng, tool)
            attempts = 1
            while True:
                outcome = "error" if rng.random() < FAIL_RATE else "ok"
                when += timedelta(seconds=rng.randint(2, 40))
                out.append({"timestamp": when.strftime("%Y-%m-%dT%H:%M:%SZ"), "session": session,
                            "server": server, "tool": tool, "arguments": args,
                            "response_tokens": size(rng, tool, outcome), "outcome": outcome})
                if outcome == "ok" or attempts >= 3 or rng.random() > REPEAT_AFTER_FAIL:
                    break
                attempts += 1
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "data" / "usage" / "ops_assistant.jsonl"))
    ap.add_argument("--tasks", type=int, default=600)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    records = generate(a.tasks, a.seed)
    Path(a.out).write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records), "utf-8")
    print(f"wrote {len(records)} calls of {a.tasks} tasks to {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
