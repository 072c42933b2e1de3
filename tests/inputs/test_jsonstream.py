"""A large JSON result is measured as a stream of its compact JSON: the same figures, field by field,
as the result parsed whole, and a fraction of the memory."""

from __future__ import annotations

import json
import random

import pandas as pd
import pytest
from _memory import run_measured
from _oracle import compact, ntok
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsurvey.core import jsontree as _jsontree
from toolsurvey.inputs import jsonstream as _jsonstream
from toolsurvey.inputs import payload_sources
from toolsurvey.measuring.responses import field_costs, measure_responses


def _measured(path, stream: bool, **kw) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(per-result table, per-field table) of one file, streamed or parsed whole."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(payload_sources, "STREAM_JSON_BYTES", 0 if stream else float("inf"))
        return measure_responses(path), field_costs(path, **kw)


def _assert_same(path, **kw) -> pd.DataFrame:
    """The streamed figures are the parsed ones, every field, every column, warnings included."""
    (table, costs), (table0, costs0) = _measured(path, True, **kw), _measured(path, False, **kw)
    pd.testing.assert_frame_equal(table, table0)
    pd.testing.assert_frame_equal(costs, costs0)
    assert costs.attrs == costs0.attrs and table.attrs == table0.attrs
    return costs


def _streams(path) -> bool:
    try:
        for _ in _jsonstream.fragments(path, _jsontree.PathTable()):
            pass
    except _jsonstream.NotStreamable:
        return False
    return True


DOCS = {
    "nested objects and arrays of objects": {"items": [{"id": 1, "user": {"login": "a", "site_admin": False},
                                                        "labels": [{"name": "bug"}, {"name": "ui"}]},
                                                       {"id": 2, "user": None, "labels": [], "extra": {}}],
                                             "total_count": 2},
    "unicode and escapes": {"名前": "héllo wörld 😀", "q": 'say "hi"\\ \n\t\u0000\u001f/', "e\u0301": ["\u2028"]},
    "empty containers": [[], {}, [[]], [{}], {"a": {}, "b": []}],
    "scalars": [True, False, None, 0, -1, 10**30, 1.5, -0.0, 1e-7, 5e-324, 1.7976931348623157e308],
    "deep": {"a": {"b": {"c": {"d": {"e": {"f": [[[[{"g": 1}]]]]}}}}}},
}


@pytest.mark.parametrize("name", DOCS)
@pytest.mark.parametrize("indent", [None, 2])
def test_streamed_fields_match_the_parsed_result_and_tiktoken(tmp_path, name, indent):
    path = tmp_path / "tool" / "r.json"
    path.parent.mkdir()
    path.write_text(json.dumps(DOCS[name], indent=indent, ensure_ascii=indent is None), encoding="utf-8")
    assert _streams(path)
    costs = _assert_same(path, max_depth=4)  # paths deeper than 4 fold into their ancestor, both ways
    assert costs.attrs["totals"] == {"tool": ntok(compact(DOCS[name]))}  # tiktoken on the whole compact JSON
    assert costs.loc[costs["path"] == "(root)", "tokens"].item() == ntok(compact(DOCS[name]))


def test_numbers_are_written_as_json_dumps_writes_the_parsed_value(tmp_path):
    # The event parser gives Decimal('1E+5') for 1e5; the model is sent what json.dumps writes of
    # json.loads' value: 100000.0, 0 for -0, Infinity for 1e400.
    text = '{"n": [1.0, 1e5, 1E+2, -0, -0.0, 1e400, -1e400, 0.1000000000000000055511151231257827, 1.5e-7, ' \
           '123456789012345678901234567890, 2.5E-3]}'
    path = tmp_path / "r.json"
    path.write_text(text)
    assert _streams(path)
    costs = _assert_same(path)
    assert costs.attrs["totals"] == {path.parent.name: ntok(compact(json.loads(text)))}
    assert "".join(b for t in _jsonstream.fragments(path, _jsontree.PathTable()) for b in t[0]) == (
        '{"n":[1.0,100000.0,100.0,0,-0.0,Infinity,-Infinity,0.1,1.5e-07,123456789012345678901234567890,0.0025]}')


def test_ten_thousand_levels_deep_streams(tmp_path):
    path = tmp_path / "r.json"
    path.write_text('{"a":' * 5000 + "[" * 5000 + "1" + "]" * 5000 + "}" * 5000)
    assert _streams(path)
    _assert_same(path)


@pytest.mark.parametrize("text, why", [
    ('{"a": NaN, "b": Infinity}', "NaN and Infinity: json reads them, the parser does not"),
    ('{"a": 1, "b": 2, "a": 3}', "a repeated key: json keeps the last value in the first place"),
    ('["\\ud800 lone", "\\udc00"]', "a lone surrogate escape: the parser turns it into '?'"),
    ('["\\\\\\ud83d"]', "an escaped backslash before a lone surrogate"),
    ('{"content": [{"type": "text", "text": "hi"}], "isError": false}', "an MCP result counts its blocks"),
    ('{"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "hi"}]}}', "a JSON-RPC response"),
    ('{"a":\f1}', "a form feed: whitespace to the parser, an error to json"),
    ('{"a": "\xff\xfe"}', "invalid UTF-8: replaced and warned about"),
    ('{"a": [1, 2', "cut short: measured as text with a warning"),
    ('[1] [2]', "two documents"),
])
def test_what_streaming_cannot_reproduce_is_read_whole_with_the_same_figures(tmp_path, text, why):
    path = tmp_path / "r.json"
    path.write_bytes(text.encode("latin-1") if "\xff" in text else text.encode())
    assert not _streams(path), why
    _assert_same(path)


def test_a_surrogate_pair_escape_streams(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"emoji": "😀" * 3, "k😀": ["\\ud800"]}))  # ensure_ascii writes pairs
    assert _streams(path)
    _assert_same(path)


_SCALARS = st.one_of(st.integers(-10**20, 10**20), st.booleans(), st.none(), st.floats(allow_nan=False, allow_infinity=False),
                     st.text(max_size=12))
_VALUES = st.recursive(_SCALARS, lambda kids: st.lists(kids, max_size=6) | st.dictionaries(
    st.text(max_size=5), kids, max_size=6), max_leaves=60)


@settings(max_examples=60, deadline=None)
@given(_VALUES.filter(lambda v: isinstance(v, dict | list)), st.sampled_from([None, 1]), st.booleans(),
       st.sampled_from([1, 1 << 20]))
def test_any_document_streams_to_the_parsed_figures(tmp_path_factory, value, indent, ascii_only, batch):
    # batch 1: every cut the tokenizer allows is taken, so the batching is exercised too
    path = tmp_path_factory.mktemp("doc") / "r.json"
    path.write_text(json.dumps(value, indent=indent, ensure_ascii=ascii_only), encoding="utf-8")
    with pytest.MonkeyPatch.context() as m:
        m.setattr(_jsontree, "BATCH_CHARS", batch)
        costs = _assert_same(path, max_depth=3)
    assert sum(costs.attrs["totals"].values()) == ntok(compact(value))


def test_keep_and_drop_still_trim_a_large_file(tmp_path, cli, monkeypatch):
    monkeypatch.setattr(payload_sources, "STREAM_JSON_BYTES", 0)
    path = tmp_path / "tool" / "r.json"
    path.parent.mkdir()
    doc = {"items": [{"id": i, "body": "long text " * 20} for i in range(30)]}
    path.write_text(json.dumps(doc))
    code, out, _ = cli("responses", path, "--keep", "items[].id", "--by", "payload", "--format", "json")
    assert code == 0
    row = json.loads(out)[0]
    assert row["tokens"] == ntok(compact(doc))
    assert row["trimmed"] == ntok(compact({"items": [{"id": i} for i in range(30)]}))


def test_a_streamed_file_keeps_the_input_limit(tmp_path, cli, monkeypatch):
    monkeypatch.setattr(payload_sources, "STREAM_JSON_BYTES", 0)
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"a": list(range(100))}))
    size = path.stat().st_size
    assert cli("responses", path, "--by", "field", "--max-input-bytes", size)[0] == 0
    code, _, err = cli("responses", path, "--by", "field", "--max-input-bytes", size - 1)
    assert code == 2 and f"more than the {size - 1:,}-byte input limit" in err and "Traceback" not in err


BY_FIELD = """
import sys
from toolsurvey.cli import main
sys.exit(main(["responses", sys.argv[1], "--by", "field", "--format", "csv", "-o", sys.argv[2]]))
"""


def test_a_50_mb_json_result_by_field_peaks_under_4x_the_file(tmp_path):
    # Parsed whole, a 100 MB result peaked at 10x the file (bench/responses_stream.py --json-mb 100).
    path = tmp_path / "search" / "r.json"
    path.parent.mkdir()
    rng = random.Random(0)
    words = "deploy fails when the cache is cold retry timeout user reports error after update".split()
    n = 0
    with open(path, "w", encoding="utf-8") as f:  # an item at a time: this process stays small too
        f.write('{"items": [')
        while f.tell() < 50_000_000:
            item = {"id": rng.randrange(10**9), "title": " ".join(rng.choices(words, k=8)),
                    "body": " ".join(rng.choices(words, k=60)), "labels": rng.choices(words, k=2), "n": None}
            f.write(("," if n else "") + json.dumps(item))
            n += 1
        f.write("]}")
    size = path.stat().st_size
    _, peak_kb = run_measured(BY_FIELD, path, tmp_path / "out.csv")
    rows = (tmp_path / "out.csv").read_text(encoding="utf-8").splitlines()
    occurrences = {r.split(",")[1]: r.split(",")[7] for r in rows[1:]}
    assert rows[0].split(",")[7] == "occurrences" and occurrences["items[].id"] == str(n)
    assert peak_kb * 1024 < 4 * size, f"peak {peak_kb * 1024 / size:.2f}x the file"


@pytest.mark.parametrize("escape, streams", [("\\ud83d\\ude00", True), ("\\ud800", False), ("\\\\ud800", True)])
def test_escapes_across_a_read_boundary_are_seen_whole(tmp_path, escape, streams):
    path = tmp_path / "r.json"
    for shift in range(14):  # the escape starts anywhere from 13 bytes before the 64 KiB read to just after it
        pad = (1 << 16) - 2 - 13 + shift
        path.write_text('["' + "x" * pad + escape + '"]')
        assert _streams(path) is streams, shift
