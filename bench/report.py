"""The report on a 1,000-tool registry against what it is made of: footprint + one simulate + audit.

Run: .venv/bin/python bench/report.py [--tools 1000]
Target (issue 15): `toolsurvey.report` within 2x of `footprint` + one `simulate` + `audit` of the same
registry, all timed in this run (each the best of --repeat runs, interleaved).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import toolsurvey as ts  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tools", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    base = ts.load(ROOT / "data/registries/ops_assistant.json")
    copies = -(-a.tools // len(base))
    tools = [dataclasses.replace(t, name=f"{t.name}_{i}" if i else t.name, raw=None,
                                 description=(t.description or "") + f" Variant {i}.")
             for i in range(copies) for t in base.tools]
    reg = ts.Registry.from_tools(tools[:a.tools])
    sc = ts.load_scenario(ROOT / "data/scenarios/ops_assistant.toml")
    parts = {"footprint": lambda: ts.footprint(reg), "simulate": lambda: ts.simulate(reg, sc),
             "audit": lambda: ts.audit(reg), "report": lambda: ts.report(reg, scenario=sc)}
    parts["report"]()  # warm up: encodings, imports, price files
    best = dict.fromkeys(parts, float("inf"))
    for _ in range(a.repeat):
        for name, f in parts.items():
            t0 = time.perf_counter()
            f()
            best[name] = min(best[name], time.perf_counter() - t0)
    pieces = best["footprint"] + best["simulate"] + best["audit"]
    for name, s in best.items():
        print(f"{name:>10}: {s:7.2f} s")
    print(f"report vs footprint + simulate + audit ({pieces:.2f} s): {best['report'] / pieces:.2f}x (goal <= 2x)")


if __name__ == "__main__":
    main()
