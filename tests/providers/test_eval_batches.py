"""--batch through each provider's documented lifecycle, with the real SDKs over a MockTransport:
Anthropic Message Batches (create, in_progress, ended, results as JSON Lines) and the OpenAI Batch
API (upload a JSON Lines file, create, validating, in_progress, completed, read the output file).
Half price; a stopped run resumes the same batch; a result that errored is counted, not cached."""

from __future__ import annotations

import pytest
from conftest import ROOT
from fake_llm import FakeLLM, Move

import toolsurvey as ts

pytest.importorskip("openai")
pytest.importorskip("anthropic")
REG = ts.load(ROOT / "data" / "registries" / "ops_assistant.json")
QUERIES = [{"id": "a", "query": "which team owns payments-api?", "gold": ["catalog/get_owner"]},
           {"id": "b", "query": "what does SLO stand for?", "gold": []},
           {"id": "c", "query": "who owns checkout?", "gold": ["catalog/get_owner"]}]
API = {"anthropic-messages": ("claude-sonnet-4-5", "anthropic", {"ANTHROPIC_API_KEY": "sk-ant-test-key-123456", "ANTHROPIC_BASE_URL": "http://llm.test"}),
       "openai-chat": ("gpt-4o", "openai", {"OPENAI_API_KEY": "sk-test-key-123456", "OPENAI_BASE_URL": "http://llm.test/v1"}),
       "openai-responses": ("gpt-4o", "openai", {"OPENAI_API_KEY": "sk-test-key-123456", "OPENAI_BASE_URL": "http://llm.test/v1"})}


def model(query, names, tools):
    return Move([("get_owner", {"service": "x"})]) if "owns" in query else Move(text="Service level objective.")


def evaluate(api, fake, tmp_path, **kw):
    name, sdk, env = API[api]
    return ts.selection_eval(REG, QUERIES, name, api=api, environ=env, cache_dir=tmp_path, yes=True, batch=True,
                             poll=0, http_client=fake.client(sdk), **kw)


@pytest.mark.parametrize("api", list(API))
def test_batch_lifecycle_at_half_price(api, tmp_path):
    fake = FakeLLM(model)
    ev = evaluate(api, fake, tmp_path)
    assert [r["outcome"] for r in ev.records] == ["right", "no_call", "right"]
    assert len(fake.batches) == 1 and all(r["batch"] for r in ev.records)
    batch = next(iter(fake.batches.values()))
    assert batch["polls"] >= 3 and len(batch["items"]) == 3
    name = API[api][0]
    price = ts.load_prices()[name]
    for r in ev.records:  # the usage at the model's rates, halved
        u = r["usage"]
        full = (u["input"] * price.input + u["cache_read"] * price.cache_read + u["output"] * price.output
                + u["cache_write_5m"] * price.cache_write) / 1e6
        assert r["cost"] == pytest.approx(full / 2, rel=1e-12)
    again = evaluate(api, fake, tmp_path)  # everything cached: no new batch
    assert len(fake.batches) == 1 and again.billed()["requests"] == 0


def test_a_stopped_run_resumes_the_same_batch(tmp_path):
    fake = FakeLLM(model)

    def stop(done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        evaluate("anthropic-messages", fake, tmp_path, progress=stop)
    assert len(fake.batches) == 1 and list((tmp_path / "batches").glob("*.json"))
    ev = evaluate("anthropic-messages", fake, tmp_path)
    assert len(fake.batches) == 1 and len(ev.records) == 3  # the same batch, read back
    assert not list((tmp_path / "batches").glob("*.json"))


def test_an_errored_result_is_counted_and_not_cached(tmp_path):
    fake = FakeLLM(model)
    from toolsurvey.measuring.selection.batch import _custom_id

    plan = ts.measuring.selection.run.plan_eval(REG, QUERIES, "claude-sonnet-4-5", environ=API["anthropic-messages"][2],
                                                cache_dir=tmp_path)
    fake.batch_errors.add(_custom_id(plan.jobs[1].key))
    ev = evaluate("anthropic-messages", fake, tmp_path)
    assert len(ev.records) == 2 and ev.failed[0]["id"] == "b" and "prompt is too long" in ev.failed[0]["error"]
    fake.batch_errors.clear()
    ev = evaluate("anthropic-messages", fake, tmp_path)
    assert len(fake.batches) == 2 and len(fake.batches["msgbatch_02"]["items"]) == 1 and len(ev.records) == 3


def test_batch_needs_a_provider(tmp_path):
    with pytest.raises(ts.InputError, match="batch API"):
        ts.selection_eval(REG, QUERIES, "m", base_url="http://llm.test/v1", environ={}, batch=True, cache_dir=tmp_path)
