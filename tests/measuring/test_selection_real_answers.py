"""The eval's outcome classification on real answers of a small local model
(tests/data/model_answers/: captured from llama-cpp-python's server with Gemma 3 270M, with their
source and licence). The expected outcomes are the hand labels of that folder's README, from the
definitions in docs/eval.md; nothing here reruns the model.

The model's choices say nothing about any user's agent: these are shapes of answers, not scores.
"""

import json

import pytest
from conftest import DATA, TESTS

import toolsurvey as ts
from toolsurvey.measuring.selection.outcomes import classify, make_call
from toolsurvey.measuring.selection.request import offered
from toolsurvey.providers.eval_apis import client

ANSWERS = TESTS / "data" / "model_answers" / "gemma3-270m.jsonl"
# line -> (outcome, args_valid), from tests/data/model_answers/README.md; None: a failed request.
# args_valid is None without a call, and False for arguments that are not JSON (docs/eval.md).
HAND = {1: ("skip", None), 2: ("skip", None), 3: ("invalid", False), 4: ("invalid", False), 5: ("invalid", False),
        6: ("invalid", False), 7: ("invalid", False), 8: ("invalid", False), 9: ("right", True), 10: ("wrong", True),
        11: None}


def lines():
    return [json.loads(x) for x in ANSWERS.read_text("utf-8").splitlines()]


@pytest.fixture(scope="module")
def offers(tmp_path_factory):
    """The two visible sets the answers were given: all 63 tools, and the catalog server's 9."""
    sample = DATA / "registries" / "ops_assistant.json"
    catalog = tmp_path_factory.mktemp("catalog") / "catalog.json"
    catalog.write_text(json.dumps({"servers": {"catalog": json.loads(sample.read_text("utf-8"))["servers"]["catalog"]}}))
    return {63: offered(ts.load(sample), "openai-chat"), 9: offered(ts.load(catalog), "openai-chat")}


def test_the_captures_are_what_the_readme_labels():
    got = lines()
    assert len(got) == len(HAND)
    assert [r["status"] for r in got] == [200] * 10 + [500]


@pytest.mark.parametrize("line", sorted(k for k, v in HAND.items() if v))
def test_each_real_answer_gets_its_hand_labelled_outcome(line, offers):
    pytest.importorskip("openai")
    rec = lines()[line - 1]
    off = offers[rec["request"]["tools_count"]]
    assert [t["function"]["name"] for t in off.tools] and rec["request"]["tools_count"] == len(off.tools)
    reader = client("openai-chat", rec["request"]["model"], base_url="http://127.0.0.1:1/v1", require_key=False)
    answer = reader.read(rec["response"])
    calls = [make_call(n, a, off.by_name) for n, a in answer.calls]
    v = classify(rec["gold"], calls, answer.text, off.schemas, None, off.names)
    assert (v.outcome, v.args_valid) == HAND[line], (rec["id"], v)
