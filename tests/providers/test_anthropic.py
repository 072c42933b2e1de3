"""providers.anthropic: the Messages API's answers read as Anthropic documents them (the example
answers below follow the API reference's shapes; the figures are worked by hand)."""

from __future__ import annotations

from toolsurvey.providers import anthropic, catalog

ANSWER = {  # POST /v1/messages with tools: a text block, then a tool_use block
    "id": "msg_01Aq9w938a90dw8q", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
    "stop_reason": "tool_use",
    "content": [{"type": "text", "text": "I'll look that up."},
                {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "get_weather",
                 "input": {"location": "San Francisco, CA"}}],
    "usage": {"input_tokens": 472, "output_tokens": 91, "cache_creation_input_tokens": 1000,
              "cache_read_input_tokens": 2000,
              "cache_creation": {"ephemeral_5m_input_tokens": 400, "ephemeral_1h_input_tokens": 600}},
}
REQUEST = {"model": "claude-sonnet-4-5", "messages": [
    {"role": "user", "content": "Weather in SF?"},
    {"role": "assistant", "content": ANSWER["content"]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A09q90qw90lq917835lq9",
                                  "content": [{"type": "text", "text": "15 C, fog"}]},
                                 {"type": "tool_result", "tool_use_id": "toolu_2", "content": "boom",
                                  "is_error": True}]}]}


def test_usage_splits_the_cache_writes_by_lifetime():
    # input, 5-minute writes, 1-hour writes, reads, output; input_tokens leaves out cache reads and writes
    assert anthropic.usage(ANSWER["usage"]) == (472, 400, 600, 2000, 91)
    without_split = {k: v for k, v in ANSWER["usage"].items() if k != "cache_creation"}
    assert anthropic.usage(without_split) == (472, 1000, 0, 2000, 91)  # every write a 5-minute one
    assert anthropic.usage({"input_tokens": "7", "output_tokens": None, "cache_read_input_tokens": -3}) == (7, 0, 0, 0, 0)
    assert catalog.logged_usage(ANSWER["usage"]) == (472, 400, 600, 2000, 91)  # a log line is read the same way


def test_tool_calls_and_the_results_sent_back():
    assert list(anthropic.tool_calls(ANSWER)) == [
        ("toolu_01A09q90qw90lq917835lq9", "get_weather", {"location": "San Francisco, CA"})]
    assert list(anthropic.tool_results(REQUEST)) == [
        ("toolu_01A09q90qw90lq917835lq9", [{"type": "text", "text": "15 C, fog"}], False), ("toolu_2", "boom", True)]
    assert list(catalog.logged_tool_calls(ANSWER)) == list(anthropic.tool_calls(ANSWER))


def test_the_counting_request_is_the_documented_one():
    endpoint = anthropic.PROVIDER.counting
    assert anthropic.PROVIDER.auth_headers("k") == {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    assert endpoint.body("claude-sonnet-4-5", [{"name": "t"}], "Be brief.") == {
        "model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "Hi"}], "system": "Be brief.",
        "tools": [{"name": "t"}]}
    assert endpoint.path("claude-sonnet-4-5") == "/v1/messages/count_tokens"
    assert endpoint.read({"input_tokens": 14}) == 14 and endpoint.read({"input_tokens": True}) is None
