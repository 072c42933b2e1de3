"""providers.catalog: the one table of providers and renderings the other layers and the CLI ask."""

from __future__ import annotations

import pytest

import toolsurvey as ts
from toolsurvey.core.registry import Registry, Tool
from toolsurvey.errors import InputError
from toolsurvey.providers import catalog
from toolsurvey.providers.render import Overhead

REG = Registry.from_tools([Tool("get_weather", "Current weather for a city.",
                                {"type": "object", "properties": {"city": {"type": "string"}}})])


@pytest.mark.parametrize("render, model, tool_choice, tokens", [
    # Anthropic's "tool use system prompt token count" table, as published: auto/none vs any/tool
    ("anthropic", "claude-3-opus-20240229", "auto", 530), ("anthropic", "claude-3-opus-20240229", "any", 281),
    ("anthropic", "claude-sonnet-4-5", "none", 346), ("anthropic", "claude-sonnet-4-5", "tool", 313),
    ("anthropic", "claude-3-5-haiku-latest", "any", 340),
    # the OpenAI Cookbook's per-request constant, whatever tool_choice
    ("openai", "gpt-4o", "auto", 12), ("openai", "gpt-3.5-turbo", "required", 12),
    ("json", None, "auto", 0), ("sent", "gpt-4o", "any", 0),
])
def test_overhead_is_the_published_figure_and_footprint_charges_the_same(render, model, tool_choice, tokens):
    r = catalog.rendering(render)
    assert r.overhead(model, tool_choice).tokens == (tokens if model else 0)
    table = ts.footprint(REG, render=render, model=model, tool_choice=tool_choice if r.tool_choices else "auto")
    assert int(table["overhead"].sum()) == tokens  # one rule: the footprint's row is the rendering's overhead


def test_anthropic_tool_choice_is_checked_where_it_matters():
    r = catalog.rendering("anthropic")
    assert r.provider == "anthropic" and r.tool_choices == ("auto", "none", "any", "tool")
    with pytest.raises(InputError, match="unknown tool_choice 'required'; expected auto, none, any or tool"):
        r.overhead("claude-sonnet-4-5", "required")
    assert catalog.rendering("openai").tool_choices == ()  # its count does not depend on it


def test_unknown_rendering_and_provider_list_the_known_ones():
    with pytest.raises(InputError, match="unknown rendering 'xml'; expected one of: json, sent, openai, anthropic"):
        catalog.rendering("xml")
    with pytest.raises(InputError, match="expected one of: anthropic, openai, google"):
        catalog.provider("mistral")


@pytest.mark.parametrize("render, model, provider, expected", [
    ("auto", "claude-sonnet-4-5", "anthropic", ("anthropic", "claude-sonnet-4-5")),
    ("auto", "gpt-5", "openai", ("openai", "gpt-5")),
    ("auto", "gemini-2.5-pro", "google", ("json", None)),  # Google has no rendering of its own
    ("auto", "mistral-large", "mistral", ("json", None)),
    ("openai", "claude-sonnet-4-5", "anthropic", ("openai", None)),  # another provider's model: its default
    ("sent", "gpt-5", "openai", ("sent", None)),
])
def test_rendering_for_a_scenario(render, model, provider, expected):
    assert catalog.rendering_for(render, model, provider) == expected


def test_the_cli_choices_come_from_the_catalog(monkeypatch):
    """A rendering added to the table is offered by every command that takes --render, and its
    tool_choice values by footprint's --tool-choice: no command keeps a list of its own."""
    from toolsurvey.cli import build_parser
    from toolsurvey.providers.render import Rendering

    extra = Rendering("xml", "a test rendering", provider="acme", tool_choices=("auto", "whatever"))
    monkeypatch.setitem(catalog._RENDERINGS, "xml", extra)
    for argv in (["footprint", "t.json", "--render", "xml", "--tool-choice", "whatever"],
                 ["check", "t.json", "--render", "xml"], ["diff", "a.json", "b.json", "--render", "xml"],
                 ["simulate", "--render", "xml"], ["simulate", "--render", "auto"]):
        args = build_parser(argv[0]).parse_args(argv)
        assert args.render == argv[argv.index("--render") + 1]


def test_providers_facts_are_read_from_providers_toml():
    anthropic, openai, google = (catalog.provider(n) for n in ("anthropic", "openai", "google"))
    assert [anthropic.label, openai.label, google.label] == ["Anthropic", "OpenAI", "Google"]
    assert anthropic.key_vars == ("ANTHROPIC_API_KEY",) and google.key_vars == ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    assert openai.base_url(environ={}) == "https://api.openai.com/v1"
    assert anthropic.base_url(environ={"ANTHROPIC_BASE_URL": "http://proxy.local/"}) == "http://proxy.local"
    assert google.counting.name == "gemini" and google.counting.answer == "totalTokens"
    assert google.counting.path("gemini-2.5-flash") == "/v1beta/models/gemini-2.5-flash:countTokens"
    assert catalog.counting_names() == ["anthropic", "openai", "gemini"]
    assert openai.default_model == "gpt-4o" and catalog.rendering("openai").default_model() == "gpt-4o"
    assert [a.tools_format for a in catalog.APIS] == ["anthropic", "openai-chat", "openai-responses"]


def test_a_scenario_naming_no_model_prices_the_default_of_providers_toml(monkeypatch):
    assert ts.Scenario().model == "claude-sonnet-4-5" == catalog.default_model()  # Anthropic's default_model
    from toolsurvey.providers import constants

    edited = {**constants.provider_constants(), "scenario_provider": "openai"}
    monkeypatch.setattr(catalog, "provider_constants", lambda: edited)
    assert catalog.default_model() == "gpt-4o"


@pytest.mark.parametrize("model, row", [("gemini/gemini-2.5-pro", "gemini-2.5-pro"),
                                        ("anthropic/claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
                                        ("vertex_ai/gemini-2.5-pro", "gemini-2.5-pro")])
def test_litellm_prefixes_come_from_providers_toml(model, row, monkeypatch):
    from toolsurvey.providers import litellm, prices

    table = {row: ts.load_prices()[row]}
    assert prices.resolve_model(model, table) == row
    monkeypatch.setattr(prices, "model_prefixes", lambda: ())  # without the table's prefixes, no match
    assert prices.resolve_model(model, table) is None
    assert "vertex_ai/" in litellm.model_prefixes()


def test_an_eval_client_finds_each_providers_tools_list(tmp_path):
    """What a client of an API needs to send tools: the `convert` format of its `tools`, which dump
    writes in the shape the API documents."""
    api = {a.name: a for a in catalog.APIS}
    assert ts.dump(REG, api["messages"].tools_format)[0]["input_schema"]["properties"] == {"city": {"type": "string"}}
    assert ts.dump(REG, api["chat-completions"].tools_format)[0]["function"]["name"] == "get_weather"
    assert ts.dump(REG, api["responses"].tools_format)[0] == {
        "type": "function", "name": "get_weather", "description": "Current weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}


def test_overhead_is_a_value():
    assert catalog.rendering("json").overhead("gpt-4o") == Overhead(0, "")
