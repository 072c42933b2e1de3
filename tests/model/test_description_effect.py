"""The description-length assumption and `description_sweep`, checked against hand-worked rates
and against `simulate` called directly."""


import pandas as pd
import pytest
from conftest import ROOT

from toolsurvey import Scenario, simulate
from toolsurvey.errors import InputError
from toolsurvey.model.accuracy import AccuracyCurve, DescriptionEffect, load_accuracy, load_description_effect
from toolsurvey.model.sweeps import description_sweep

# Three tools: descriptions of 30, 10 and 50 tokens (mean 30); the rest of each tool 30, 10, 50 (mean 30).
TABLE = pd.DataFrame({"kind": ["tool", "tool", "tool", "overhead"],
                      "description": [30, 10, 50, 0], "tokens": [60, 20, 100, 12]})
CURVE = AccuracyCurve((6, 40), (0.10, 0.30), (0.90, 0.50))
EFFECT = DescriptionEffect((10, 60), (1.0, 0.5), (1.0, 0.8))


def test_scaling_a_curve_multiplies_wrong_and_failure_rates():
    c = CURVE.scaled(wrong=0.5, failure=0.8)
    assert c.wrong == pytest.approx((0.05, 0.15))
    assert c.success == pytest.approx((1 - 0.1 * 0.8, 1 - 0.5 * 0.8))
    assert "scaled" in c.source


def test_scaling_stays_within_rates():
    c = CURVE.scaled(wrong=10, failure=10)
    # wrong stays below 1: with wrong = share of calls that are wrong, a task takes useful / (1 - wrong) calls
    assert 0.9 < max(c.wrong) < 1.0 and min(c.success) > 0


def test_multipliers_are_relative_to_the_current_length():
    wrong, failure = EFFECT.relative([10, 35, 60, 500], now=35)
    # at 35 tokens the bundled-style line gives 0.75 (wrong) and 0.9 (failure): 35 is the reference
    assert list(wrong) == pytest.approx([1 / 0.75, 1.0, 0.5 / 0.75, 0.5 / 0.75])
    assert list(failure) == pytest.approx([1 / 0.9, 1.0, 0.8 / 0.9, 0.8 / 0.9])


def test_without_the_effect_each_length_is_priced_like_simulate_in_average_mode():
    sc = Scenario(steps=3, system_prompt_tokens=100, accuracy_curve=CURVE)
    grid = description_sweep(TABLE, sc, [0, 100], effect=False)
    assert list(grid["tool_tokens"]) == [30.0, 130.0]
    assert list(grid["tool_tokens_per_request"]) == [90.0, 390.0]
    direct = simulate(None, Scenario(steps=3, system_prompt_tokens=100, accuracy_curve=CURVE,
                                     tool_tokens=130.0, registry_size=3)).summary
    assert grid["cost_per_completed_task"].iloc[1] == pytest.approx(direct["cost_per_completed_task"])


def test_with_the_effect_longer_descriptions_cut_wrong_calls_by_the_stated_multiplier():
    sc = Scenario(steps=3, accuracy_curve=CURVE)
    grid = description_sweep(TABLE, sc, [30, 60], effect=EFFECT)
    # 3 visible tools: below the curve's first point, so the curve gives 10% wrong and 90% success.
    # Current mean description = 30 tokens -> multipliers 0.8 (wrong) and 0.92 (failure) at 30.
    at30, at60 = grid.iloc[0], grid.iloc[1]
    assert at30["wrong_rate"] == pytest.approx(0.10) and at30["success"] == pytest.approx(0.90)
    assert at60["wrong_rate"] == pytest.approx(0.10 * 0.5 / 0.8)
    assert at60["success"] == pytest.approx(1 - 0.10 * 0.8 / 0.92)
    direct = simulate(None, Scenario(steps=3, tool_tokens=90.0, registry_size=3,
                                     accuracy_curve=CURVE.scaled(0.5 / 0.8, 0.8 / 0.92))).summary
    assert at60["cost_per_completed_task"] == pytest.approx(direct["cost_per_completed_task"])
    assert grid.attrs["assumptions"]["description_effect"]["relative_to_mean_description_tokens"] == 30


def test_the_effect_is_off_when_the_accuracy_effect_is_off():
    grid = description_sweep(TABLE, Scenario(steps=3, accuracy=False), [0, 200])
    assert list(grid["wrong_multiplier"]) == [1.0, 1.0]
    assert grid.attrs["assumptions"]["description_effect"] is None


def test_bundled_effect_gives_the_seed_trade_off_on_the_sample():
    """With the bundled assumptions, cost per completed task falls from very short descriptions to
    the 50-150 band and rises again past it, where only the tokens change."""
    import toolsurvey as ts

    table = ts.footprint(ts.load(ROOT / "data/registries/ops_assistant.json"))
    grid = description_sweep(table, Scenario(steps=9), [0, 60, 150, 400])
    cost = list(grid["cost_per_completed_task"])
    assert cost[1] < cost[0] and cost[3] > cost[2]
    eff = load_description_effect()
    assert "Tool registry design" in eff.source and "Tool registry design" in load_accuracy().source


def test_malformed_effect_files_are_refused(tmp_path):
    bad = tmp_path / "e.toml"
    bad.write_text("[[points]]\ntokens = 10\n")
    with pytest.raises(InputError, match="numeric tokens, wrong and failure"):
        load_description_effect(bad)
    with pytest.raises(InputError, match="no such description effect"):
        load_description_effect(tmp_path / "missing.toml")
    with pytest.raises(InputError, match="increasing tokens"):
        DescriptionEffect((10, 10), (1, 1), (1, 1))
