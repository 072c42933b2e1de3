"""`toolsurvey eval --defer client` end to end against the real local model server (tests/_local_model.py):
the model is shown only the search tool and the deferred tools' names, the harness runs BM25 on
what the model searched for, and the conversation goes on until the model calls something else.

**The bundled test model's accuracy says nothing about a user's agent**: Gemma 3 270M, a base
model, behind a test chat handler (tests/servers/llm_server.py, which renders `tool` messages and
the assistant's calls as turns of plain text). The test checks what the harness does with a real
server's answers.

Oracles: the proxy's record of every exchange on the wire, read by a second, simple reading (which
requests belong to which query, whether the first answer called the search, which tools the
harness's search answers named, what the last answer called), and the defer rates recounted from the
JSON Lines log by a second simple implementation. Kept small: 4 queries.
"""

from __future__ import annotations

import json

import pytest
from conftest import DATA, run_cli

pytest.importorskip("openai")
pytestmark = pytest.mark.timeout(1800)

REG = DATA / "registries" / "ops_assistant.json"
QUERY_FILES = [DATA / "queries" / "ops_assistant.jsonl", DATA / "queries" / "ops_assistant_selection.jsonl"]
IDS = ("ops-01", "ops-14", "none-01", "near-01")


def name_to_key() -> dict[str, str]:
    """The name each registry tool is sent under, in registry order: its own, or for a name two
    servers share (`search` here), its key with "/" as "__" (the rule docs/eval.md states)."""
    reg = json.loads(REG.read_text("utf-8"))
    pairs = [(t["name"], f"{s}/{t['name']}") for s, server in reg["servers"].items() for t in server["tools"]]
    names = [n for n, _ in pairs]
    return {(n if names.count(n) == 1 else k.replace("/", "__")): k for n, k in pairs}


def recount(log: list[dict]) -> dict:
    """The defer rates, counted again from the log's records in the plainest way."""
    need = [r for r in log if r["gold"]]
    searched_need = [r for r in need if r["defer"]["searches"]]
    return {"searched": (sum(1 for r in log if r["defer"]["searches"]), len(log)),
            "search_found_gold": (sum(1 for r in searched_need
                                      if set(r["gold"]) & {k for s in r["defer"]["searches"] for k in s["found"]}),
                                  len(searched_need)),
            "end_to_end": (sum(1 for r in need if r["calls"] and all(c["tool"] in r["gold"] for c in r["calls"])),
                           len(need)),
            "extra_requests": sum(r["defer"]["rounds"] - 1 for r in log)}


def test_defer_client_on_the_real_model_recounted_from_the_wire_and_the_log(local_model, tmp_path):
    qs = [json.loads(x) for p in QUERY_FILES for x in p.read_text("utf-8").splitlines() if x.strip()]
    subset = tmp_path / "q.jsonl"
    subset.write_text("".join(json.dumps(q) + "\n" for q in qs if q["id"] in IDS))
    gold = {q["id"]: q["gold"] for q in qs if q["id"] in IDS}
    text = {q["id"]: q["query"] for q in qs if q["id"] in IDS}
    log, out = tmp_path / "log.jsonl", tmp_path / "out.json"
    first = len(local_model.proxy.records)
    code = run_cli("eval", REG, "--queries", subset, "--model", local_model.model, "--base-url",
                   local_model.base_url, "--cache-dir", tmp_path / "cache", "--timeout", "300", "-q",
                   "--defer", "client", "--log", log, "--format", "json", "-o", out)
    assert code == 0
    records = [json.loads(x) for x in log.read_text().splitlines()]
    doc = json.loads(out.read_text())
    assert sorted(r["id"] for r in records) == sorted(IDS) and doc["failed"] == []
    wire = [r for r in local_model.proxy.records[first:] if r.path == "/v1/chat/completions"]
    assert all(r.status == 200 for r in wire)
    keys = name_to_key()
    for rec in records:
        mine = [w for w in wire if next(m["content"] for m in w.json()["messages"] if m["role"] == "user")
                == text[rec["id"]]]
        d = rec["defer"]
        assert len(mine) == d["rounds"] == 1 + d["extra_requests"] <= 3
        bodies = [w.json() for w in mine]
        assert [t["function"]["name"] for t in bodies[0]["tools"]] == ["tool_search"]
        assert bodies[0]["messages"][0]["role"] == "system"
        assert bodies[0]["messages"][0]["content"].splitlines()[1:] == list(keys)  # every name, listed
        calls0 = mine[0].answer()["choices"][0]["message"].get("tool_calls") or []
        assert d["searched"] == bool(calls0 and calls0[0]["function"]["name"] == "tool_search")
        # what the harness answered to each search, read from the last request's tool messages
        replies = [json.loads(m["content"]) for m in bodies[-1]["messages"] if m["role"] == "tool"]
        found = [keys[n] for rep in replies for n in rep["matches"]]
        assert [k for s in d["searches"] for k in s["found"]] == found
        offered = [t["function"]["name"] for t in bodies[-1]["tools"]]
        assert offered == ["tool_search", *[n for n in keys if keys[n] in set(found)]]
        if d["searched"] and gold[rec["id"]]:
            assert d["found_gold"] == bool(set(found) & set(gold[rec["id"]]))
        last = mine[-1].answer()["choices"][0]["message"].get("tool_calls") or []
        called = [c["function"]["name"] for c in last if c["function"]["name"] != "tool_search"]
        if called and called[0] in offered and gold[rec["id"]]:
            try:
                ok = isinstance(json.loads(last[0]["function"]["arguments"]), dict)
            except ValueError:
                ok = False
            if ok:
                assert rec["outcome"] == ("right" if keys[called[0]] in gold[rec["id"]] else "wrong"), rec
        elif called:
            assert rec["outcome"] in ("invalid", "false_call", "wrong"), rec
    s, again = doc["defer"], recount(records)
    for k in ("searched", "search_found_gold", "end_to_end"):
        assert (s[k]["count"], s[k]["of"]) == again[k]
    assert s["extra_requests"] == again["extra_requests"] == len(wire) - len(IDS)
