"""A result carrying a lone surrogate escape ("\\ud800") is measured, attributed and trimmed like
the U+FFFD tiktoken encodes in its place; it never crashes the command."""

import json

from toolsurvey import field_costs, measure_responses, trim
from toolsurvey.core.tokens import get_encoding

RAW = '{"title": "bad \\ud800 text", "labels": [{"name": "x\\udfff"}], "n": 3}'


def _oracle(value) -> int:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return len(get_encoding().encode_ordinary(text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")))


def test_measured_like_the_replacement_character(tmp_path):
    p = tmp_path / "r.json"
    p.write_text(RAW)
    table = measure_responses(p)
    assert int(table["tokens"].iloc[0]) == _oracle(json.loads(RAW))


def test_fields_still_add_up_to_the_payload(tmp_path):
    p = tmp_path / "r.json"
    p.write_text(RAW)
    costs = field_costs(p)
    root = costs[costs["path"] == "(root)"]["tokens"].iloc[0]
    assert root == _oracle(json.loads(RAW))
    assert costs[costs["depth"] == 1]["tokens"].sum() + costs[costs["path"] == "(root)"]["own"].iloc[0] == root


def test_trimming_keeps_counting(tmp_path):
    result = trim(json.loads(RAW), keep="title")
    assert result.tokens_before == _oracle(json.loads(RAW))
    assert result.tokens_after == _oracle({"title": json.loads(RAW)["title"]})


def test_cli_exits_cleanly(tmp_path, cli):
    p = tmp_path / "r.json"
    p.write_text(RAW)
    for extra in ([], ["--by", "field"], ["--keep", "title", "--max-items", "1"]):
        code, _, err = cli("responses", p, *extra)
        assert code == 0, err
