"""Phase and core globs compiled once match exactly what `fnmatch.fnmatchcase` matches."""

from __future__ import annotations

import fnmatch

from hypothesis import given, settings
from hypothesis import strategies as st

from toolsurvey.core.globs import any_glob, tags_match

ALPHABET = "ab_/*?[]!-."
texts = st.text(ALPHABET, max_size=8)


@settings(max_examples=300, deadline=None)
@given(st.lists(texts, max_size=4), texts, texts)
def test_any_glob_equals_fnmatchcase(patterns, name, key):
    expected = any(fnmatch.fnmatchcase(name, p) or fnmatch.fnmatchcase(key, p) for p in patterns)
    assert bool(any_glob(patterns)(name, key)) == expected


def test_case_sensitive_and_whole_string():
    match = any_glob(["get_*", "ops/restart?"])
    assert match("get_user") and match("x", "ops/restart1")
    assert not match("Get_user") and not match("forget_user") and not match("ops/restart12")


def test_tags_need_every_wanted_tag():
    assert tags_match({"phase": "deploy", "team": "ops"}, {"phase": "dep*", "team": "ops"})
    assert not tags_match({"phase": "deploy"}, {"phase": "dep*", "team": "ops"})
    assert not tags_match({"phase": "deploy"}, {})
