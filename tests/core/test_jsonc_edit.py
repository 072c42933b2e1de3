"""JSON edits in place: other keys, their order, comments, trailing commas and indentation survive, and
the result parses to what a plain edit of the parsed value gives (the oracle: json.loads, then a dict edit)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolsurvey.core.jsonc import strip_comments
from toolsurvey.core.jsonc_edit import append, remove, set_value
from toolsurvey.errors import InputError

TEXT = '''{
  // the user's settings
  "model": "opus", /* kept */
  "permissions": {
    "allow": ["Bash(ls)"],
    "deny": [
      "Bash(rm *)",
    ],
  },
}
'''


def parsed(text):
    return json.loads(strip_comments(text))


def test_append_keeps_comments_order_and_layout():
    out = append(TEXT, ("permissions", "deny"), "mcp__a__b")
    assert "// the user's settings" in out and "/* kept */" in out
    assert '      "Bash(rm *)",\n      "mcp__a__b"' in out
    assert parsed(out)["permissions"] == {"allow": ["Bash(ls)"], "deny": ["Bash(rm *)", "mcp__a__b"]}
    assert list(parsed(out)) == ["model", "permissions"]


def test_set_creates_missing_objects_at_the_end_and_remove_takes_one_member():
    out = set_value(TEXT, ("env", "ENABLE_TOOL_SEARCH"), "true")
    assert list(parsed(out)) == ["model", "permissions", "env"] and parsed(out)["env"] == {"ENABLE_TOOL_SEARCH": "true"}
    out = remove(out, ("model",))
    assert list(parsed(out)) == ["permissions", "env"] and "// the user's settings" in out


def test_a_list_where_an_object_is_expected_is_one_line():
    with pytest.raises(InputError, match="expected a list at permissions.deny"):
        append('{"permissions": {"deny": "x"}}', ("permissions", "deny"), "y")
    with pytest.raises(InputError, match="expected an object at permissions"):
        append('{"permissions": []}', ("permissions", "deny"), "y")


KEYS = st.text(st.sampled_from("abcxyz_"), min_size=1, max_size=4)
VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=4),
                      lambda v: st.lists(v, max_size=3) | st.dictionaries(KEYS, v, max_size=3), max_leaves=8)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(KEYS, VALUES, max_size=4), st.lists(KEYS, min_size=1, max_size=3), VALUES,
       st.sampled_from([None, 2]))
def test_set_matches_a_dict_edit(doc, path, value, indent):
    text = json.dumps(doc, indent=indent)
    expected = json.loads(text)
    node = expected
    try:
        for k in path[:-1]:
            node = node.setdefault(k, {})
            if not isinstance(node, dict):
                raise TypeError
    except TypeError:
        with pytest.raises(InputError):
            set_value(text, tuple(path), value)
        return
    node[path[-1]] = value
    assert json.loads(set_value(text, tuple(path), value)) == expected
