"""Benchmark: one widget update (library recompute + figure update in place) on a 1,000-tool registry.

    .venv/bin/python bench/widgets.py [--tools 1000] [--repeat 15]

Builds a registry of `--tools` tools from copies of the sample registry's tools (renamed), opens the
catalog-size explorer, and times moving the visible-tools slider (one simulation of the task plus the
per-request chart copied into its FigureWidget). In the same run it times the library call alone
(`toolsurvey.simulate` with the same scenario) and `toolsurvey.footprint` of the registry, and prints
the ratios: widget update / simulate is what the widget layer adds (the slider also re-runs the
catalog sweep); footprint is what measuring the registry costs, which simulate pays once per
registry and reuses afterwards. Target: a widget update under 100 ms.
The response-trimming explorer's update (a field checkbox on the sample issues) is timed too.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import toolsurvey as ts  # noqa: E402
from toolsurvey.present import widgets  # noqa: E402


def timed(f, repeat: int) -> float:
    """Median wall time of `f()` in milliseconds."""
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        out.append((time.perf_counter() - t0) * 1000)
    return statistics.median(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tools", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    warnings.simplefilter("ignore")

    base = ts.load(ROOT / "data/registries/ops_assistant.json")
    copies = -(-args.tools // len(base))
    tools = [dataclasses.replace(t, name=f"{t.name}_{i}", raw=None) for i in range(copies) for t in base.tools]
    reg = ts.Registry.from_tools(tools[:args.tools])
    sc = ts.Scenario(model="claude-sonnet-4-5", steps=9, system_prompt_tokens=1200, user_message_tokens=150,
                     response_tokens=800, caching="prefix", strategy="all")

    box = widgets.catalog_explorer(reg, sc, strategies=["all", "retrieval", "tool_search"])
    slider = box.controls["visible"]
    values = iter([v for _ in range(args.repeat + 2) for v in (40, 200)])
    widget_ms = timed(lambda: setattr(slider, "value", next(values)), args.repeat)
    simulate_ms = timed(lambda: ts.simulate(reg, sc, visible=200), args.repeat)
    footprint_ms = timed(lambda: ts.footprint(reg), args.repeat)

    resp = widgets.response_explorer(ROOT / "data/responses/list_issues")
    body = resp.controls["fields"]["[].body"]
    resp_ms = timed(lambda: setattr(body, "value", not body.value), args.repeat)

    print(f"registry: {len(reg)} tools; median of {args.repeat} updates")
    print(f"catalog explorer, visible-tools slider: {widget_ms:8.1f} ms  (target < 100 ms)")
    print(f"  toolsurvey.simulate alone:             {simulate_ms:8.1f} ms  -> widget / simulate = "
          f"{widget_ms / simulate_ms:.2f}x")
    print(f"  toolsurvey.footprint of the registry:  {footprint_ms:8.1f} ms  -> footprint / simulate = "
          f"{footprint_ms / simulate_ms:.2f}x (paid once; later simulate calls reuse it)")
    print(f"response explorer, one field checkbox:  {resp_ms:8.1f} ms  (5 samples, 10 issues each)")


if __name__ == "__main__":
    main()
