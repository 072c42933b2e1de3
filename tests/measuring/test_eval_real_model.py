"""`toolsurvey eval --base-url` against a real OpenAI-compatible server running a real model: the
whole sample, the answer cache, `--baseline` and `--concurrency` (tests/_local_model.py).

**The bundled test model's accuracy says nothing about a user's agent.** It is Gemma 3 270M, a base
model never trained to call tools, run on 2 cores behind a test chat handler
(tests/servers/llm_server.py). These tests check what the harness does with every answer a real
server gives, counted at the server, never how good the answers are.

Oracles: the proxy's record of every request and response on the wire, classified again here by a
second, simple rule (one call per answer, as this server gives); the registry file; the proxy's count.
Time: one cold prompt of the sample's 63 tools (about 4.2k tokens), then each query reuses it;
`--baseline` and `--concurrency` use a few queries.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from conftest import DATA, run_cli

pytest.importorskip("openai")
# pytest's 600 s default is per test and covers the module fixture's whole-sample run: 58 queries
# took 11.5 minutes on 2 cores shared with other work (load ~5, 2026-12-06; the module 12.7 minutes),
# and should take a few on a quiet machine.
pytestmark = pytest.mark.timeout(2400)

REG = DATA / "registries" / "ops_assistant.json"
QUERIES = [DATA / "queries" / "ops_assistant.jsonl", DATA / "queries" / "ops_assistant_selection.jsonl"]
SUBSET_IDS = ("ops-01", "ops-14", "ops-29", "none-01", "near-01", "ops-40")


def registry_keys(path) -> list[str]:
    reg = json.loads(path.read_text("utf-8"))
    return [f"{s}/{t['name']}" for s, server in reg["servers"].items() for t in server["tools"]]


def queries(paths) -> list[dict]:
    return [json.loads(line) for p in paths for line in p.read_text("utf-8").splitlines() if line.strip()]


def eval_cli(local_model, registry, query_files, cache, *extra):
    return run_cli("eval", registry, "--queries", *query_files, "--model", local_model.model,
                   "--base-url", local_model.base_url, "--cache-dir", cache, "--timeout", "300", "-q", *extra)


def wire_outcome(request: dict, answer: dict, gold: list[str], keys: list[str]) -> str | None:
    """The outcome of one exchange, from the wire alone: the tools sent are the registry's, in its
    order, so the n-th name sent is the n-th registry key. None: an answer with no call (a skip, a
    right no-call, or text the harness may read as a written call)."""
    sent = {t["function"]["name"]: keys[i] for i, t in enumerate(request["tools"])}
    calls = answer["choices"][0]["message"].get("tool_calls") or []
    if not calls:
        return None
    name, raw = calls[0]["function"]["name"], calls[0]["function"]["arguments"]
    try:
        ok = isinstance(json.loads(raw), dict)
    except ValueError:
        ok = False
    if name not in sent or not ok:
        return "invalid"
    if not gold:
        return "false_call"
    return "right" if sent[name] in gold else "wrong"


@pytest.fixture(scope="module")
def full_run(local_model, tmp_path_factory):
    """The whole sample (42 + 16 queries over 63 tools), once, with its log, JSON and the wire."""
    tmp = tmp_path_factory.mktemp("eval-real")
    cache, log, out = tmp / "cache", tmp / "log.jsonl", tmp / "out.json"
    first = len(local_model.proxy.records)
    code = eval_cli(local_model, REG, QUERIES, cache, "--log", log, "--format", "json", "-o", out)
    wire = [r for r in local_model.proxy.records[first:] if r.path == "/v1/chat/completions"]
    return {"code": code, "cache": cache, "log": [json.loads(x) for x in log.read_text().splitlines()],
            "doc": json.loads(out.read_text()), "wire": wire}


def test_whole_sample_every_verdict_and_figure_recounted_from_the_wire(full_run):
    assert full_run["code"] == 0
    log, doc, wire = full_run["log"], full_run["doc"], full_run["wire"]
    qs = queries(QUERIES)
    assert len(log) == len(qs) == len(wire) == 58  # one request per query, each answered
    assert all(r.status == 200 for r in wire)
    assert doc["queries"] == log and doc["failed"] == []
    keys, gold = registry_keys(REG), {q["id"]: q["gold"] for q in qs}
    by_query = {r.json()["messages"][-1]["content"]: r for r in wire}
    counts = Counter()
    for rec in log:
        exchange = by_query[rec["query"]]
        body = exchange.json()
        assert body["temperature"] == 0 and body["tool_choice"] == "auto" and len(body["tools"]) == 63
        want = wire_outcome(body, exchange.answer(), gold[rec["id"]], keys)
        if want is None:  # no call on the wire: a skip or a right no-call, or a call written as text
            assert rec["outcome"] in (("skip", "invalid") if gold[rec["id"]] else ("no_call", "invalid")), rec
            assert rec["calls"] == []
        else:
            assert rec["outcome"] == want, rec
        counts[rec["outcome"]] += 1
    assert doc["summary"]["outcomes"] == {o: counts[o] for o in doc["summary"]["outcomes"]}
    n_right = counts["right"] + counts["no_call"]
    assert doc["summary"]["accuracy"]["count"] == n_right and doc["summary"]["accuracy"]["of"] == 58
    assert sum(map(sum, doc["confusion"]["counts"])) == 58
    assert "says nothing" in doc["caveat"]


def test_a_rerun_sends_no_request_to_the_server(full_run, local_model, tmp_path):
    before = local_model.proxy.count()
    out = tmp_path / "again.json"
    assert eval_cli(local_model, REG, QUERIES, full_run["cache"], "--format", "json", "-o", out) == 0
    assert local_model.proxy.count() == before  # counted at the server's door
    doc = json.loads(out.read_text())
    assert doc["billed"]["requests"] == 0 and doc["billed"]["from_cache"] == 58
    assert [(r["id"], r["outcome"]) for r in doc["queries"]] == [(r["id"], r["outcome"]) for r in full_run["log"]]


def five_words(path, dest):
    reg = json.loads(path.read_text("utf-8"))
    for server in reg["servers"].values():
        for t in server["tools"]:
            if t.get("description"):
                t["description"] = " ".join(t["description"].split()[:5])
    dest.write_text(json.dumps(reg), "utf-8")
    return dest


def test_baseline_with_descriptions_cut_to_five_words(full_run, local_model, tmp_path):
    """The same queries against the sample and a copy whose descriptions are cut to five words: the
    new side comes from the cache of the full run, so only the baseline's requests reach the server,
    and those carry the short descriptions."""
    subset = tmp_path / "subset.jsonl"
    subset.write_text("".join(json.dumps(q) + "\n" for q in queries(QUERIES) if q["id"] in SUBSET_IDS))
    short = five_words(REG, tmp_path / "short.json")
    out = tmp_path / "cmp.json"
    before = local_model.proxy.count()
    code = eval_cli(local_model, REG, [subset], full_run["cache"], "--baseline", short, "--format", "json", "-o", out)
    assert code == 0
    sent = local_model.proxy.requests()[before:]
    assert len(sent) == len(SUBSET_IDS)  # the baseline's only
    descriptions = [t["function"].get("description", "") for t in sent[0].json()["tools"]]
    assert max(len(d.split()) for d in descriptions) == 5
    doc = json.loads(out.read_text())
    new = {r["id"]: (r["outcome"], r["called"]) for r in doc["queries"]}
    old = {r["id"]: (r["outcome"], r["called"]) for r in doc["baseline"]["queries"]}
    assert new == {r["id"]: (r["outcome"], r["called"]) for r in full_run["log"] if r["id"] in SUBSET_IDS}
    n, right = len(SUBSET_IDS), {"right", "no_call"}
    cmp = doc["comparison"]
    assert cmp["paired"] == n
    assert cmp["difference"] == pytest.approx(sum(new[i][0] in right for i in new) / n
                                              - sum(old[i][0] in right for i in old) / n)
    assert {c["id"] for c in cmp["changed"]} == {i for i in new if new[i] != old[i]}
    assert cmp["before"]["tokens_per_request"] < cmp["after"]["tokens_per_request"]  # shorter descriptions


def test_concurrency_keeps_several_requests_in_flight(local_model, tmp_path):
    subset = tmp_path / "subset.jsonl"
    subset.write_text("".join(json.dumps(q) + "\n" for q in queries(QUERIES) if q["id"] in SUBSET_IDS[:4]))
    local_model.proxy.reset_peak()
    before = local_model.proxy.count()
    log = tmp_path / "log.jsonl"
    assert eval_cli(local_model, REG, [subset], tmp_path / "cache", "--no-cache", "--concurrency", "3",
                    "--log", log) == 0
    assert local_model.proxy.count() == before + 4
    assert 2 <= local_model.proxy.max_in_flight <= 3  # the server answers one at a time; the rest wait
    assert sorted(json.loads(x)["id"] for x in log.read_text().splitlines()) == sorted(SUBSET_IDS[:4])
