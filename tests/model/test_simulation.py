"""Simulation behaviour users rely on: seed 001's arithmetic, hand-worked caching figures, phase
gating, the accuracy assumption, Monte Carlo, properties, bad input, price files and the CLI (a price
file by URL: tests/providers/test_prices.py)."""

from __future__ import annotations

import fnmatch
import json
import math
import warnings

import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

import toolsurvey as ts
from toolsurvey.core.tokens import get_encoding
from toolsurvey.errors import InputError

OPS = ROOT / "data" / "registries" / "ops_assistant.json"
# The seeds' compact JSON (no provider overhead), so that tool tokens can be checked with tiktoken alone.
QUIET = dict(call_tokens=0, answer_tokens=0, response_tokens=0, accuracy=False, render="json")


def compact_tokens(tool) -> int:
    """Tokens of the seeds' rendering, counted with tiktoken directly (the independent oracle)."""
    obj = {"name": tool.name, "description": tool.description, "inputSchema": tool.input_schema}
    return len(get_encoding("o200k_base").encode(json.dumps(obj, separators=(",", ":"), ensure_ascii=False)))


def small_registry():
    names = ["search_logs", "query_metrics", "list_services", "describe_slo", "create_ticket",
             "update_ticket", "restart_service", "rollback_deploy", "page_oncall", "notify_channel"]
    return ts.Registry.from_tools(ts.Tool(n, f"{n.replace('_', ' ').title()} for the ops team; " + "detail " * i,
                                          {"type": "object", "properties": {"id": {"type": "string"}}})
                                  for i, n in enumerate(names))


# ---------------------------------------------------------------- seed 001 and hand-worked figures

def test_seed_001_arithmetic_in_average_mode():
    run = ts.simulate(None, ts.Scenario(tool_tokens=180, registry_size=20, steps=9, **QUIET))
    assert run.summary["tool_tokens_per_task"] == 20 * 180 * 9 == 32_400
    assert run.summary["tool_tokens_per_request"] == 3_600


def test_seed_001_case_with_claude_includes_the_tool_use_system_prompt():
    # By default a Claude model uses the Anthropic rendering: its documented tool-use system prompt
    # (346 tokens for Claude 4 models with tool_choice auto) rides on each of the 9 requests.
    run = ts.simulate(None, ts.Scenario(tool_tokens=180, registry_size=20, steps=9,
                                        **{**QUIET, "render": "auto"}))
    assert run.summary["overhead_tokens_per_task"] == 9 * 346 == 3_114
    assert run.summary["input_tokens_per_task"] == 32_400 + 3_114
    assert ts.simulate(None, ts.Scenario(tool_tokens=180, registry_size=20, steps=9, call_tokens=0, answer_tokens=0,
                                         response_tokens=0, accuracy=False)).summary["overhead_tokens_per_task"] == 3_114


def test_tool_tokens_per_task_are_the_real_definitions_times_steps():
    reg = small_registry()
    per_request = sum(compact_tokens(t) for t in reg)
    for steps in (1, 9, 17):
        run = ts.simulate(reg, ts.Scenario(steps=steps, **QUIET))
        assert run.summary["tool_tokens_per_task"] == per_request * steps


def test_visible_cap_uses_the_first_tools_actually_visible():
    reg = small_registry()
    run = ts.simulate(reg, ts.Scenario(steps=3, visible=4, **QUIET))
    assert run.summary["tool_tokens_per_task"] == 3 * sum(compact_tokens(t) for t in reg.tools[:4])


# The worked example of docs/simulation.md: 10 tools x 200 tokens, system 1,000, user 100, call 50,
# result 400, answer 200, 3 requests, Claude Sonnet 4.5 ($3 in, $15 out, $3.75 write, $0.30 read),
# whose requests also carry Anthropic's 346-token tool-use system prompt.
WORKED = dict(tool_tokens=200, registry_size=10, system_prompt_tokens=1000, user_message_tokens=100,
              call_tokens=50, response_tokens=400, answer_tokens=200, steps=3, accuracy=False,
              model="claude-sonnet-4-5")


@pytest.mark.parametrize("caching, dollars", [
    # inputs 3,446 + 3,896 + 4,346 = 11,688 at $3; outputs 50 + 50 + 200 = 300 at $15
    ("none", (11_688 * 3 + 300 * 15) / 1e6),
    # overhead+tools+system 3,346 written once, read twice; the rest (100, 550, 1,000) uncached
    ("prefix", (3_346 * 3.75 + 1_650 * 3 + 6_692 * 0.30 + 300 * 15) / 1e6),
    # write 3,446 then 450 + 450 new tokens; read 3,446 then 3,896
    ("incremental", ((3_446 + 450 + 450) * 3.75 + (3_446 + 3_896) * 0.30 + 300 * 15) / 1e6),
])
def test_worked_example_by_hand(caching, dollars):
    run = ts.simulate(None, ts.Scenario(caching=caching, **WORKED))
    assert run.summary["cost_per_task"] == pytest.approx(dollars, rel=1e-12)
    assert list(run.steps["input"]) == [3_446, 3_896, 4_346]
    assert run.steps["cost"].sum() == pytest.approx(dollars, rel=1e-12)


def test_worked_example_dollar_figures_of_the_docs():
    # The rounded figures docs/simulation.md prints, from the sums above.
    none, prefix, inc = (ts.simulate(None, ts.Scenario(caching=c, **WORKED)).summary["cost_per_task"]
                         for c in ("none", "prefix", "incremental"))
    assert (none, prefix, inc) == pytest.approx((0.039564, 0.0240051, 0.0230001), rel=1e-12)


def test_worked_example_with_the_accuracy_effect():
    # 25 tools: wrong 16% of calls, success 77%. The 2 useful calls take 2 / 0.84 = 2.380952 calls,
    # priced between 2 calls (3 requests) and 3 calls (4 requests): weight 8/21 on the 4th request.
    # Inputs 6,446 / 6,896 / 7,346 / 7,796; the 6,346-token prefix is written once, then read.
    frac = 2 / 0.84 - 2
    assert frac == pytest.approx(8 / 21)
    two = (6_346 * 3.75 + (100 + 550 + 1_000) * 3 + 2 * 6_346 * 0.30 + (2 * 50 + 200) * 15) / 1e6
    three = (6_346 * 3.75 + (100 + 550 + 1_000 + 1_450) * 3 + 3 * 6_346 * 0.30 + (3 * 50 + 200) * 15) / 1e6
    run = ts.simulate(None, ts.Scenario(caching="prefix", **{**WORKED, "registry_size": 25, "accuracy": True}))
    assert run.summary["expected_requests"] == pytest.approx(1 + 2 / 0.84)
    assert run.summary["cost_per_task"] == pytest.approx(two + frac * (three - two), rel=1e-12)
    assert run.summary["cost_per_task"] == pytest.approx(0.0370551 + 8 / 21 * 0.0070038, rel=1e-12)
    assert run.summary["cost_per_completed_task"] == pytest.approx(run.summary["cost_per_task"] / 0.77, rel=1e-12)
    assert list(run.steps["weight"]) == pytest.approx([1, 1, 1, frac])
    assert list(run.steps["output"]) == pytest.approx([50, 50, (1 - frac) * 200 + frac * 50, 200])
    assert (run.steps["weight"] * run.steps["cost"]).sum() == pytest.approx(run.summary["cost_per_task"], rel=1e-12)


def test_auto_render_charges_the_provider_overhead_on_every_request():
    # Anthropic's documented tool-use system prompt for Claude 4 models with tool_choice auto: 346 tokens.
    run = ts.simulate(REG, ts.Scenario(steps=5, **{**QUIET, "render": "auto"}))
    assert run.summary["overhead_tokens_per_task"] == 5 * 346
    assert run.assumptions["overhead_tokens"] == 346
    assert "o200k_base count unless calibrated" in run.assumptions["tool_tokens_note"]


def test_minimum_cacheable_length_is_respected():
    # Claude Haiku 4.5 caches nothing under 4,096 tokens: the 3,346-token prefix is all uncached.
    run = ts.simulate(None, ts.Scenario(caching="prefix", **{**WORKED, "model": "claude-haiku-4-5"}))
    assert run.summary["cache_write_tokens"] == run.summary["cache_read_tokens"] == 0
    assert run.summary["cost_per_task"] == pytest.approx((11_688 * 1 + 300 * 5) / 1e6, rel=1e-12)


def test_openai_cached_input_has_no_write_premium():
    # gpt-5: OpenAI's per-request function constant is 12 tokens; prefix 12 + 2,000 + 1,000 = 3,012,
    # read as 23 x 128 = 2,944 tokens (hits come in 128-token steps); inputs total 10,686.
    run = ts.simulate(None, ts.Scenario(caching="prefix", **{**WORKED, "model": "gpt-5"}))
    assert run.summary["cost_per_task"] == pytest.approx(
        ((10_686 - 2 * 2_944) * 1.25 + 2 * 2_944 * 0.125 + 300 * 10) / 1e6, rel=1e-12)


# ---------------------------------------------------------------- phase gating

def phase_tokens(reg, globs, instructions):
    """Definitions of the tools a phase's globs match, plus their servers' instructions."""
    tools = [t for t in reg if any(fnmatch.fnmatchcase(t.name, g) for g in globs)]
    servers = {t.server for t in tools}
    return sum(compact_tokens(t) for t in tools) + sum(n for s, n in instructions.items() if s in servers)


def check_phase_gating(reg, phases):
    enc = get_encoding("o200k_base")
    instructions = {s.name: len(enc.encode(s.instructions)) for s in reg.servers.values() if s.instructions}
    steps = sum(p.steps for p in phases)
    per_phase = [phase_tokens(reg, p.tools, instructions) for p in phases]
    everything = sum(compact_tokens(t) for t in reg) + sum(instructions.values())
    gated = ts.simulate(reg, ts.Scenario(strategy="phases", phases=phases, steps=steps, **QUIET)).summary
    full = ts.simulate(reg, ts.Scenario(strategy="all", steps=steps, **QUIET)).summary
    assert full["tool_tokens_per_task"] == everything * steps
    assert gated["tool_tokens_per_task"] == sum(n * p.steps for n, p in zip(per_phase, phases, strict=True))
    # the saving is in proportion to the visible set: gated / all = mean visible tokens / all tokens
    ratio = gated["tool_tokens_per_task"] / full["tool_tokens_per_task"]
    assert ratio == pytest.approx(sum(n * p.steps for n, p in zip(per_phase, phases, strict=True)) / steps / everything)
    assert ratio < 1
    return gated, full


SEED_PHASES = (ts.Phase("investigate", ("search_*", "query_*", "list_*", "describe_*"), steps=5),
               ts.Phase("act", ("create_*", "update_*", "restart_*", "rollback_*"), steps=3),
               ts.Phase("escalate", ("page_oncall", "create_incident", "notify_channel"), steps=1))


def test_phase_gating_lowers_tool_tokens_in_proportion_on_a_built_registry():
    check_phase_gating(small_registry(), SEED_PHASES)


@pytest.mark.skipif(not OPS.exists(), reason="sample registry not present")
def test_phase_gating_on_the_sample_registry():
    reg = ts.load(OPS)
    phases = ts.load_scenario(ROOT / "data/scenarios/ops_assistant.toml").phase_list()
    gated, full = check_phase_gating(reg, phases)
    assert gated["mean_visible"] < full["mean_visible"] == len(reg)


def test_phase_tags_select_tools():
    reg = ts.Registry.from_tools([ts.Tool("a", "x", tags={"phase": "read"}), ts.Tool("b", "y" * 50, tags={"phase": "write"})])
    run = ts.simulate(reg, ts.Scenario(strategy="phases", steps=2, phases=[
        {"name": "r", "tags": {"phase": "read"}}, {"name": "w", "tags": {"phase": "write"}}], **QUIET))
    assert list(run.steps["phase"]) == ["r", "w"]
    assert list(run.steps["tools"]) == [compact_tokens(reg.tools[0]), compact_tokens(reg.tools[1])]


# ---------------------------------------------------------------- accuracy assumption

def test_default_curve_reproduces_seed_001_points_and_rules():
    c = ts.load_accuracy()
    assert list(c.wrong_rate([6, 12, 25, 40])) == pytest.approx([0.04, 0.09, 0.16, 0.18])
    assert list(c.success_rate([6, 12, 25, 40])) == pytest.approx([0.91, 0.86, 0.77, 0.67])
    assert float(c.wrong_rate(18.5)) == pytest.approx(0.09 + 6.5 / 13 * 0.07)
    # The same source's 63-tool registry: 21% wrong, 58% success; linear between 40 and 63.
    assert float(c.wrong_rate(63)) == pytest.approx(0.21) and float(c.success_rate(63)) == pytest.approx(0.58)
    assert float(c.wrong_rate(51.5)) == pytest.approx(0.18 + 0.5 * 0.03)
    assert float(c.wrong_rate(3)) == 0.04 and float(c.wrong_rate(200)) == 0.21  # clamped outside
    ext = ts.AccuracyCurve(c.visible, c.wrong, c.success, outside="extrapolate")
    assert float(ext.wrong_rate(86)) == pytest.approx(0.21 + 23 * 0.03 / 23)
    assert float(ext.success_rate(86)) == pytest.approx(0.58 - 23 * 0.09 / 23)
    assert float(ext.wrong_rate(0)) == 0.04  # nothing measured below 6 tools: not extrapolated to 0 tools
    assert float(ext.wrong_rate(10_000)) < 1 and float(ext.success_rate(10_000)) > 0


def test_wrong_calls_add_steps_and_success_divides_cost():
    sc = ts.Scenario(tool_tokens=100, registry_size=25, steps=9)
    on, off = ts.simulate(None, sc).summary, ts.simulate(None, sc, accuracy=False).summary
    assert on["wrong_rate"] == 0.16 and on["success"] == 0.77
    # 16% of calls wrong: the 8 useful calls take 8 / 0.84 calls
    assert on["expected_requests"] == pytest.approx(1 + 8 / 0.84)
    assert off["expected_requests"] == 9 and off["success"] == 1 and off["wrong_rate"] == 0
    assert on["cost_per_completed_task"] == pytest.approx(on["cost_per_task"] / 0.77)
    assert on["cost_per_month"] == pytest.approx(on["cost_per_completed_task"] * 1000 * 30)
    two = ts.simulate(None, sc, wrong_call_steps=2).summary
    assert two["expected_requests"] == pytest.approx(1 + 8 + 2 * 8 * 0.16 / 0.84)
    assert "Tool registry design" in ts.simulate(None, sc).assumptions["accuracy_curve"]["source"]


def test_custom_curve_file(tmp_path):
    p = tmp_path / "curve.toml"
    p.write_text('source = "our eval"\n[[points]]\nvisible = 0\nwrong = 0\nsuccess = 1\n'
                 '[[points]]\nvisible = 100\nwrong = 0.5\nsuccess = 0.5\n')
    run = ts.simulate(None, ts.Scenario(tool_tokens=10, registry_size=50, steps=3, accuracy_curve=str(p)))
    assert run.summary["wrong_rate"] == pytest.approx(0.25) and run.assumptions["accuracy_curve"]["source"] == "our eval"


# ---------------------------------------------------------------- every output carries its assumptions

def test_outputs_carry_assumptions():
    run = ts.simulate(small_registry(), ts.Scenario(model="gpt-5", steps=4))
    a = run.assumptions
    assert a["price"]["input"] == 1.25 and a["price"]["source"].startswith("https://")
    assert a["steps"] == 4 and a["strategy"] == "all" and "rules" in a
    assert run.table().attrs["assumptions"] is a
    grid = ts.sweep(small_registry(), steps=[1, 2], model=["gpt-5", "claude-sonnet-4-5"])
    assert set(grid.attrs["assumptions"]["prices"]) == {"gpt-5", "claude-sonnet-4-5"}
    assert grid.attrs["assumptions"]["swept"] == {"steps": [1, 2], "model": ["gpt-5", "claude-sonnet-4-5"]}


# ---------------------------------------------------------------- context window

def test_requests_over_the_context_window_are_flagged_not_priced():
    sc = ts.Scenario(tool_tokens=1000, registry_size=10, steps=20, response_tokens=5000,
                     prices={"claude-sonnet-4-5": {"context_window": 50_000}})
    with pytest.warns(UserWarning, match="context window"):
        run = ts.simulate(None, sc)
    assert not run.summary["fits"] and math.isnan(run.summary["cost_per_task"])
    assert run.steps["fits"].iloc[0] and not run.steps["fits"].iloc[-1]
    assert run.steps.loc[~run.steps["fits"], "cost"].isna().all()


# ---------------------------------------------------------------- Monte Carlo

def test_monte_carlo_is_seeded_and_reduces_to_the_fixed_case():
    reg = small_registry()
    sc = ts.Scenario(steps={"dist": "lognormal", "mean": 8, "sd": 4}, response_tokens=[100, 2000, 50], samples=500, seed=7)
    a, b = ts.simulate(reg, sc), ts.simulate(reg, sc)
    assert a.percentiles.equals(b.percentiles)
    assert a.percentiles.loc["p50", "cost"] <= a.percentiles.loc["p90", "cost"] <= a.percentiles.loc["p99", "cost"]
    fixed = ts.simulate(reg, ts.Scenario(steps=6, samples=50, accuracy=False))
    assert fixed.percentiles.loc["p99", "cost"] == pytest.approx(fixed.summary["cost_per_task"], rel=1e-12)


# ---------------------------------------------------------------- properties

REG = small_registry()


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 30), st.sampled_from(["all", "retrieval", "tool_search", "phases"]),
       st.sampled_from(["none", "prefix", "incremental"]), st.booleans(), st.integers(0, 3000),
       st.sampled_from(["claude-sonnet-4-5", "gpt-5-mini", "gemini-2.5-pro"]))
def test_cost_never_negative_and_grows_with_steps(steps, strategy, caching, accuracy, response, model):
    sc = ts.Scenario(strategy=strategy, caching=caching, accuracy=accuracy, response_tokens=response,
                     model=model, phases=SEED_PHASES, retrieval_k=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grid = ts.sweep(REG, sc, steps=[steps, steps + 1])
    assert (grid["cost_per_task"] >= 0).all() and (grid["cost_per_month"] >= 0).all()
    assert grid["cost_per_task"].iloc[1] >= grid["cost_per_task"].iloc[0]
    assert grid["cost_per_completed_task"].iloc[1] >= grid["cost_per_completed_task"].iloc[0]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9), st.integers(1, 20), st.sampled_from(["all", "retrieval"]), st.booleans())
def test_cost_grows_with_visible_tools(visible, steps, strategy, accuracy):
    # Without caching: with it, crossing the minimum cacheable length can make a bigger prefix cheaper.
    grid = ts.sweep(REG, ts.Scenario(strategy=strategy, steps=steps, accuracy=accuracy), visible=[visible, visible + 1])
    assert grid["tool_tokens_per_task"].iloc[1] >= grid["tool_tokens_per_task"].iloc[0]
    assert grid["cost_per_completed_task"].iloc[1] >= grid["cost_per_completed_task"].iloc[0]


# ---------------------------------------------------------------- bad input

def test_unknown_model_lists_known_ones_and_how_to_add():
    with pytest.raises(InputError, match=r"unknown model 'gpt-9'.*close matches.*To add one"):
        ts.simulate(REG, ts.Scenario(model="gpt-9"))
    run = ts.simulate(REG, ts.Scenario(model="gpt-9", prices={"gpt-9": {
        "input": 1, "output": 2, "cache_write": 1, "cache_read": 0.1, "context_window": 10**6, "min_cache_tokens": 0}}))
    assert run.assumptions["price"]["source"] == "user override"


@pytest.mark.parametrize("steps", [0, -3, [0, 2], {"dist": "uniform", "low": 0, "high": 4}])
def test_non_positive_steps_are_refused(steps):
    with pytest.raises(InputError, match="steps must be >= 1"):
        ts.Scenario(steps=steps)


def test_visible_larger_than_registry_is_clamped_with_a_warning():
    with pytest.warns(UserWarning, match="visible=99 is more than the 10 tools"):
        run = ts.simulate(REG, ts.Scenario(visible=99))
    assert run.summary["mean_visible"] == 10 and "clamped" in run.warnings[0]


def test_phase_matching_no_tool():
    with pytest.raises(InputError, match=r"phase 'ship' matches no tool.*'deploy_\*'"):
        ts.simulate(REG, ts.Scenario(strategy="phases", phases=[{"name": "ship", "tools": ["deploy_*"]}]))


def test_prices_missing_a_field():
    with pytest.raises(InputError, match="miss cache_read, context_window, min_cache_tokens"):
        ts.simulate(REG, ts.Scenario(model="mine", prices={"mine": {"input": 1, "output": 2, "cache_write": 1}}))


@pytest.mark.parametrize("kw, msg", [
    ({"strategy": "magic"}, "unknown strategy"), ({"caching": "always"}, "unknown caching"),
    ({"visible": -1}, "visible must be"), ({"response_tokens": {"dist": "zipf"}}, "unknown distribution"),
    ({"strategy": "phases"}, "needs phases"), ({"tasks_per_day": -5}, "tasks_per_day"),
])
def test_bad_scenario_values(kw, msg):
    with pytest.raises(InputError, match=msg):
        ts.Scenario(**kw)


def test_sweep_unknown_field():
    with pytest.raises(InputError, match="unknown field.*colour"):
        ts.sweep(REG, colour=["red"])


# ---------------------------------------------------------------- scenario files

def test_bundled_scenario_file_loads():
    sc = ts.load_scenario(ROOT / "data/scenarios/ops_assistant.toml")
    assert sc.strategy == "phases" and [p.name for p in sc.phase_list()] == ["investigate", "act", "escalate"]
    assert sc.tasks_per_day == 5000 and sc.caching == "prefix" and sc.render == "auto"


def test_scenario_file_errors_and_distributions(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text('model = "gpt-5"\nstepz = 3\n')
    with pytest.raises(InputError, match=r"unknown key\(s\) stepz.*expected some of"):
        ts.load_scenario(p)
    p.write_text('version = 2\n')
    with pytest.raises(InputError, match="version 2"):
        ts.load_scenario(p)
    (tmp_path / "resp.csv").write_text("tokens\n100\n300\n")
    p.write_text('steps = {dist = "poisson", mean = 7}\nresponse_tokens = {file = "resp.csv"}\n'
                 '[prices."gpt-5"]\ninput = 9.0\n')
    sc = ts.load_scenario(p)
    assert sc.steps.kind == "poisson" and sc.response_tokens.values == (100.0, 300.0)
    assert ts.simulate(REG, sc, model="gpt-5").assumptions["price"]["input"] == 9.0


# ---------------------------------------------------------------- LiteLLM price file

LITELLM = {
    "sample_spec": {"input_cost_per_token": 0, "output_cost_per_token": 0, "max_input_tokens": "n"},
    "acme-1": {"input_cost_per_token": 2e-06, "output_cost_per_token": 8e-06,
               "cache_creation_input_token_cost": 2.5e-06, "cache_read_input_token_cost": 2e-07,
               "max_input_tokens": 100000, "litellm_provider": "acme", "mode": "chat"},
    "acme-embed": {"input_cost_per_token": 1e-07, "output_cost_per_token": 0, "max_input_tokens": 8000,
                   "mode": "embedding"},
}


def check_acme(prices):
    p = prices["acme-1"]
    assert (p.input, p.output, p.cache_write, p.cache_read, p.context_window) == pytest.approx((2, 8, 2.5, 0.2, 100000))
    assert "acme-embed" not in prices and "claude-sonnet-4-5" in prices


def test_litellm_file_by_path(tmp_path):
    f = tmp_path / "model_prices_and_context_window.json"
    f.write_text(json.dumps(LITELLM))
    check_acme(ts.load_prices(f))
    run = ts.simulate(None, ts.Scenario(price_file=str(f), **WORKED | {"model": "acme-1"}))
    assert run.summary["cost_per_task"] == pytest.approx((10_650 * 2 + 300 * 8) / 1e6)


def test_bundled_prices_have_source_and_date():
    prices = ts.load_prices()
    providers = {p.provider for p in prices.values()}
    assert {"anthropic", "openai", "google"} <= providers
    for p in prices.values():
        if p.provider not in ("anthropic", "openai", "google"):
            continue
        assert p.source.startswith("https://") and len(p.as_of) == 10
        assert p.cache_read <= p.input and p.output >= 0  # free experimental models exist
        if p.provider == "anthropic":
            assert p.cache_write >= p.input


# ---------------------------------------------------------------- CLI

def test_cli_table_json_csv(cli, tmp_path):
    reg = tmp_path / "tools.json"
    reg.write_text(json.dumps({"tools": [t.to_mcp() for t in REG]}))
    code, out, err = cli("simulate", reg, "--model", "claude-sonnet-4-5", "--steps", "1-3", "--visible", "4,8,40",
                         "--tasks-per-day", "5000")
    assert code == 0 and "Tool registry design" in out and "clamped" in err
    assert "every row: model claude-sonnet-4-5" in out  # columns the same on every row are named once
    lines = out.splitlines()
    assert len(lines[next(i for i, ln in enumerate(lines) if ln.startswith("─")) + 1:]) == 9
    code, out, _ = cli("simulate", reg, "--steps", "9", "--format", "json", "--strategy", "all,retrieval")
    doc = json.loads(out)
    assert code == 0 and len(doc["rows"]) == 2 and doc["assumptions"]["price"]["model"] == "claude-sonnet-4-5"
    code, out, _ = cli("simulate", "--tool-tokens", "180", "--registry-size", "20", "--steps", "9", "--no-accuracy",
                       "--format", "csv")
    assert code == 0 and out.splitlines()[1].split(",")[9] == "32400.0"


def test_cli_monte_carlo_and_scenario_file(cli):
    code, out, _ = cli("simulate", "--tool-tokens", "180", "--registry-size", "20", "--steps", "9",
                       "--samples", "200", "--seed", "3")
    assert code == 0 and "Monte Carlo (200 tasks, seed 3)" in out and "p99" in out
    if OPS.exists():
        code, out, _ = cli("simulate", OPS, "--scenario", ROOT / "data/scenarios/ops_assistant.toml",
                           "--format", "json")
        doc = json.loads(out)
        assert code == 0 and doc["rows"][0]["strategy"] == "phases"
        assert [p["name"] for p in doc["assumptions"]["phases"]] == ["investigate", "act", "escalate"]


@pytest.mark.parametrize("argv, msg", [
    (["--model", "nope"], "unknown model 'nope'"), (["--steps", "0"], "--steps: expected values from 1 to 1,000"),
    (["--steps", "9-x"], "expected N, A-B"), (["--strategy", "phases", "--phases", "missing.toml"], "cannot read"),
    (["--scenario", "missing.toml"], "cannot read scenario"),
])
def test_cli_bad_input_is_one_line(cli, tmp_path, argv, msg):
    reg = tmp_path / "tools.json"
    reg.write_text(json.dumps({"tools": [t.to_mcp() for t in REG]}))
    code, out, err = cli("simulate", reg, *argv)
    assert code == 2 and msg in err and "Traceback" not in err
