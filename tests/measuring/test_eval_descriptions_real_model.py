"""`toolsurvey eval --description-tokens` against a real OpenAI-compatible server running a real model
(tests/_local_model.py): the description-length sweep end to end, every rate recounted from the JSON
Lines log by a second, simple implementation, and every log record checked against the exchange the
proxy saw on the wire.

**The bundled test model's accuracy says nothing about a user's agent** (Gemma 3 270M, a base model,
on 2 cores). This checks what the harness does with real answers, not how good they are.

Time: a registry of the sample's catalog and metrics servers (18 tools), 3 queries, 3 variants
(none, 10, full): 9 requests, three cold prompts of a few hundred tokens each.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from _oracle import ntok, wilson
from conftest import DATA, run_cli

pytest.importorskip("openai")
pytestmark = pytest.mark.timeout(1200)

IDS = ("ops-01", "ops-03", "ops-07")
VARIANTS = ["none", 10, "full"]




def recount(log: list[dict], label) -> dict:
    rows = [r for r in log if r["description_tokens"] == label and r["repeat"] == 0]
    by = Counter(r["outcome"] for r in rows)
    need = [r for r in rows if r["gold"]]
    calls = [r for r in need if r["outcome"] in ("right", "wrong", "invalid")]
    return {"queries": len(rows), "wrong_call_rate": (len(calls) - by["right"], len(calls)),
            "accuracy": (by["right"] + by["no_call"], len(rows)), "tool_accuracy": (by["right"], len(need)),
            "skip_rate": (by["skip"], len(need)), "invalid_rate": (by["invalid"], len(rows))}


def test_description_sweep_on_a_real_server_recounted_from_the_log_and_the_wire(local_model, tmp_path):
    reg = json.loads((DATA / "registries" / "ops_assistant.json").read_text("utf-8"))
    small = {"servers": {k: reg["servers"][k] for k in ("catalog", "metrics")}}
    registry = tmp_path / "small.json"
    registry.write_text(json.dumps(small), "utf-8")
    full = {f"{s}/{t['name']}": t.get("description") for s, v in small["servers"].items() for t in v["tools"]}
    keys = list(full)
    qs = [json.loads(x) for f in ("ops_assistant.jsonl", "ops_assistant_selection.jsonl")
          for x in (DATA / "queries" / f).read_text("utf-8").splitlines() if x.strip()]
    queries = tmp_path / "q.jsonl"
    queries.write_text("".join(json.dumps(q) + "\n" for q in qs if q["id"] in IDS), "utf-8")
    log, out = tmp_path / "log.jsonl", tmp_path / "out.json"
    first = len(local_model.proxy.records)
    code = run_cli("eval", registry, "--queries", queries, "--model", local_model.model,
                   "--base-url", local_model.base_url, "--cache-dir", tmp_path / "cache", "--timeout", "300", "-q",
                   "--description-tokens", "none,10,full", "--log", log, "--format", "json", "-o", out)
    assert code == 0
    records = [json.loads(x) for x in log.read_text().splitlines()]
    doc = json.loads(out.read_text())
    wire = [r for r in local_model.proxy.records[first:] if r.path == "/v1/chat/completions"]
    assert len(records) == len(wire) == 9
    assert [r["description_tokens"] for r in doc["by_description"]] == VARIANTS
    # each figure recounted from the log
    for row in doc["by_description"]:
        mine = recount(records, row["description_tokens"])
        assert row["queries"] == mine["queries"] == 3
        for name in ("wrong_call_rate", "accuracy", "tool_accuracy", "skip_rate", "invalid_rate"):
            k, n = mine[name]
            got = row[name]
            assert (got["count"], got["of"]) == (k, n), (row["description_tokens"], name)
            if n:
                assert got["rate"] == k / n
                assert (got["low"], got["high"]) == pytest.approx(wilson(k, n), abs=1e-15)
    # each record against its exchange: the variant's descriptions were sent, and the call it logs came back
    for rec, ex in zip(records, wire, strict=True):
        body, answer = ex.json(), ex.answer()
        assert body["messages"][-1]["content"] == rec["query"]
        sent = [t["function"].get("description") for t in body["tools"]]
        label = rec["description_tokens"]
        if label == "none":
            assert sent == [None] * len(keys)
        elif label == "full":
            assert sent == [full[k] for k in keys]
        else:
            for s, whole in zip(sent, full.values(), strict=True):
                assert s == whole or ntok(s.split(" …[")[0]) <= 10
        mean = sum(ntok(s) if s else 0 for s in sent) / len(sent)
        assert rec["description_mean_tokens"] == pytest.approx(mean, abs=1e-12)
        calls = answer["choices"][0]["message"].get("tool_calls") or []
        names = [t["function"]["name"] for t in body["tools"]]
        called = keys[names.index(calls[0]["function"]["name"])] if calls else None
        assert (rec["tool"] if rec["calls"] else None) == called
    # requests grouped by variant: the tools change twice
    sets = [tuple(t["function"].get("description") for t in ex.json()["tools"]) for ex in wire]
    assert sum(1 for a, b in zip(sets, sets[1:], strict=False) if a != b) == 2
