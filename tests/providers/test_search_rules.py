"""The providers' documented deferred loading (providers.toml [search.*]): the figures below are
copied from the providers' pages (named in each comment), not from the file under test."""

from __future__ import annotations

import fnmatch

import pytest

from toolsurvey.errors import InputError
from toolsurvey.providers.prices import bundled_prices
from toolsurvey.providers.search import check_model, search_names, search_rules, searches_for


def test_anthropic_variants_as_documented():
    for name, tool_type in (("anthropic-bm25", "tool_search_tool_bm25_20251119"),
                            ("anthropic-regex", "tool_search_tool_regex_20251119")):
        r = search_rules(name)
        assert r.provider == "anthropic" and r.tool_type == tool_type
        # Tool search tool, Limits: "each search returns up to 5 matching tools by default";
        # "10,000 tools with defer_loading: true per request"
        assert (r.results_per_search, r.max_results, r.max_deferred_tools) == (5, 10_000, 10_000)
        assert r.min_non_deferred == 1  # "At least one tool must have defer_loading=false"
        assert r.search_tool_tokens == 500  # Engineering post: "Tool Search Tool loaded upfront (~500 tokens)"
        assert r.deferred_visible == "nothing" and r.loaded_at == "conversation" and r.cache == "kept"
        assert r.usage_field.endswith("server_tool_use.tool_search_requests")
        assert r.as_of and r.url.startswith("https://") and "Tool search tool" in r.source
    assert "200 characters" in search_rules("anthropic-regex").query
    assert "500 characters" in search_rules("anthropic-bm25").query


def test_openai_tool_search_as_documented():
    r = search_rules("openai")
    assert r.loaded_at == "end of context" and r.visible_advice == 20 and r.namespace_advice == 10
    assert r.deferred_visible == "name and description"
    assert "assumes" in r.assumed  # the per-search count and the tool's size are not documented
    assert [s.name for s in searches_for("openai")] == ["openai"]
    assert {s.name for s in searches_for("anthropic")} == {"anthropic-bm25", "anthropic-regex"}
    assert searches_for("google") == []


@pytest.mark.parametrize("model, name, ok", [
    ("claude-sonnet-4-5-20250929", "anthropic-bm25", True),
    ("claude-haiku-4-5", "anthropic-regex", True),
    ("claude-opus-4-6", "anthropic-bm25", True),
    ("claude-fable-5-1", "anthropic-bm25", True),
    ("claude-opus-4-1", "anthropic-bm25", False),    # "Claude Opus 4.1 and earlier models don't support"
    ("claude-sonnet-4-20250514", "anthropic-bm25", False),
    ("claude-3-5-haiku-20241022", "anthropic-regex", False),
    ("gpt-5.4", "openai", True),                     # "Only gpt-5.4 and later models support tool_search"
    ("gpt-5.5-pro", "openai", True),
    ("gpt-5.2", "openai", False),
    ("gpt-4o", "openai", False),
])
def test_model_support(model, name, ok):
    r = search_rules(name)
    assert r.supports(model) is ok
    if ok:
        check_model(r, model)
    else:
        with pytest.raises(InputError, match=r"claude-sonnet-4-5\*|gpt-5\.4\*") as e:
            check_model(r, model)
        assert model in str(e.value)


def test_every_model_pattern_names_a_priced_model():
    # a pattern that matches no model the price table knows is a typo or a guess
    prices = list(bundled_prices())
    for name in search_names()[:-1]:
        for pat in search_rules(name).models:
            assert any(fnmatch.fnmatchcase(m, pat) for m in prices), (name, pat)


def test_unknown_search_names_the_known_ones():
    assert search_names()[-1] == "custom"
    with pytest.raises(InputError, match="anthropic-bm25, anthropic-regex, openai"):
        search_rules("anthropic-fuzzy")
    with pytest.raises(InputError, match="custom"):
        search_rules("custom")
