"""The explorers' controls: a model list of chat models that call tools, caching labels that say what
"auto" means, controls that start at a real value, and a request axis that says what wrong calls add."""

from __future__ import annotations

from toolsurvey.present import controls as C
from toolsurvey.providers.prices import bundled_prices, tool_calling_models


def test_model_list_holds_tool_calling_chat_models_grouped_by_provider():
    prices = bundled_prices()
    options = C.model_options("claude-sonnet-4-5", prices)
    labels, models = [label for label, _ in options], [m for _, m in options]
    assert models[0] == "claude-sonnet-4-5" and labels[0].endswith("(scenario)")
    assert len(models) == len(set(models))
    callers = tool_calling_models()
    assert all(m in callers for m in models[1:])
    bad = ("lyria", "gpt-audio", "-tts", "ft:", "robotics", "computer-use", "search-preview", "search-api")
    assert not [m for m in models if any(b in m for b in bad)]
    assert not [lbl for lbl in labels if "gemini/" in lbl]  # no provider prefix in a label
    assert len({m.split("/")[-1] for m in models}) == len(models)  # and no model twice under a prefix
    providers = [lbl.split(" · ")[0] for lbl in labels[1:]]
    assert providers == sorted(providers, key=["Anthropic", "OpenAI", "Google"].index)  # grouped


def test_tool_calling_models_are_general_chat_models_an_agent_runs_on():
    callers, prices = tool_calling_models(), bundled_prices()
    assert {"claude-sonnet-4-5", "gpt-4o", "gemini-2.5-pro", "gpt-5", "claude-haiku-4-5"} <= set(callers)
    # Chat models that call tools in LiteLLM's file, yet are made for one job: robots, a screen, web search.
    specialised = ["gemini-robotics-er-2-preview", "gemini-robotics-er-1.5-preview", "computer-use-preview",
                   "gemini-2.5-computer-use-preview-10-2025", "gpt-4o-search-preview", "gpt-5-search-api"]
    assert all(m in prices for m in specialised)  # priced, so the test is not vacuous
    assert [m for m in specialised if m in callers] == []
    assert [m for m in callers if any(w in m.lower() for w in ("robotics", "computer-use", "realtime", "audio"))] == []
    assert "nebius/NousResearch/Hermes-4-70B" in callers  # "search" as a word, not inside "NousResearch"


def test_auto_caching_says_what_it_means_for_the_provider():
    modes = ("auto", "none", "prefix", "explicit")
    anthropic = dict((m, label) for label, m in C.caching_options("anthropic", modes, "prefix"))
    assert anthropic["auto"] == "auto (none: Anthropic caching is opt-in)"
    assert "explicit" not in anthropic  # offered only where the scenario uses it
    assert "explicit" in dict((m, label) for label, m in C.caching_options("google", modes, "explicit"))
    openai = dict((m, label) for label, m in C.caching_options("openai", modes, "auto"))
    assert openai["auto"].startswith("auto (") and "OpenAI" in openai["auto"]


def test_controls_start_at_a_real_value_and_labels_carry_no_invisible_characters():
    assert C.TRUNCATE_CHOICES[0] == (C.OFF, C.OFF) and C.LIST_CAP_CHOICES[0] == (C.OFF, C.OFF)
    assert C.chosen(C.OFF) is None and C.chosen(50) == 50
    box = C.check("[].body")
    assert box.value is True and box.description == "[].body"
    assert "\u200b" not in box.description


def test_request_axis_says_what_wrong_calls_add():
    axis = C.request_axis({"steps": 24, "expected_requests": 29.2, "wrong_rate": 0.18})
    assert axis == "request within the task<br>24 steps + 5.2 extra from wrong tool calls (wrong-tool rate 18.0%)"
    assert C.request_axis({"steps": 4, "expected_requests": 4}) == "request within the task<br>4 steps"
