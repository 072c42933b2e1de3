"""The catalog-size sweep's visible sets: the seeded draw is reproducible, nested across sizes and
always holds the gold tools; `nearest` takes the non-gold tools BM25 ranks highest (checked on a
hand-worked registry, and against bm25s called directly on the sample); and the curve `--fit`
writes round-trips through load_accuracy."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from conftest import ROOT
from fake_llm import FakeLLM, Move, word_match

import toolsurvey as ts
from toolsurvey.core.registry import Registry, Tool
from toolsurvey.errors import InputError
from toolsurvey.inputs.queries import Query
from toolsurvey.measuring.selection.sweep import draw_visible, parse_sizes

REG = ROOT / "data" / "registries" / "ops_assistant.json"
QUERIES = ROOT / "data" / "queries" / "ops_assistant.jsonl"


@pytest.fixture(scope="module")
def reg():
    return ts.load(str(REG))


@pytest.fixture(scope="module")
def queries(reg):
    return ts.load_queries(str(QUERIES), reg)


def test_sizes_parse_sorted_with_all_last_and_bad_ones_are_one_line():
    assert parse_sizes("40,5, all,10,5") == [5, 10, 40, "all"]
    assert parse_sizes([20, "all"]) == [20, "all"]
    for bad in ("0", "5,x", "2.5", ""):
        with pytest.raises(InputError, match="--visible"):
            parse_sizes(bad)


def test_random_draw_is_reproducible_nested_and_holds_the_gold_tools(reg, queries):
    sizes = [5, 10, 20, "all"]
    a = draw_visible(reg, queries, sizes, seed=7)
    assert a == draw_visible(reg, queries, sizes, seed=7)
    assert a != draw_visible(reg, queries, sizes, seed=8)
    keys = [t.key for t in reg]
    for q in queries:
        sets = a[q.id]
        for s in (5, 10, 20):
            chosen = sets[s]
            assert set(q.gold) <= set(chosen)
            assert len(chosen) == max(s, len(q.gold)) and len(set(chosen)) == len(chosen)
            assert chosen == [k for k in keys if k in set(chosen)]  # registry order
        assert set(sets[5]) <= set(sets[10]) <= set(sets[20])
        assert sets["all"] == keys
    # one query's draw does not depend on the others asked with it
    alone = draw_visible(reg, queries[3:4], sizes, seed=7)
    assert alone[queries[3].id] == a[queries[3].id]


def _tool(name: str, description: str) -> Tool:
    return Tool(name=name, server="s", description=description, input_schema={"type": "object", "properties": {}})


def test_nearest_takes_the_tools_bm25_ranks_highest_hand_worked():
    # The query's words are "invoice" and "refund". gold holds both; b holds both too (it is the
    # nearest competitor); c holds "invoice" only; d, e and f hold neither. Every description has
    # four words, so BM25's length normalisation is the same for all, and a tool holding a superset
    # of another's query words scores higher: b > c > 0 = d = e = f.
    reg = Registry.from_tools([
        _tool("gold", "invoice refund customer payment"),
        _tool("d", "weather forecast rain today"),
        _tool("c", "invoice printer paper tray"),
        _tool("e", "calendar meeting room booking"),
        _tool("b", "invoice refund vendor ledger"),
        _tool("f", "music playlist shuffle song"),
    ])
    q = Query("q1", "invoice refund", ("s/gold",))
    sets = draw_visible(reg, [q], [2, 3, 4], distractors="nearest", seed=0)["q1"]
    assert sets[2] == ["s/gold", "s/b"]
    assert sets[3] == ["s/gold", "s/c", "s/b"]  # sent in registry order
    # nothing else scores above 0: the fourth tool comes from the seeded shuffle of d, e, f
    assert set(sets[4]) - {"s/gold", "s/c", "s/b"} <= {"s/d", "s/e", "s/f"} and len(sets[4]) == 4
    assert sets[4] == draw_visible(reg, [q], [4], distractors="nearest", seed=0)["q1"][4]


def test_nearest_matches_bm25s_called_directly_on_the_sample(reg, queries):
    """bm25s over the same tool texts and terms as `toolsurvey retrieval` (its Lucene defaults): the
    non-gold tools with the highest scores, ties in registry order, are the distractors."""
    bm25s = pytest.importorskip("bm25s")
    from toolsurvey.measuring.retrieval.text import terms, tool_text

    keys = [t.key for t in reg]
    engine = bm25s.BM25()
    engine.index([terms(tool_text(t)) for t in reg], show_progress=False)
    sets = draw_visible(reg, queries, [6, 10], distractors="nearest")
    checked = 0
    for q in queries:
        scores = np.asarray(engine.get_scores(terms(q.query)), dtype=float)
        ranked = [keys[i] for i in sorted(range(len(keys)), key=lambda i: (-scores[i], i))
                  if keys[i] not in q.gold and scores[i] > 0]
        for size in (6, 10):
            want = size - len(q.gold)
            if len(ranked) < want:
                continue  # the rest would come from the seeded draw
            assert set(sets[q.id][size]) == set(q.gold) | set(ranked[:want]), (q.id, size)
            checked += 1
    assert checked >= len(queries)  # most queries have enough scoring tools at both sizes


def decide(query: str, names: list[str], tools: list) -> Move:
    """A model that calls the first offered tool sharing a word with the query (so that more tools in
    view mean more wrong picks), skips when none does, and sometimes writes a call as text."""
    words = {w.strip("?.,").lower() for w in query.split() if len(w) > 3}
    if "incident" in words:
        return Move(text='<tool_call>{"name": "x", "arguments": {}}</tool_call>')
    return word_match(query, tools)


def test_the_fitted_curve_round_trips_through_load_accuracy(reg, tmp_path):
    fake = FakeLLM(decide)
    sw = ts.selection_sweep(reg, str(QUERIES), "local-test-model", "5,10,all", base_url="http://llm.test/v1",
                            http_client=fake.client("openai"), cache_dir=tmp_path / "cache")
    path = tmp_path / "curve.toml"
    curve = ts.write_accuracy_curve(sw, path, [QUERIES], task_calls=2, date="2026-12-06")
    again = ts.load_accuracy(path)
    assert again == curve
    rows = {r["visible"]: r for r in sw.by_size()}
    assert [rows[s]["tools_offered"] for s in (5, 10, "all")] == list(curve.visible)
    assert list(curve.wrong) == [rows[s]["wrong_call_rate"]["rate"] for s in (5, 10, "all")]
    assert list(curve.success) == [rows[s]["tool_accuracy"]["rate"] ** 2 for s in (5, 10, "all")]
    digest = hashlib.sha256(QUERIES.read_bytes()).hexdigest()
    assert curve.source.startswith("measured: local-test-model on your registry, 42 queries, 2026-12-06 (")
    assert f"ops_assistant.jsonl sha256 {digest}" in curve.source
    assert "random distractors, seed 0" in curve.source
    assert "task success derived, not measured: (right / queries that need a tool) ^ 2" in curve.source
    assert curve.as_of == "2026-12-06"


def _rec(qid, size, outcome, gold=("s/a",), n=5):
    return {"id": qid, "repeat": 0, "visible": size, "gold": list(gold), "outcome": outcome,
            "tools_offered": [f"s/t{i}" for i in range(n)]}


def test_fit_rules_worked_by_hand_half_counts_and_sizes_without_calls():
    """Size 5: four queries need a tool, each answered by a wrong call, plus one no-tool query answered
    rightly: wrong 4 of 4 is written (4 - 0.5) / 4 = 0.875, right 0 of 4 as success 0.5 / 4 = 0.125.
    Size 10: right, right, wrong, invalid, skip: calls 4, wrong 2 -> 0.5; right 2 of 5 -> 0.4,
    and with K = 2, 0.16. Size 20: every query skipped: no call to count, no point."""
    from toolsurvey.measuring.selection.result import SelectionEval
    from toolsurvey.measuring.selection.sweep import SweepEval
    from toolsurvey.model.measured_curve import fit_accuracy_curve

    recs = [_rec(f"q{i}", 5, "wrong") for i in range(4)] + [_rec("n", 5, "no_call", gold=())]
    recs += [_rec(f"q{i}", 10, o, n=10) for i, o in enumerate(("right", "right", "wrong", "invalid", "skip"))]
    recs += [_rec(f"q{i}", 20, "skip", n=20) for i in range(3)]
    sw = SweepEval(SelectionEval("m", "openai-chat", None, recs, None), [5, 10, 20], "random", 0, 40)
    doc, warnings = fit_accuracy_curve(sw, task_calls=2, date="2026-12-06")
    pts = [(p["visible"], p["wrong"], p["success"]) for p in doc["points"]]
    assert pts == [(5.0, 0.875, pytest.approx(0.015625)), (10.0, 0.5, pytest.approx(0.16))]
    assert any("visible 20 has no tool call" in w for w in warnings)
    assert any("every call was wrong" in w for w in warnings) and any("no query was answered right" in w for w in warnings)
    assert doc["source"].startswith("measured: m on your registry, 6 queries, 2026-12-06 (queries given in Python")
