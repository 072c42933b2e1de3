"""Every provider family x caching mode priced by hand: the arithmetic is written out below (prices
per million tokens from the default price table, as listed), not computed by the library.

The task (average-size mode, accuracy off): 10 tools, a system prompt, a 100-token user message,
50-token calls, 400-token results, a 200-token answer, 3 requests. Each request carries
overhead + tools + system + user + history, history growing by 50 + 400 = 450 per call.
"""

from __future__ import annotations

import json
import warnings

import pytest

import toolsurvey as ts
from toolsurvey.errors import InputError

TASK = dict(registry_size=10, user_message_tokens=100, call_tokens=50, response_tokens=400,
            answer_tokens=200, steps=3, accuracy=False)
BIG = dict(tool_tokens=200, system_prompt_tokens=1000, **TASK)    # prefix = overhead + 3,000


def cost(model, caching, task=BIG, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ts.simulate(None, ts.Scenario(model=model, caching=caching, **task, **kw))


CASES = [
    # --- Anthropic, claude-sonnet-4-5: $3 in, $15 out, $3.75 write (5 min), $6 write (1 h), $0.30 read,
    # minimum 1,024. Tool-use system prompt 346 tokens: inputs 3,446 / 3,896 / 4,346 = 11,688.
    ("claude-sonnet-4-5", "none", {}, (11_688 * 3 + 300 * 15) / 1e6),
    ("claude-sonnet-4-5", "auto", {}, (11_688 * 3 + 300 * 15) / 1e6),  # opt-in caching: auto = none
    # prefix 3,346 written on request 1, read on 2 and 3; uncached 100 + 550 + 1,000
    ("claude-sonnet-4-5", "prefix", {}, (3_346 * 3.75 + 1_650 * 3 + 2 * 3_346 * 0.30 + 300 * 15) / 1e6),
    ("claude-sonnet-4-5", "prefix", {"cache_ttl": "1h"}, (3_346 * 6 + 1_650 * 3 + 2 * 3_346 * 0.30 + 300 * 15) / 1e6),
    # write 3,446, then 450 and 450 new; read 3,446 then 3,896
    ("claude-sonnet-4-5", "incremental", {}, ((3_446 + 450 + 450) * 3.75 + (3_446 + 3_896) * 0.30 + 300 * 15) / 1e6),
    # --- OpenAI, gpt-4o: $2.50 in, $10 out, cached input $1.25, no write premium, minimum 1,024,
    # hits counted in 128-token steps. Per-request function constant 12 tokens: inputs 3,112 /
    # 3,562 / 4,012 = 10,686.
    ("gpt-4o", "none", {}, (10_686 * 2.5 + 300 * 10) / 1e6),
    # prefix 3,012: read twice as 23 x 128 = 2,944 tokens; everything else at plain input
    ("gpt-4o", "prefix", {}, ((10_686 - 2 * 2_944) * 2.5 + 2 * 2_944 * 1.25 + 300 * 10) / 1e6),
    # automatic caching of the whole repeated prompt: request 2 reads 3,112 -> 24 x 128 = 3,072,
    # request 3 reads 3,562 -> 27 x 128 = 3,456; the rest at input
    ("gpt-4o", "incremental", {}, ((10_686 - 3_072 - 3_456) * 2.5 + (3_072 + 3_456) * 1.25 + 300 * 10) / 1e6),
    ("gpt-4o", "auto", {}, ((10_686 - 3_072 - 3_456) * 2.5 + (3_072 + 3_456) * 1.25 + 300 * 10) / 1e6),
    # --- Gemini, gemini-2.5-flash: $0.30 in, $2.50 out, cached $0.03, no write premium, minimum 1,024,
    # explicit cache storage $1.00 per million tokens per hour. No fixed overhead (compact JSON):
    # inputs 3,100 / 3,550 / 4,000 = 10,650.
    ("gemini-2.5-flash", "none", {}, (10_650 * 0.3 + 300 * 2.5) / 1e6),
    ("gemini-2.5-flash", "prefix", {}, ((3_000 + 1_650) * 0.3 + 2 * 3_000 * 0.03 + 300 * 2.5) / 1e6),
    ("gemini-2.5-flash", "incremental", {}, ((3_100 + 450 + 450) * 0.3 + (3_100 + 3_550) * 0.03 + 300 * 2.5) / 1e6),
    ("gemini-2.5-flash", "auto", {}, ((3_100 + 450 + 450) * 0.3 + (3_100 + 3_550) * 0.03 + 300 * 2.5) / 1e6),
    # explicit: the 3,000-token prefix is read on all 3 requests, never written per task; storage
    # 3,000 tokens x $1.00 / 1e6 x 24 h x 30 days = $2.16 a month over 1,000 x 30 = 30,000 tasks
    ("gemini-2.5-flash", "explicit", {},
     (1_650 * 0.3 + 3 * 3_000 * 0.03 + 300 * 2.5) / 1e6 + 3_000 * 1.00 / 1e6 * 24 * 30 / 30_000),
]


@pytest.mark.parametrize("model, caching, extra, dollars", CASES, ids=[f"{m}-{c}{'-1h' if e else ''}"
                                                                       for m, c, e, _ in CASES])
def test_provider_caching_by_hand(model, caching, extra, dollars):
    run = cost(model, caching, **extra)
    assert run.summary["cost_per_task"] == pytest.approx(dollars, rel=1e-9)
    assert run.summary["cost_per_month"] == pytest.approx(dollars * 30_000, rel=1e-9)


# Prefixes under the minimum cacheable size: nothing is cached until a request reaches it.
SMALL = [
    # claude-haiku-4-5: $1 in, $5 out, $1.25 write, minimum 4,096. Prefix 346 + 2,000 + 1,000 = 3,346
    # is too short: prefix caching changes nothing (inputs 11,688 as above).
    ("claude-haiku-4-5", "prefix", BIG, (11_688 * 1 + 300 * 5) / 1e6),
    # incremental: requests 1 (3,446) and 2 (3,896) are too short; request 3 (4,346) is written whole.
    ("claude-haiku-4-5", "incremental", BIG, ((3_446 + 3_896) * 1 + 4_346 * 1.25 + 300 * 5) / 1e6),
    # gpt-4o with 10 x 50-token tools and no system prompt: prefix 12 + 500 = 512 < 1,024.
    # Inputs 612 / 1,062 / 1,512 = 3,186.
    ("gpt-4o", "prefix", dict(tool_tokens=50, system_prompt_tokens=0, **TASK), (3_186 * 2.5 + 300 * 10) / 1e6),
    # automatic: request 2 (1,062) is the first long enough; request 3 reads 8 x 128 = 1,024 of it.
    ("gpt-4o", "auto", dict(tool_tokens=50, system_prompt_tokens=0, **TASK),
     ((3_186 - 1_024) * 2.5 + 1_024 * 1.25 + 300 * 10) / 1e6),
    # gemini-2.5-pro: $1.25 in, $10 out, minimum 2,048. 10 x 100-token tools, no system prompt:
    # inputs 1,100 / 1,550 / 2,000 = 4,650, none reaches 2,048; no explicit cache can be made either.
    ("gemini-2.5-pro", "explicit", dict(tool_tokens=100, system_prompt_tokens=0, **TASK), (4_650 * 1.25 + 300 * 10) / 1e6),
    ("gemini-2.5-pro", "auto", dict(tool_tokens=100, system_prompt_tokens=0, **TASK), (4_650 * 1.25 + 300 * 10) / 1e6),
]


@pytest.mark.parametrize("model, caching, task, dollars", SMALL, ids=[f"{m}-{c}" for m, c, _, _ in SMALL])
def test_prefix_under_the_minimum_cacheable_size(model, caching, task, dollars):
    run = cost(model, caching, task)
    assert run.summary["cost_per_task"] == pytest.approx(dollars, rel=1e-9)
    assert run.summary["cache_storage_per_month"] == 0


def test_auto_caching_is_named_in_the_assumptions():
    assert cost("gpt-4o", "auto").assumptions["caching_used"].startswith("incremental (auto")
    assert cost("claude-sonnet-4-5", "auto").assumptions["caching_used"].startswith("none (auto")


def test_explicit_caching_needs_a_provider_with_stored_caches():
    with pytest.raises(InputError, match="explicit.*documented only for google"):
        cost("claude-sonnet-4-5", "explicit")
    with pytest.raises(InputError, match="1-hour cache"):
        cost("gpt-4o", "prefix", cache_ttl="1h")


# ---------------------------------------------------------------- prices from LiteLLM's file

def test_litellm_file_keeps_the_minimum_cacheable_length(tmp_path):
    """LiteLLM records prompt_cache_min_tokens (claude-haiku-4-5: 4,096). Passing its file as
    --prices must price the Haiku example as the default table does: $0.013188, nothing cached."""
    row = {"input_cost_per_token": 1e-06, "output_cost_per_token": 5e-06, "cache_creation_input_token_cost": 1.25e-06,
           "cache_read_input_token_cost": 1e-07, "max_input_tokens": 200000, "litellm_provider": "anthropic",
           "mode": "chat", "prompt_cache_min_tokens": 4096}
    f = tmp_path / "model_prices_and_context_window.json"
    f.write_text(json.dumps({"claude-haiku-4-5": row}))
    p = ts.load_prices(f)["claude-haiku-4-5"]
    assert p.min_cache_tokens == 4096
    run = cost("claude-haiku-4-5", "prefix", price_file=str(f))
    assert run.summary["cost_per_task"] == pytest.approx((11_688 * 1 + 300 * 5) / 1e6, rel=1e-12)
    assert run.summary["cost_per_task"] == cost("claude-haiku-4-5", "prefix").summary["cost_per_task"]


def test_the_real_litellm_file_as_prices_gives_the_default_figures(tmp_path):
    """The shipped LiteLLM snapshot, unpacked and passed as a price file (as `--prices` would),
    prices the Haiku example exactly as the default table does."""
    import gzip
    from importlib import resources

    f = tmp_path / "model_prices_and_context_window.json"
    f.write_bytes(gzip.decompress(resources.files("toolsurvey").joinpath("assumptions/litellm_prices.json.gz").read_bytes()))
    run = cost("claude-haiku-4-5", "prefix", price_file=str(f))
    assert run.summary["cost_per_task"] == pytest.approx((11_688 * 1 + 300 * 5) / 1e6, rel=1e-12)
    assert run.assumptions["price"]["min_cache_tokens"] == 4096


def test_a_loaded_price_file_never_drops_a_field(tmp_path):
    # A LiteLLM row without a minimum or a storage price keeps the ones the default row had.
    row = {"input_cost_per_token": 2e-06, "output_cost_per_token": 1e-05, "max_input_tokens": 1048576,
           "litellm_provider": "gemini", "mode": "chat"}
    f = tmp_path / "prices.json"
    f.write_text(json.dumps({"gemini-2.5-pro": row}))
    before = ts.load_prices()["gemini-2.5-pro"]
    after = ts.load_prices(f)["gemini-2.5-pro"]
    assert after.input == 2.0 and after.output == 10.0
    assert (after.min_cache_tokens, after.cache_storage, after.cache_read) == (
        before.min_cache_tokens, before.cache_storage, before.cache_read) == (2048, 4.5, 0.125)
    assert after.origins["input"] == str(f) and after.origins["min_cache_tokens"] == before.origins["min_cache_tokens"]


def test_dated_ids_and_provider_prefixes_resolve():
    a = cost("claude-sonnet-4-5-20250929", "none").summary["cost_per_task"]
    assert a == pytest.approx((11_688 * 3 + 300 * 15) / 1e6, rel=1e-12)
    from toolsurvey.providers.prices import price_for

    prices = ts.load_prices()
    assert price_for("anthropic/claude-haiku-4-5", prices).input == 1.0
    assert price_for("claude-opus-4-1-20250805", prices).input == 15.0  # not in LiteLLM: the bundled row


def test_default_source_is_the_dated_litellm_snapshot(tmp_path, monkeypatch):
    from toolsurvey.providers.litellm import litellm_source

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # no file from `toolsurvey prices update`
    assert litellm_source()["path"] == "" and litellm_source()["as_of"] == "2026-11-30"
    p = ts.load_prices()["claude-haiku-4-5"]
    assert "LiteLLM 1.110.2" in p.origins["min_cache_tokens"] and p.as_of == "2026-11-30"


def test_every_model_with_a_known_provider_simulates_with_defaults():
    """Every model of the default price source whose provider toolsurvey knows (its rendering,
    caching and limits) runs with the default scenario, on a registry and in average-size mode."""
    prices = ts.load_prices()
    models = sorted(m for m, p in prices.items() if p.provider in ("anthropic", "openai", "google"))
    assert len(models) > 150 and {"claude-opus-4-6", "claude-sonnet-4-5-20250929", "gpt-5.4"} <= set(models)
    reg = ts.Registry.from_tools([ts.Tool("search_docs", "Search the docs.",
                                          {"type": "object", "properties": {"q": {"type": "string"}}})])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in (reg, None):
            grid = ts.sweep(r, ts.Scenario(tool_tokens=100, registry_size=5), model=models)
            assert len(grid) == len(models)
            # priced, unless a request is over the model's window (ft:gpt-3.5-turbo-0613: 4,096 tokens)
            assert (grid["cost_per_task"].notna() | ~grid["fits"]).all() and grid["fits"].mean() > 0.99
            assert (grid["cost_per_task"].fillna(0) >= 0).all()
    claude = grid[grid["model"].str.startswith("claude")]
    assert (claude["overhead_tokens_per_task"] > 0).all()  # every Claude model carries the tool-use prompt


# ---------------------------------------------------------------- provider limits

def many_tools(n: int, name=lambda i: f"tool_{i}") -> ts.Registry:
    return ts.Registry.from_tools(ts.Tool(name(i), f"Does thing {i}.", {"type": "object", "properties": {}})
                                  for i in range(n))


def test_244_tools_on_an_openai_model_are_flagged_by_simulate():
    reg = many_tools(244)
    with pytest.warns(UserWarning, match="244 tools in one request, over openai's limit of 128"):
        run = ts.simulate(reg, ts.Scenario(model="gpt-4o", steps=2))
    assert not run.summary["within_limits"]
    assert ts.simulate(reg, ts.Scenario(model="gpt-4o", steps=2, visible=128)).summary["within_limits"]
    # Anthropic documents no tool-count limit; a 65-character name breaks its name rule
    assert ts.simulate(reg, ts.Scenario(model="claude-sonnet-4-5", steps=2)).summary["within_limits"]
    with pytest.warns(UserWarning, match="longer than anthropic's 64"):
        run = ts.simulate(many_tools(2, lambda i: "x" * 65), ts.Scenario(model="claude-sonnet-4-5", steps=2))
    assert not run.summary["within_limits"]


def test_244_tools_on_an_openai_model_are_flagged_by_check_and_report(cli, tmp_path):
    from toolsurvey.advice.budget import check_budget

    reg = many_tools(244)
    breaches = check_budget(reg, model="gpt-4o")
    assert [b.kind for b in breaches] == ["limit"] and "limit of 128" in breaches[0].message
    assert check_budget(reg, model="claude-sonnet-4-5") == []
    f = tmp_path / "tools.json"
    f.write_text(json.dumps({"tools": [t.to_mcp() for t in reg]}))
    code, out, err = cli("check", f, "--model", "gpt-4o")
    assert code == 1 and "over openai's limit of 128" in out
    rep = ts.report(reg, scenario=ts.Scenario(model="gpt-4o"))
    assert "over openai's limit of 128" in rep.summary_text()


def test_a_damaged_fetched_price_file_is_one_clear_error(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    (tmp_path / "toolsurvey").mkdir()
    (tmp_path / "toolsurvey" / "model_prices_and_context_window.json").write_text("{not json")
    code, out, err = cli("simulate", "--tool-tokens", "10", "--registry-size", "2")
    assert code == 2 and "prices update` again, or delete" in err and "Traceback" not in err
