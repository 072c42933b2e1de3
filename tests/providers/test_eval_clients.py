"""The eval clients through the official anthropic and openai SDKs over an httpx MockTransport that
answers in each API's documented format: tool use, text only, a refusal, malformed tool arguments,
429 with retry-after, 529 overloaded and a timeout."""

from __future__ import annotations

import pytest
from conftest import ROOT
from fake_llm import Failure, FakeLLM, Move

import toolsurvey as ts
from toolsurvey.errors import ProviderError
from toolsurvey.providers.asking import sdk_takes

pytest.importorskip("openai")
pytest.importorskip("anthropic")
REG = ts.load(ROOT / "data" / "registries" / "ops_assistant.json")
KEY = "sk-test-Zq8vTOPSECRET-1234567890abcdef"
QUERIES = [{"id": "use", "query": "which team owns payments-api?", "gold": ["catalog/get_owner"]},
           {"id": "text", "query": "what does SLO stand for?", "gold": []},
           {"id": "refuse", "query": "page everyone at 3am for fun", "gold": ["incidents/page_oncall"]},
           {"id": "bad", "query": "list deploys of checkout", "gold": ["deploys/list_deploys"]}]
API = {"anthropic-messages": ("claude-sonnet-4-5", {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": "http://llm.test"}),
       "openai-chat": ("gpt-4o", {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": "http://llm.test/v1"}),
       "openai-responses": ("gpt-4o", {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": "http://llm.test/v1"})}


def model(query, names, tools):
    if "owns" in query:
        return Move([("get_owner", {"service": "payments-api"})])
    if "3am" in query:
        return Move(refusal="I can't help with paging people without a reason.")
    if "deploys" in query:
        return Move([("list_deploys", {"limit": "many"})])  # arguments that fail the schema
    return Move(text="Service level objective.")


def evaluate(api, fake, **kw):
    name, env = API[api]
    return ts.selection_eval(REG, kw.pop("queries", QUERIES), name, api=api, environ=env, cache=False, yes=True,
                             http_client=fake.client("anthropic" if api.startswith("anthropic") else "openai"), **kw)


@pytest.mark.parametrize("api", list(API))
def test_tool_use_text_refusal_and_invalid_arguments(api):
    fake = FakeLLM(model)
    ev = evaluate(api, fake)
    by = {r["id"]: r for r in ev.records}
    assert by["use"]["outcome"] == "right" and by["use"]["args_valid"] is True
    assert by["use"]["arguments"] == {"service": "payments-api"}
    assert by["text"]["outcome"] == "no_call" and by["text"]["text"] == "Service level objective."
    assert by["refuse"]["outcome"] == "skip" and by["refuse"]["refusal"]
    assert by["bad"]["outcome"] == "right" and by["bad"]["args_valid"] is False
    assert all(r["usage"]["output"] == 20 for r in ev.records)
    body = fake.requests[0]["body"]
    assert len(body["tools"]) == 63
    assert body.get("temperature") == 0 or not sdk_takes("anthropic.resources.messages:Messages", "temperature")
    assert body["tool_choice"] == ({"type": "auto"} if api.startswith("anthropic") else "auto")
    auth = fake.requests[0]["headers"]
    assert auth.get("x-api-key") == KEY or auth.get("authorization") == f"Bearer {KEY}"


@pytest.mark.parametrize("api", ["openai-chat", "openai-responses"])
def test_arguments_that_are_not_json_are_invalid(api):
    fake = FakeLLM(lambda q, n, t: Move([("get_owner", '{"service": "pay')]))
    ev = evaluate(api, fake, queries=QUERIES[:1])
    assert ev.records[0]["outcome"] == "invalid" and ev.records[0]["args_valid"] is False


def test_anthropic_tools_are_a_cached_prefix_and_usage_says_so():
    fake = FakeLLM(model)
    ev = evaluate("anthropic-messages", fake)
    assert fake.requests[0]["body"]["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    usage = [r["usage"] for r in ev.records]
    assert usage[0]["cache_write_5m"] == 950 and all(u["cache_read"] == 950 for u in usage[1:])


@pytest.mark.parametrize("api", list(API))
def test_429_with_retry_after_is_retried(api):
    fake = FakeLLM(model)
    fake.fail_next(Failure(429, {"error": {"type": "rate_limit_error", "message": "slow down"}},
                           {"retry-after": "0.05"}))
    ev = evaluate(api, fake, queries=QUERIES[:1])
    assert len(fake.requests) == 2 and ev.records[0]["outcome"] == "right"


def test_529_overloaded_that_persists_is_one_provider_error():
    fake = FakeLLM(model)
    over = Failure(529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
                   {"retry-after": "0.01"})
    fake.fail_next(over, over, over)
    with pytest.raises(ProviderError) as e:
        evaluate("anthropic-messages", fake, queries=QUERIES[:1], max_retries=2)
    assert "HTTP 529 after 2 retries" in str(e.value) and "Overloaded" in str(e.value)
    assert len(fake.requests) == 3 and KEY not in str(e.value)


@pytest.mark.parametrize("api", list(API))
def test_timeout_is_a_counted_failure_not_an_answer(api):
    fake = FakeLLM(model)
    slow = Failure(0, {}, delay=5.0)
    fake.fail_next(slow, slow)
    ev = evaluate(api, fake, queries=QUERIES[:2], timeout=0.2, max_retries=1, concurrency=1)
    assert len(ev.records) == 1 and len(ev.failed) == 1 and "no answer within" in ev.failed[0]["error"]
    assert any("incomplete" in w for w in ev.warnings)


def test_unknown_model_is_one_line():
    fake = FakeLLM(model)
    fake.fail_next(Failure(404, {"type": "error", "error": {"type": "not_found_error", "message": "model: claude-x"}}))
    with pytest.raises(ProviderError, match="does not know model 'claude-sonnet-4-5'"):
        evaluate("anthropic-messages", fake, queries=QUERIES[:1])
