"""Trimming strategies: each one's effect worked out by hand, its token record checked with tiktoken."""

import csv
import io
import json

import pytest
from _oracle import compact, ntok
from hypothesis import given, settings
from hypothesis import strategies as st

import toolsurvey as ts
from toolsurvey.errors import InputError
from toolsurvey.measuring.trimming.serialize import to_text
from toolsurvey.measuring.trimming.steps import cap_lists, keep_paths, remove_empty
from toolsurvey.measuring.trimming.truncation import truncate_strings

ENC = ts.get_encoding("o200k_base")


ISSUES = [
    {"number": 2, "title": "Crash | on save", "state": "open", "body": "long " * 50, "milestone": None,
     "user": {"login": "ana", "url": "https://x/ana"}, "labels": [{"name": "bug", "color": "f00"}],
     "assignees": [], "comments": 3, "updated_at": "2026-10-08T10:00:00Z", "meta": {"a": "", "b": {}}},
    {"number": 1, "title": "Docs typo", "state": "closed", "body": "", "milestone": None,
     "user": {"login": "bo", "url": "https://x/bo"}, "labels": [{"name": "docs", "color": "00f"},
                                                               {"name": "good first issue", "color": "0f0"}],
     "assignees": [], "comments": 0, "updated_at": "2026-10-07T09:00:00Z", "meta": {}},
]
SIX = "number,title,state,labels[].name,comments,updated_at"


def by_hand_six(issues):
    return [{"number": i["number"], "title": i["title"], "state": i["state"],
             "labels": [{"name": label["name"]} for label in i["labels"]], "comments": i["comments"],
             "updated_at": i["updated_at"]} for i in issues]


def test_keep_six_fields_equals_the_hand_projection_and_records_tokens():
    t = ts.trim(ISSUES, keep=SIX)
    assert t.value == by_hand_six(ISSUES)
    assert t.text == compact(by_hand_six(ISSUES))
    assert t.tokens_before == ntok(compact(ISSUES))
    assert t.tokens_after == ntok(compact(by_hand_six(ISSUES)))
    assert t.ratio == pytest.approx(ntok(compact(ISSUES)) / ntok(compact(by_hand_six(ISSUES))))
    keep_step = t.steps[1]
    assert keep_step["saved"] == t.tokens_before - t.tokens_after
    assert "[].body (2)" in keep_step["dropped"] and "[].labels[].color (3)" in keep_step["dropped"]


def test_keep_path_that_matches_nothing_is_warned():
    t = ts.trim(ISSUES, keep="number,titel")
    assert t.value == [{"number": 2}, {"number": 1}]
    assert t.unmatched == {"keep": ["titel"]}
    assert any("titel" in w and "matched nothing" in w for w in t.warnings)


def test_drop_paths_removes_exactly_those_members():
    t = ts.trim(ISSUES, drop="body,user.url,labels[].color")
    expected = json.loads(json.dumps(ISSUES))
    for i in expected:
        del i["body"], i["user"]["url"]
        for label in i["labels"]:
            del label["color"]
    assert t.value == expected


def test_drop_empty_removes_null_empty_string_list_object_recursively_but_keeps_list_positions():
    value = {"a": None, "b": "", "c": [], "d": {}, "e": {"f": {"g": None}}, "h": [None, "", 0], "i": False, "j": 0}
    out, dropped = remove_empty(value)
    assert out == {"h": [None, "", 0], "i": False, "j": 0}
    assert dropped["e"] == 1 and dropped["e.f"] == 1 and dropped["e.f.g"] == 1


def test_truncate_by_chars_and_by_tokens_cuts_where_a_word_ends_and_marks_the_full_size():
    text = "The quick brown fox jumps over the lazy dog " * 5  # 44 chars x 5 = 220
    out, cut, whole = truncate_strings({"t": text, "short": "ok"}, 10)
    # "The quick" is the longest run of whole words within 10 chars ("The quick " would end in a space)
    assert out == {"t": "The quick …[220 chars total]", "short": "ok"}
    assert cut == {"t": 1} and whole == {}
    out, _, _ = truncate_strings({"t": text}, 4, unit="tokens")
    kept, mark = out["t"].split(" …[")
    assert kept == "The quick brown fox" and ntok(kept) == 4  # The, quick, brown, fox
    assert mark.endswith(" tokens total]") and int(mark.split()[0]) >= ntok(text)


def test_a_string_just_over_the_limit_is_kept_whole_when_the_cut_would_cost_more_than_it_saves():
    # "Crash | on save" is 4 tokens; the marker " …[15 chars total]" alone is 6
    out, cut, whole = truncate_strings({"title": "Crash | on save"}, 8)
    assert out == {"title": "Crash | on save"} and cut == {} and whole == {"title": 1}
    t = ts.trim({"title": "Crash | on save"}, truncate=8)
    assert t.steps[-2]["saved"] == 0
    assert t.steps[-2]["dropped"].startswith("nothing cut; 1 string(s) over the limit kept whole")


def test_cap_lists_keeps_the_first_items_and_counts_the_rest():
    out, left = cap_lists({"items": list(range(12)), "small": [1, 2]}, 5)
    assert out["items"][:5] == [0, 1, 2, 3, 4]
    assert out["items"][5] == "[+7 more items]"
    assert out["small"] == [1, 2] and left == {"items": 7}


def test_csv_serialization_round_trips_through_the_csv_module():
    six = by_hand_six(ISSUES)
    text, warning = to_text(six, "csv")
    assert warning is None
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["title"] for r in rows] == ["Crash | on save", "Docs typo"]
    assert rows[1]["labels"] == "docs; good first issue"  # single-key records join with '; '
    assert rows[0]["number"] == "2"


def test_markdown_table_escapes_pipes_and_shows_the_omitted_marker():
    t = ts.trim(ISSUES, keep=SIX, max_items=1, serialize="markdown")
    lines = t.text.strip().splitlines()
    assert lines[0] == "| number | title | state | labels | comments | updated_at |"
    assert lines[2] == "| 2 | Crash \\| on save | open | bug | 3 | 2026-10-08T10:00:00Z |"
    assert lines[3] == "[+1 more items]"
    assert t.tokens_after == ntok(t.text)


def test_table_serialization_of_a_non_list_keeps_compact_json_with_a_warning():
    t = ts.trim({"total": 2, "items": ISSUES}, serialize="csv")
    assert t.text == compact({"total": 2, "items": ISSUES})
    assert any("needs a list of records" in w for w in t.warnings)


def test_strategies_compose_and_every_step_is_measured_with_tiktoken():
    t = ts.trim(ISSUES, drop="user", drop_empty=True, max_items=1, truncate=8, serialize="pretty")
    names = [s["step"] for s in t.steps]
    assert names == ["as received", "drop user", "drop empty", "max 1 items", "truncate 8 chars", "serialize pretty"]
    for prev, s in zip(t.steps, t.steps[1:], strict=False):
        assert s["saved"] == prev["tokens"] - s["tokens"]
    assert t.text == json.dumps(t.value, indent=2, ensure_ascii=False)
    assert t.tokens_after == ntok(t.text)
    # the title is kept whole (cutting it saves less than its marker costs); the body is cut after "long"
    assert t.value[0]["title"] == "Crash | on save" and "milestone" not in t.value[0]
    assert t.value[0]["body"] == "long …[250 chars total]"


def test_text_payloads_only_truncate_and_say_so():
    t = ts.trim("plain text " * 30, keep="x", truncate=11)
    assert t.text == "plain text …[330 chars total]"  # 11 chars x 30; the cut ends before a space
    assert any("only truncation applies" in w for w in t.warnings)


def test_trimming_a_payload_too_deep_to_walk_is_an_input_error_not_a_recursion_error():
    deep = ts.Payload.from_text("[" * 10_000 + "]" * 10_000, "t")
    with pytest.raises(InputError, match="10,000 levels deep"):
        ts.trim(deep, keep="a")
    # measuring with trimming keeps going and reports it
    table = ts.measure_responses([deep, ts.Payload.from_value({"a": 1, "b": 2}, "t")], trimming={"keep": "a"})
    assert list(table["trimmed"]) == [table["tokens"][0], ntok('{"a":1}')]
    assert any("not trimmed" in w for w in table.attrs["warnings"])


def test_keep_path_matching_nothing_across_a_trace_is_warned_once():
    ps = [ts.Payload.from_value({"a": 1}, "x"), ts.Payload.from_value({"b": 1}, "y")]
    table = ts.measure_responses(ps, trimming={"keep": "a,b,zzz"})
    w = [x for x in table.attrs["warnings"] if "matched nothing" in x]
    assert w == ["keep path(s) matched nothing in any result: zzz"]


def test_bad_options_are_input_errors():
    with pytest.raises(InputError, match="serialization"):
        ts.trim(ISSUES, serialize="yaml")
    with pytest.raises(InputError, match="max_items"):
        ts.trim(ISSUES, max_items=-1)
    with pytest.raises(InputError, match="names no field"):
        ts.trim(ISSUES, keep="[]")


records = st.lists(st.dictionaries(st.sampled_from(["a", "b", "c", "d"]),
                                   st.one_of(st.none(), st.integers(), st.text(max_size=10),
                                             st.lists(st.integers(), max_size=3)), max_size=4), max_size=5)


@given(records, st.sets(st.sampled_from(["a", "b", "c", "d"]), min_size=1))
@settings(max_examples=100, deadline=None)
def test_keep_and_drop_of_the_same_fields_partition_each_record(value, fields):
    kept, _, _ = keep_paths(value, sorted(fields))
    dropped = ts.trim(value, drop=sorted(fields)).value
    for orig, k, d in zip(value, kept, dropped, strict=True):
        assert set(k) == set(orig) & fields and set(d) == set(orig) - fields
        assert {**k, **d} == orig


@given(records)
@settings(max_examples=100, deadline=None)
def test_keeping_every_field_changes_nothing(value):
    t = ts.trim(value, keep="a,b,c,d")
    assert t.value == value and t.tokens_after == t.tokens_before


def test_a_keep_path_inside_another_kept_path_is_not_reported_as_unmatched():
    t = ts.trim(ISSUES, keep="user,user.login,title")
    assert t.value == [{"title": i["title"], "user": i["user"]} for i in ISSUES]
    assert t.unmatched == {"keep": []} and t.warnings == []
