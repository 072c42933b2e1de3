"""The depth-proof JSON helpers: parse, serialize and fragment any JSON exactly as the json module would."""

import json

import pytest
from _oracle import compact
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsurvey.core import jsontree as J

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=8), inner, max_size=5)), max_leaves=30)


@given(json_values)
@settings(max_examples=200, deadline=None)
def test_fragments_join_to_json_dumps_compact(value):
    texts, pids, occ = J.fragments(value, J.PathTable())
    assert "".join(texts) == compact(value)
    assert len(texts) == len(pids)


@given(json_values)
@settings(max_examples=200, deadline=None)
def test_sorted_fragments_join_to_json_dumps_sort_keys(value):
    texts, _, _ = J.fragments(value, J.PathTable(), sort_keys=True)
    oracle = json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    assert "".join(texts) == oracle == J.compact(value, sort_keys=True)
    assert J.canonical(compact([value])) == f"[{oracle}]"  # JSON text read, then written sorted


@given(json_values)
@settings(max_examples=200, deadline=None)
def test_iterative_parser_agrees_with_json_loads(value):
    for text in (compact(value), json.dumps(value, indent=2)):
        assert J._loads_iterative(text) == json.loads(text)


@pytest.mark.parametrize("bad", ["[1,]", '{"a"}', "[1", '{"a":1,}', "1 2", "", "{'a':1}", "[01]"])
def test_iterative_parser_rejects_what_json_rejects(bad):
    with pytest.raises(json.JSONDecodeError):
        json.loads(bad)
    with pytest.raises(json.JSONDecodeError):
        J._loads_iterative(bad)


def test_ten_thousand_levels_parse_serialize_and_fragment_without_recursion_error():
    text = '{"a":' * 5000 + "[" * 5000 + "1" + "]" * 5000 + "}" * 5000
    with pytest.raises(RecursionError):
        json.loads(text)  # the reason the iterative path exists
    value = J.loads(text)
    assert J.depth(value) == 10_000
    assert J.compact(value) == text
    deep = {"b": 1, "a": value}  # sorted: the deep member goes first, each of its levels sorted too
    assert J.compact(deep, sort_keys=True) == '{"a":' + text + ',"b":1}' == J.canonical(J.compact(deep))
    texts, pids, _ = J.fragments(value, table := J.PathTable(), max_depth=32)
    assert "".join(texts) == text
    assert max(table.depth) == 32  # deeper paths fold into their ancestor at depth 32


def test_path_names_fold_list_items_and_mark_the_root():
    value = [{"labels": [{"name": "bug"}], "user": {"login": "x"}}]
    texts, pids, occ = J.fragments(value, t := J.PathTable())
    names = {t.name(i) for i in pids}
    assert names == {"(root)", "[]", "[].labels", "[].labels[]", "[].labels[].name", "[].user", "[].user.login"}
    assert J.path_parts("[].labels[].name") == J.path_parts("labels.name") == ("labels", "name")
