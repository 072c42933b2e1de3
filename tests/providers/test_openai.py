"""providers.openai: Chat Completions and Responses answers read as OpenAI documents them (the
example answers follow the API reference's shapes; the figures are worked by hand)."""

from __future__ import annotations

from toolsurvey.providers import catalog, openai

CHAT = {
    "id": "chatcmpl-abc123", "object": "chat.completion", "model": "gpt-4o-2024-08-06",
    "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": None,
        "tool_calls": [{"id": "call_abc", "type": "function",
                        "function": {"name": "get_weather", "arguments": "{\"location\":\"Paris\"}"}}]}}],
    "usage": {"prompt_tokens": 2006, "completion_tokens": 300, "total_tokens": 2306,
              "prompt_tokens_details": {"cached_tokens": 1920}},
}
RESPONSES = {
    "id": "resp_67ccd2bed1ec8190", "object": "response", "model": "gpt-5",
    "output": [{"type": "reasoning", "id": "rs_1", "summary": []},
               {"type": "function_call", "id": "fc_12345xyz", "call_id": "call_12345xyz", "name": "get_weather",
                "arguments": "{\"location\":\"Paris, France\"}"}],
    "usage": {"input_tokens": 328, "input_tokens_details": {"cached_tokens": 256}, "output_tokens": 52,
              "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 380},
}


def test_cached_tokens_are_inside_the_prompt_and_become_cache_reads():
    assert openai.chat_usage(CHAT["usage"]) == (2006 - 1920, 0, 0, 1920, 300)
    assert openai.responses_usage(RESPONSES["usage"]) == (328 - 256, 0, 0, 256, 52)
    assert catalog.logged_usage(CHAT["usage"]) == (86, 0, 0, 1920, 300)  # each usage read as its own API's
    assert catalog.logged_usage(RESPONSES["usage"]) == (72, 0, 0, 256, 52)


def test_tool_calls_of_both_apis():
    assert list(openai.chat_tool_calls(CHAT)) == [("call_abc", "get_weather", "{\"location\":\"Paris\"}")]
    assert list(openai.responses_tool_calls(RESPONSES)) == [
        ("call_12345xyz", "get_weather", "{\"location\":\"Paris, France\"}")]  # call_id, not the item's id
    assert [c[1] for c in catalog.logged_tool_calls(CHAT)] == ["get_weather"]


def test_the_results_each_api_sends_back():
    chat = {"messages": [{"role": "tool", "tool_call_id": "call_abc", "content": "18 C"}]}
    responses = {"input": [{"type": "function_call_output", "call_id": "call_12345xyz", "output": "18 C"}]}
    assert list(openai.chat_tool_results(chat)) == [("call_abc", "18 C", False)]
    assert list(openai.responses_tool_results(responses)) == [("call_12345xyz", "18 C", False)]
    assert list(catalog.logged_tool_results(chat)) == [("call_abc", "18 C", False)]  # not read as Anthropic's too


def test_the_counting_request_is_the_documented_one():
    endpoint = openai.PROVIDER.counting
    assert openai.PROVIDER.auth_headers("k") == {"authorization": "Bearer k"}
    assert endpoint.body("gpt-5", None, "Be brief.") == {"model": "gpt-5", "input": "Hi", "instructions": "Be brief."}
    assert endpoint.path("gpt-5") == "/responses/input_tokens" and endpoint.tools_format == "openai-responses"
