"""Benchmark: the vectorised sweep against the per-request oracle loop, in the same run.

    .venv/bin/python bench/simulate.py [--subset 400]

Sweeps steps 1-20 x visible 6/12/25/40/63 x 4 strategies x every bundled model x 2 caching modes
on the sample registry, then times the oracle (tests/model/test_simulation_oracle.py) on a random subset
of the same scenarios, checks that both agree, and prints the per-scenario speed-up.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from test_simulation_oracle import Oracle  # noqa: E402

import toolsurvey as ts  # noqa: E402

# 27 current models of the three providers toolsurvey has rules for (the price table has thousands).
MODELS = ["claude-opus-4-5", "claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-1", "claude-sonnet-4",
          "claude-3-5-haiku", "claude-opus-4-6", "claude-sonnet-5", "claude-opus-5", "claude-sonnet-5-5",
          "claude-opus-5-5", "gpt-5.1", "gpt-5", "gpt-5-mini", "gpt-5-nano", "gpt-4.1", "gpt-4.1-mini", "gpt-4o",
          "gpt-4o-mini", "o3", "o4-mini", "gpt-5.4", "gpt-5.4-mini", "gemini-2.5-pro", "gemini-2.5-flash",
          "gemini-2.5-flash-lite", "gemini-3.1-pro-preview"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--subset", type=int, default=400, help="scenarios timed with the oracle loop")
    ap.add_argument("--registry", default=str(ROOT / "data/registries/ops_assistant.json"))
    args = ap.parse_args()

    reg = ts.load(args.registry)
    base = ts.Scenario(system_prompt_tokens=1200, user_message_tokens=150, response_tokens=800,
                       phases=str(ROOT / "data/phases/ops_assistant.toml"), core=("page_oncall",))
    grid = dict(steps=list(range(1, 21)), visible=[6, 12, 25, 40, 63],
                strategy=["all", "phases", "retrieval", "tool_search"],
                model=MODELS, caching=["none", "prefix"])
    ts.sweep(reg, base, steps=[1])  # warm up imports and the tokenizer, as the oracle's set-up does

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        table = ts.sweep(reg, base, **grid)
        fast = time.perf_counter() - t0
    n = len(table)

    oracle = Oracle(reg)
    rng = random.Random(0)
    picks = rng.sample(range(n), args.subset)
    scenarios = [ts.Scenario(**{**{f: getattr(base, f) for f in ("system_prompt_tokens", "user_message_tokens",
                                                                 "response_tokens", "phases", "core")},
                                "steps": int(table.steps[i]), "visible": int(table.visible[i]),
                                "strategy": table.strategy[i], "model": table.model[i], "caching": table.caching[i]})
                 for i in picks]
    for sc in scenarios:  # each model's rendering measured once, outside the timing
        oracle.measure(sc)
    t0 = time.perf_counter()
    costs = [oracle.expected(sc)["cost"] for sc in scenarios]
    slow = time.perf_counter() - t0

    # A second baseline: the same engine called one scenario at a time (no batching across rows),
    # sharing the measured registry as the oracle does.
    from toolsurvey.model import simulate as simulation

    ctx = simulation._Context(reg)
    simulation._summaries(simulation._rows(ctx, scenarios[:1]))
    t0 = time.perf_counter()
    for sc in scenarios[:200]:
        simulation._summaries(simulation._rows(ctx, [sc]))
    single = (time.perf_counter() - t0) / 200

    worst = max(abs(c - table.cost_per_task[i]) / max(c, 1e-12) for c, i in zip(costs, picks, strict=True))
    per_fast, per_slow = fast / n, slow / len(scenarios)
    print(f"sweep:  {n:,} scenarios in {fast:.3f} s  ({n / fast:,.0f} scenarios/s, {per_fast * 1e6:.1f} us each)")
    print(f"oracle: {len(scenarios):,} scenarios in {slow:.3f} s  ({len(scenarios) / slow:,.0f} scenarios/s, "
          f"{per_slow * 1e6:.1f} us each)")
    print(f"engine one scenario at a time: {single * 1e6:.0f} us each ({single / per_fast:,.0f}x slower than batched)")
    print(f"agreement on the subset: worst relative difference {worst:.1e}")
    print(f"speed-up per scenario: {per_slow / per_fast:,.0f}x (target >= 100x)")


if __name__ == "__main__":
    main()
