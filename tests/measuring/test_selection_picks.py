"""`metrics.confused_pairs` and `metrics.skipped` on records written by hand: only each query's first
answer counts, `none` and `invalid` never make a pair, both directions are kept, and the counts and
orders are the ones worked out here."""

from __future__ import annotations

from toolsurvey.measuring.selection.metrics import confused_pairs, skipped


def rec(qid, outcome, expected, called, repeat=0, gold=True):
    return {"id": qid, "outcome": outcome, "expected": expected, "called": called, "repeat": repeat,
            "gold": [expected] if gold else []}


RECORDS = [
    rec("q1", "wrong", "s/a", "s/b"), rec("q2", "wrong", "s/a", "s/b"), rec("q3", "wrong", "s/b", "s/a"),
    rec("q1", "wrong", "s/a", "s/b", repeat=1),  # a repeat: not counted
    rec("q4", "wrong", "s/c", "s/d"), rec("q5", "wrong", "s/d", "s/c"),  # a tie, 1 each way
    rec("q6", "invalid", "s/a", "invalid"), rec("q7", "false_call", "none", "s/a", gold=False),
    rec("q8", "skip", "s/c", "none"), rec("q9", "skip", "s/c", "none"), rec("q10", "skip", "s/e", "none"),
    rec("q11", "right", "s/e", "s/e"), rec("q12", "no_call", "none", "none", gold=False),
    rec("q10", "skip", "s/f", "none", repeat=2),  # a repeat: not counted
]


def test_confused_pairs_by_hand():
    assert confused_pairs(RECORDS) == [
        {"a": "s/a", "b": "s/b", "a_as_b": 2, "b_as_a": 1, "total": 3, "queries_a_as_b": ["q1", "q2"],
         "queries_b_as_a": ["q3"]},
        {"a": "s/c", "b": "s/d", "a_as_b": 1, "b_as_a": 1, "total": 2, "queries_a_as_b": ["q4"],
         "queries_b_as_a": ["q5"]}]
    assert [p["a"] for p in confused_pairs(RECORDS, 3)] == ["s/a"]
    assert confused_pairs(RECORDS, 4) == []


def test_skipped_by_hand():
    # s/c: needed by q4, q8, q9 (its row), skipped by q8, q9; s/e: q10, q11, skipped by q10
    assert skipped(RECORDS) == [{"tool": "s/c", "skipped": 2, "expected": 3, "queries": ["q8", "q9"]},
                                {"tool": "s/e", "skipped": 1, "expected": 2, "queries": ["q10"]}]
