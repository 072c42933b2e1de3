"""Time to plan and attribute an exact count of a large registry (default 2,000 tools), with every
answer already in the cache, against a baseline measured in the same run: serializing each tool's
single-tool request body once, the least any plan must do.

    .venv/bin/python bench/counting.py [--tools 2000]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from toolsurvey.core.registry import Registry, Tool  # noqa: E402
from toolsurvey.measuring.counting.cache import Cache  # noqa: E402
from toolsurvey.measuring.counting.exact import exact_footprint  # noqa: E402
from toolsurvey.measuring.counting.requests import plan  # noqa: E402

TARGET = "anthropic:claude-sonnet-4-5"


def registry(n: int) -> Registry:
    props = {f"p{j}": {"type": "string", "description": f"parameter {j} of the call"} for j in range(8)}
    return Registry.from_tools([Tool(f"tool_{i}", f"Tool {i} does a thing with widgets and gadgets. " * 6,
                                     {"type": "object", "properties": props}, server=f"s{i % 20}")
                                for i in range(n)])


def best(f, repeat=3) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tools", type=int, default=2000)
    n = ap.parse_args().tools
    reg = registry(n)
    p = plan(reg, TARGET)
    bodies = [r.body for r in p.singles]
    baseline = best(lambda: [json.dumps(b, separators=(",", ":")).encode() for b in bodies])
    t_plan = best(lambda: plan(reg, TARGET))
    t_split = best(lambda: plan(reg, TARGET, max_body_bytes=200_000))
    with tempfile.TemporaryDirectory() as d:
        cache = Cache(d)
        for i, r in enumerate(plan(reg, TARGET).requests):  # every answer cached: no network, no key
            cache.put(r.key, "anthropic", "claude-sonnet-4-5", 4 + (0 if i == 0 else 400 + i))
        t_all = best(lambda: exact_footprint(reg, TARGET, cache_dir=d, environ={}), repeat=1)
    print(f"{n:,} tools, {len(p.requests):,} requests")
    print(f"baseline (serialize each single-tool body once): {baseline:.3f} s")
    print(f"plan, one part:         {t_plan:.3f} s  ({t_plan / baseline:.1f}x baseline)")
    print(f"plan, 200 kB parts:     {t_split:.3f} s  ({t_split / baseline:.1f}x baseline)")
    print(f"exact_footprint, cached: {t_all:.3f} s  ({t_all / baseline:.1f}x baseline)")


if __name__ == "__main__":
    main()
