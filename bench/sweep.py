"""Peak memory of a large sweep: 1,000,000 scenarios over steps 1-100 on the sample registry.

Run: .venv/bin/python bench/sweep.py [--groups 10000]
Target (issue 15): peak resident memory under 1.5 GB (the sweep runs in chunks of rows). Prints the
peak next to the memory the result table alone needs, measured in the same run.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import toolsurvey as ts  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--groups", type=int, default=10_000, help="scenarios per step count (x 100 steps)")
    a = ap.parse_args()
    reg = ts.load(ROOT / "data/registries/ops_assistant.json")
    visible = list(range(1, 51))
    system = list(range(0, 50 * (a.groups // len(visible)), 50))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = ts.sweep(reg, steps=range(1, 101), visible=visible, system_prompt_tokens=system)
    took = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"sweep: {len(table):,} scenarios (steps 1-100) in {took:.1f} s")
    print(f"peak resident memory {peak:,.0f} MiB (goal < 1,536 MiB); before the sweep {before:,.0f} MiB; "
          f"the result table alone {table.memory_usage(deep=True).sum() / 2**20:,.0f} MiB")


if __name__ == "__main__":
    main()
