"""Outcome classification and the figures counted from it, against hand-worked cases."""

from __future__ import annotations

import math

import pytest

from toolsurvey.measuring.selection import metrics
from toolsurvey.measuring.selection.outcomes import classify, looks_like_call, make_call, subset

OFFERED = {"get_owner": "catalog/get_owner", "catalog__search": "catalog/search", "page": "comms/page"}
SCHEMAS = {"catalog/get_owner": {"type": "object", "properties": {"service": {"type": "string"}},
                                 "required": ["service"]},
           "catalog/search": {"type": "object"}, "comms/page": {"type": "object"}}
GOLD = ("catalog/get_owner", "catalog/search")


def verdict(calls, text="", gold=GOLD, args=None):
    made = [make_call(n, a, OFFERED) for n, a in calls]
    return classify(gold, made, text, SCHEMAS, args, list(OFFERED))


def test_each_answer_gets_exactly_one_outcome():
    assert verdict([("get_owner", '{"service": "payments"}')]).outcome == "right"
    assert verdict([("page", "{}")]).outcome == "wrong"
    assert verdict([], "I am not sure.").outcome == "skip"
    assert verdict([], "Nothing to do.", gold=()).outcome == "no_call"
    assert verdict([("page", "{}")], gold=()).outcome == "false_call"


@pytest.mark.parametrize("calls,text", [
    ([("delete_everything", "{}")], ""),  # a name that was not offered
    ([("get_owner", '{"service": ')], ""),  # arguments that are not JSON
    ([("get_owner", "[1, 2]")], ""),  # JSON, but not an object
    ([], '<tool_call>{"name": "get_owner", "arguments": {"service": "x"}}</tool_call>'),  # written, not made
    ([], 'get_owner(service="payments")'),
])
def test_invalid_is_never_no_call(calls, text):
    v = verdict(calls, text)
    assert v.outcome == "invalid" and v.called == "invalid"
    assert verdict(calls, text, gold=()).outcome == "invalid"  # not "no_call" either


def test_right_tool_with_arguments_failing_its_schema_is_counted_apart():
    v = verdict([("get_owner", '{"team": 3}')])
    assert (v.outcome, v.args_valid) == ("right", False)
    assert verdict([("get_owner", '{"service": "a"}')]).args_valid is True


def test_parallel_calls_right_only_when_every_call_is_gold():
    assert verdict([("get_owner", '{"service": "a"}'), ("catalog__search", "{}")]).outcome == "right"
    v = verdict([("get_owner", '{"service": "a"}'), ("page", "{}")])
    assert (v.outcome, v.expected, v.called) == ("wrong", "catalog/get_owner", "comms/page")
    assert verdict([("get_owner", '{"service": "a"}'), ("nope", "{}")]).outcome == "invalid"


def test_confusion_row_of_a_right_answer_is_the_gold_tool_called():
    v = verdict([("catalog__search", "{}")])
    assert (v.expected, v.called) == ("catalog/search", "catalog/search")


def test_expected_arguments_match_as_a_subset():
    assert verdict([("get_owner", '{"service": "pay", "x": 1}')], args={"service": "pay"}).args_match is True
    assert verdict([("get_owner", '{"service": "pay"}')], args={"service": "api"}).args_match is False
    assert subset({"a": {"b": 1}}, {"a": {"b": 1.0, "c": 2}}) and not subset({"a": 1}, {"a": True})


def test_plain_prose_is_not_a_call():
    assert not looks_like_call("The owner of payments-api is the platform team.", list(OFFERED))


def test_wilson_interval_hand_worked():
    # 0 of 10: the upper bound is z^2 / (n + z^2) = 3.8415 / 13.8415
    lo, hi = metrics.wilson(0, 10)
    assert lo == 0 and hi == pytest.approx(0.27753, abs=1e-5)
    lo, hi = metrics.wilson(5, 10)  # the textbook 0.2366 .. 0.7634
    assert (lo, hi) == (pytest.approx(0.23659, abs=1e-5), pytest.approx(0.76341, abs=1e-5))
    assert all(math.isnan(x) for x in metrics.wilson(0, 0))


def test_mcnemar_exact_hand_worked():
    assert metrics.mcnemar(1, 6) == 2 * (1 + 7) / 2 ** 7  # 0.125
    assert metrics.mcnemar(0, 5) == 2 / 32
    assert metrics.mcnemar(3, 3) == 1.0 and metrics.mcnemar(0, 0) == 1.0


def rec(i, outcome, expected, called, gold, repeat=0):
    return {"id": str(i), "repeat": repeat, "outcome": outcome, "expected": expected, "called": called,
            "gold": gold, "args_valid": None, "args_match": None}


RECORDS = [rec(1, "right", "a", "a", ["a"]), rec(2, "right", "a", "a", ["a"]), rec(3, "wrong", "a", "b", ["a"]),
           rec(4, "skip", "b", "none", ["b"]), rec(5, "right", "b", "b", ["b"]),
           rec(6, "false_call", "none", "a", []), rec(7, "no_call", "none", "none", []),
           rec(8, "invalid", "b", "invalid", ["b"]), rec(1, "wrong", "a", "b", ["a"], repeat=1)]


def test_summary_per_tool_and_confusion_hand_worked():
    s = metrics.summary(RECORDS)  # 8 first answers: 3 right + 1 no_call correct
    assert (s["queries"], s["need_tool"], s["need_none"]) == (8, 6, 2)
    assert s["accuracy"]["rate"] == 4 / 8 and s["skip_rate"]["rate"] == 1 / 6
    assert s["false_call_rate"]["rate"] == 1 / 2 and s["invalid_rate"]["rate"] == 1 / 8
    rows, cols, m = metrics.confusion(RECORDS, ["a", "b"])
    assert rows == ["a", "b", "none"] and cols == ["a", "b", "none", "invalid"]
    assert m == [[2, 1, 0, 0], [0, 1, 1, 1], [1, 0, 1, 0]]
    a, b = metrics.per_tool(RECORDS, ["a", "b"])
    assert (a["expected"], a["called"], a["right"], a["precision"], a["recall"]) == (3, 3, 2, 2 / 3, 2 / 3)
    assert (b["expected"], b["called"], b["precision"], b["recall"], b["skip_rate"]) == (3, 2, 1 / 2, 1 / 3, 1 / 3)
    assert metrics.agreement(RECORDS) == metrics.rate(0, 1)  # query 1: right, then wrong
