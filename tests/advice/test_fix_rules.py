"""Each rewrite rule on schemas written by hand: what it removes (the expected schema written here),
what it must leave alone (data that looks like a keyword), and the places its precondition refuses,
each refusal checked against the equivalence test: the naive rewrite there is caught by it with a
counterexample, so that test can fail and the precondition is what keeps it passing."""

from __future__ import annotations

import pytest
from test_fix_equivalence import same_verdicts

from toolsurvey.advice.fix.rewrite import rewrite
from toolsurvey.advice.fix.rules import RULES
from toolsurvey.core.registry import Registry, Tool
from toolsurvey.errors import InputError


def apply(rule: str, schema: dict, name: str = "search_docs", description: str = "Search the docs.", **extra):
    return RULES[rule].apply(Tool(name, description, schema, extra=extra))


OPTIONAL_ENUM = {"type": "object", "properties": {"order": {
    "anyOf": [{"type": "string", "enum": ["asc", "desc"]}, {"type": "null"}], "default": None, "title": "Order"}}}


def test_pydantic_noise_goes_and_data_named_like_keywords_stays():
    schema = {"type": "object", "title": "search_docsArguments", "properties": {
        "user_id": {"type": "string", "title": "User Id"},
        "title": {"type": "string", "title": "Title of the page", "default": None},
        "$schema": {"type": "string", "description": "a property named $schema"}},
        "required": ["user_id"]}
    assert apply("drop-restated-title", schema).schema == {"type": "object", "properties": {
        "user_id": {"type": "string"}, "title": {"type": "string", "title": "Title of the page", "default": None},
        "$schema": {"type": "string", "description": "a property named $schema"}}, "required": ["user_id"]}
    assert apply("drop-default-null", schema).schema["properties"]["title"] == {"type": "string",
                                                                                  "title": "Title of the page"}
    assert apply("drop-dollar-schema", schema).sites == []  # the property named $schema is data


def test_default_null_on_a_required_property_stays():
    schema = {"type": "object", "properties": {"q": {"type": ["string", "null"], "default": None}}, "required": ["q"]}
    assert apply("drop-default-null", schema).sites == []


def test_collapse_of_a_plain_optional_and_refusal_of_an_optional_enum():
    schema = {"type": "object", "properties": {"q": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "null"}],
                                                     "description": "query"}}}
    assert apply("collapse-nullable-anyof", schema).schema["properties"]["q"] == {
        "type": ["string", "null"], "minLength": 1, "description": "query"}
    change = apply("collapse-nullable-anyof", OPTIONAL_ENUM)
    assert change.schema == OPTIONAL_ENUM and "enum" in change.refused[0]
    naive = {**OPTIONAL_ENUM, "properties": {"order": {"type": ["string", "null"], "enum": ["asc", "desc"],
                                                       "default": None}}}
    bad = same_verdicts([("naive collapse", OPTIONAL_ENUM, naive)], examples=50)
    assert any(x == {"order": None} or (isinstance(x, dict) and x.get("order") is None) for _, x in bad)


def test_collapse_is_left_to_strict_tools_and_unsafe_for_gemini():
    assert apply("collapse-nullable-anyof", OPTIONAL_ENUM, strict=True).refused
    reg = Registry.from_tools([Tool("t", "d", {"type": "object", "properties": {
        "q": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}, server="mine")])
    assert not rewrite(reg, "mine").applied  # every provider, Google among them: not applied
    assert [a.rule for a in rewrite(reg, "mine", providers=["openai", "anthropic"]).applied] == ["collapse-nullable-anyof"]


DRAFT7_REF = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
              "properties": {"n": {"$ref": "#/definitions/N", "maximum": 3}}, "definitions": {"N": {"type": "integer"}}}


def test_a_draft_07_schema_whose_meaning_changes_keeps_its_dollar_schema():
    change = apply("drop-dollar-schema", DRAFT7_REF)
    assert change.schema == DRAFT7_REF and "beside $ref" in change.refused[0]
    naive = {k: v for k, v in DRAFT7_REF.items() if k != "$schema"}  # 2020-12 applies maximum beside $ref
    assert same_verdicts([("naive $schema drop", DRAFT7_REF, naive)], examples=50)
    plain = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"a": {"type": "string"}}}
    assert apply("drop-dollar-schema", plain).schema == {"type": "object", "properties": {"a": {"type": "string"}}}


def test_inlining_refuses_keywords_beside_a_ref_cycles_and_anchors():
    assert "beside it" in apply("inline-refs", DRAFT7_REF).refused[0]
    cyclic = {"type": "object", "properties": {"t": {"$ref": "#/$defs/T"}},
              "$defs": {"T": {"type": "object", "properties": {"child": {"$ref": "#/$defs/T"}}}}}
    assert "refers to itself" in apply("inline-refs", cyclic).refused[0]
    anchored = {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"$anchor": "x"}}}
    assert "$anchor" in apply("inline-refs", anchored).refused[0]
    ok = {"type": "object", "properties": {"a": {"$ref": "#/$defs/A", "description": "the a"},
                                           "b": {"$ref": "#/$defs/A"}},
          "$defs": {"A": {"type": "string", "description": "an A", "enum": ["x", "y"]}}}
    assert apply("inline-refs", ok).schema == {"type": "object", "properties": {
        "a": {"type": "string", "description": "the a", "enum": ["x", "y"]},
        "b": {"type": "string", "description": "an A", "enum": ["x", "y"]}}}


def test_descriptions_said_twice_and_additional_properties_true():
    schema = {"type": "object", "description": "Search the docs.", "additionalProperties": True,
              "properties": {"q": {"description": "words", "anyOf": [{"type": "string", "description": "words"},
                                                                    {"type": "null"}]}}}
    out = apply("drop-duplicate-description", schema).schema
    assert "description" not in out and out["properties"]["q"]["anyOf"][0] == {"type": "string"}
    assert "additionalProperties" not in apply("drop-additional-properties-true", schema).schema
    closed = {**schema, "additionalProperties": False}
    assert apply("drop-additional-properties-true", closed).sites == []


def test_rewrite_touches_only_owned_servers_and_needs_them_named():
    tool = {"type": "object", "properties": {"q": {"type": "string", "title": "Q"}}}
    reg = Registry.from_tools([Tool("a", "d", tool, server="mine"), Tool("b", "d", tool, server="theirs")])
    rw = rewrite(reg, "mine")
    assert [a.key for a in rw.applied] == ["mine/a"] and rw.after.servers["theirs"].tools == reg.servers["theirs"].tools
    with pytest.raises(InputError, match="--own"):
        rewrite(reg, None)
    with pytest.raises(InputError, match="unknown rewrite rule"):
        rewrite(reg, "mine", rules=["nope"])
