"""Throughput and peak memory of reading Claude Code traces, against a baseline measured in the same run:
a plain loop of `json.loads` over every line plus tiktoken (o200k_base) over every tool result, the
least any reader of these files must do.

    .venv/bin/python bench/traces.py [--mb 1000] [--dir FOLDER] [--engines python,duckdb] [--dask]

Traces are generated with scripts/gen_traces.py (Claude Code sessions, streamed requests, subagents)
into FOLDER (default: a temporary folder) until they reach --mb megabytes; an existing FOLDER is reused.
Each reader runs in its own process, so its peak memory (max RSS) is its own. Goals: >= 0.8x the
baseline's MB/s, and a peak under 600 MB whatever the input size.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def baseline(folder: str) -> dict:
    from toolsurvey.core.tokens import get_encoding

    enc = get_encoding("o200k_base")
    lines = tokens = 0
    for f in sorted(Path(folder).rglob("*.jsonl")):
        with open(f, "rb") as fh:
            for raw in fh:
                rec = json.loads(raw)
                lines += 1
                content = (rec.get("message") or {}).get("content")
                for b in content if isinstance(content, list) else []:
                    if isinstance(b, dict) and b.get("type") == "tool_result":
                        c = b.get("content")
                        tokens += len(enc.encode_ordinary(c if isinstance(c, str) else json.dumps(c)))
    return {"lines": lines, "result_tokens": tokens}


def reader(folder: str, engine: str, scheduler: str | None) -> dict:
    from toolsurvey.inputs.traces.load import load_traces

    tr = load_traces(folder, engine=engine, scheduler=scheduler, keep_results=False)
    return {"requests": len(tr.requests), "result_tokens": int(tr.calls["result_tokens"].sum()),
            "cost": round(float(tr.requests["cost"].sum()), 6)}


def child(kind: str, folder: str, engine: str, scheduler: str | None) -> None:
    """Run one reader and print its figures, time and own peak memory as JSON."""
    import resource

    t = time.perf_counter()
    out = baseline(folder) if kind == "baseline" else reader(folder, engine, scheduler)
    out["seconds"] = time.perf_counter() - t
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def run(kind: str, folder: str, engine: str = "", scheduler: str | None = None) -> dict:
    cmd = [sys.executable, __file__, "--child", kind, "--dir", folder, "--engine", engine]
    if scheduler:
        cmd += ["--scheduler", scheduler]
    res = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=1000, help="size of the generated traces (default: %(default)s)")
    ap.add_argument("--dir", default=None, help="folder of traces to use, or to generate into")
    ap.add_argument("--engines", default="python,duckdb", help="engines to time (comma-separated)")
    ap.add_argument("--dask", action="store_true", help="also run the Dask engine on a 2-worker LocalCluster")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--engine", default="", help=argparse.SUPPRESS)
    ap.add_argument("--scheduler", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        return child(a.child, a.dir, a.engine, a.scheduler)

    folder = a.dir or tempfile.mkdtemp(prefix="toolsurvey-traces-bench-")
    if not any(Path(folder).rglob("*.jsonl")):
        sys.path.insert(0, str(ROOT / "scripts"))
        from gen_traces import generate

        t = time.perf_counter()
        n = generate("claude-code", Path(folder), sessions=1, steps=30, mb=a.mb)
        print(f"generated {n:,} sessions in {time.perf_counter() - t:.0f} s")
    size = sum(p.stat().st_size for p in Path(folder).rglob("*") if p.is_file()) / 1e6
    print(f"traces: {folder} ({size:,.1f} MB)")
    base = run("baseline", folder)
    mbs = size / base["seconds"]
    print(f"{'reader':<28}{'seconds':>9}{'MB/s':>9}{'x baseline':>12}{'peak MB':>10}")
    print(f"{'json.loads + tiktoken loop':<28}{base['seconds']:>9.1f}{mbs:>9.1f}{1.0:>12.2f}{base['peak_mb']:>10.0f}")
    runs = [(e, None) for e in a.engines.split(",") if e]
    cluster = None
    if a.dask:
        from distributed import LocalCluster

        cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
        runs.append(("dask", cluster.scheduler_address))
    results = {}
    for engine, scheduler in runs:
        r = run("reader", folder, engine, scheduler)
        results[engine] = r
        label = f"toolsurvey --engine {engine}" + (" (2 workers)" if scheduler else "")
        print(f"{label:<28}{r['seconds']:>9.1f}{size / r['seconds']:>9.1f}{base['seconds'] / r['seconds']:>12.2f}"
              f"{r['peak_mb']:>10.0f}")
    if cluster is not None:
        cluster.close()
    figures = {json.dumps({k: v for k, v in r.items() if k not in ("seconds", "peak_mb")}) for r in results.values()}
    print("engines agree: " + ("yes" if len(figures) == 1 else f"NO: {figures}"))
    print(f"result tokens: baseline {base['result_tokens']:,}; toolsurvey "
          f"{next(iter(results.values()))['result_tokens']:,} (one count per tool call: results repeated by a "
          "resumed session are not counted again)" if results else "")


if __name__ == "__main__":
    main()
