"""`toolsurvey traces` next to ccusage 20.0.24, the cost analyzer Claude Code users already have, on real
transcripts: the 20 files of ../shared/data/traces/spotter (17 MB) and 30 copies of them with fresh
ids (about 500 MB), generated in a temporary folder.

    .venv/bin/python bench/traces_vs_ccusage.py [--copies 30] [--runs 3] [--keep DIR]

ccusage is installed with npm from bench/ccusage/package.json (`npm ci`, pinned, as
scripts/install-system.sh installs the test servers; node_modules is never committed). Each tool
runs as a user runs it, in a fresh process: `ccusage claude daily --offline --json` (with
CLAUDE_CONFIG_DIR pointing at the set) and `toolsurvey traces DIR --by day --format json`, both in
UTC, alternating, `--runs` times each. Time is the median wall time; memory is the peak resident
memory of the whole process tree (ccusage's Node.js launcher and its native binary; toolsurvey and
its worker processes), summed and sampled every 2 ms with psutil; CPU time (user + system of the
tree) is printed too, as it moves less with the machine's load. Both totals (four token counts
and the cost) are printed and compared, so a ratio is never of two different answers: the bench
fails when they differ. Last, the start-up of `traces` on a one-line file. Each command runs once
before it is timed (bytecode written, files cached), and the machine's load average is printed with
the figures. Without ../shared/data/traces/spotter, or without npm to install ccusage, it prints a
`skip:` line saying so and times only the start-up.

Goals (issue 25): <= 1.0x ccusage's time on the 500 MB set, <= 2.0x on the 17 MB folder, memory <=
1.5x ccusage's, start-up <= 0.25 s.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _shared_data import shared_or_skip  # noqa: E402

CCUSAGE = HERE / "ccusage"
TOOLSURVEY = Path(sys.executable).parent / "toolsurvey"
_UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_ID = re.compile(rb"\b(req|msg|toolu)_([0-9A-Za-z]+)")


def install_ccusage() -> Path | None:
    """The ccusage launcher, installed with npm ci from the pinned lock (npm install if the lock has no
    build for this platform); None after printing why, when npm is absent or the install fails."""
    exe = CCUSAGE / "node_modules" / ".bin" / "ccusage"
    if exe.exists():
        return exe
    if shutil.which("npm") is None:
        print("skip: the comparison with ccusage: npm is not installed (ccusage 20.0.24 is installed with npm)")
        return None
    npm = ["npm", "--prefix", str(CCUSAGE), "--no-audit", "--no-fund", "--loglevel=error"]
    # `npm ci` refuses the lock when it lacks another platform's optional build; npm install then
    # installs the same pinned version, so ci's complaint is kept quiet
    if subprocess.run([*npm, "ci"], check=False, capture_output=True).returncode != 0 and \
            subprocess.run([*npm, "install"], check=False).returncode != 0:
        print("skip: the comparison with ccusage: `npm ci` and `npm install` of ccusage 20.0.24 failed (offline?)")
        return None
    return exe if exe.exists() else None


def fresh(data: bytes, k: int) -> bytes:
    """`data` with every session, request, message and tool-call id made unique to copy `k`."""
    data = _UUID.sub(lambda m: m[0][:-4] + b"%04x" % ((int(m[0][-4:], 16) + 7919 * k) % 65536), data)
    return _ID.sub(lambda m: m[1] + b"_" + m[2] + b"c%02d" % k, data)


def make_sets(spotter: Path, root: Path, copies: int) -> dict[str, Path]:
    """Claude Code config folders (each with projects/): the real folder, and `copies` copies with fresh ids."""
    small = root / "small"
    shutil.copytree(spotter, small / "projects" / "spotter")
    large = root / "large" / "projects"
    for k in range(1, copies + 1):
        for f in spotter.rglob("*.jsonl"):
            rel = f.relative_to(spotter)
            out = large / f"spotter-{k:02d}" / fresh(str(rel).encode(), k).decode()
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(fresh(f.read_bytes(), k))
    return {"17 MB": small, f"{copies} copies": root / "large"}


def size_mb(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 1e6


def measure(cmd: list[str], env: dict) -> tuple[float, float, float, str]:
    """(wall seconds, peak MB of the process tree, CPU seconds of the tree, standard output) of one run.
    CPU time (user + system, every process the command waited for) moves less with the machine's load
    than wall time."""
    import psutil

    out = tempfile.TemporaryFile()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.DEVNULL)
    peak = 0
    proc = psutil.Process(p.pid)
    while p.poll() is None:
        try:
            tree = [proc, *proc.children(recursive=True)]
            peak = max(peak, sum(x.memory_info().rss for x in tree if x.is_running()))
        except psutil.Error:
            pass
        time.sleep(0.002)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode:
        raise SystemExit(f"{cmd[0]} exited {p.returncode}")
    out.seek(0)
    return wall, peak / 2**20, cpu, out.read().decode()


def _env(**extra: str) -> dict:
    """The environment a user runs in: Python writes and reuses its bytecode (as after `pip install`,
    which compiles it), whatever this shell says."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "NO_COLOR": "1", **extra}


def commands(config: Path, exe: Path) -> dict[str, tuple[list[str], dict]]:
    env = _env(CLAUDE_CONFIG_DIR=str(config))
    return {"ccusage": ([str(exe), "claude", "daily", "--offline", "--json", "-z", "UTC"], env),
            "toolsurvey": ([str(TOOLSURVEY), "traces", str(config / "projects"), "--by", "day", "--format", "json",
                            "-z", "UTC", "-q"], env)}


_TOKENS = {"inputTokens": "input_tokens", "cacheCreationTokens": "cache_write", "cacheReadTokens": "cache_read",
           "outputTokens": "output_tokens"}


def totals(tool: str, out: str) -> dict[str, float]:
    """The four billed token counts and the cost of one tool's --json answer, in toolsurvey's names."""
    doc = json.loads(out)["totals"]
    if tool == "ccusage":
        return {**{ours: doc[theirs] for theirs, ours in _TOKENS.items()}, "cost": doc["totalCost"]}
    return {k: doc[k] for k in (*_TOKENS.values(), "cost")}


def agree(a: dict[str, float], b: dict[str, float]) -> bool:
    """Same token counts, and the same cost to a millionth of a dollar (both sum floats, in other orders)."""
    return all(a[k] == b[k] for k in _TOKENS.values()) and abs(a["cost"] - b["cost"]) < 1e-6


def compare(name: str, config: Path, exe: Path, runs: int) -> dict:
    """Time, CPU time and peak memory of both tools on one set, alternating, and whether their totals agree."""
    cmds = commands(config, exe)
    got: dict[str, list[tuple[float, float, float]]] = {k: [] for k in cmds}
    answers = {}
    for cmd, env in cmds.values():  # a first run each: bytecode written, files in the page cache
        measure(cmd, env)
    for _ in range(runs):
        for tool, (cmd, env) in cmds.items():
            wall, peak, cpu, out = measure(cmd, env)
            got[tool].append((wall, peak, cpu))
            answers[tool] = totals(tool, out)
    med = {t: (statistics.median(r[0] for r in v), max(r[1] for r in v), statistics.median(r[2] for r in v))
           for t, v in got.items()}
    (cw, cm, cc), (tw, tm, tc) = med["ccusage"], med["toolsurvey"]
    print(f"{name} ({size_mb(config):,.0f} MB), median of {runs}: ccusage {cw:.2f} s, {cm:.0f} MB; toolsurvey "
          f"{tw:.2f} s, {tm:.0f} MB -> time {tw / cw:.2f}x, memory {tm / cm:.2f}x")
    print(f"  runs: ccusage {', '.join(f'{r[0]:.2f}' for r in got['ccusage'])} s; "
          f"toolsurvey {', '.join(f'{r[0]:.2f}' for r in got['toolsurvey'])} s")
    print(f"  CPU time (user + system, median): ccusage {cc:.2f} s, toolsurvey {tc:.2f} s -> {tc / cc:.2f}x")
    same = agree(answers["ccusage"], answers["toolsurvey"])
    for tool, t in answers.items():
        print(f"  {tool:<10} totals: " + ", ".join(f"{k} {t[k]:,}" for k in _TOKENS.values()) + f", ${t['cost']:,.4f}")
    print(f"  totals {'agree' if same else 'DIFFER'}")
    return {"time": tw / cw, "memory": tm / cm, "cpu": tc / cc, "agree": same}


def startup(root: Path, runs: int = 7) -> tuple[float, float]:
    """Best wall time and best CPU time of `traces` on a one-line file (after one run unmeasured)."""
    one = root / "one.jsonl"
    one.write_text(json.dumps({"type": "assistant", "sessionId": "s", "requestId": "r", "timestamp": "2026-02-01T10:00Z",
                               "message": {"id": "m", "model": "claude-sonnet-4-5", "content": [],
                                           "usage": {"input_tokens": 3, "output_tokens": 1}}}) + "\n")
    cmd = [str(TOOLSURVEY), "traces", str(one), "-q"]
    measure(cmd, _env())
    got = [measure(cmd, _env()) for _ in range(runs)]
    return min(r[0] for r in got), min(r[2] for r in got)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--copies", type=int, default=30)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", default=None, help="generate the sets in DIR and keep them (reused when present)")
    a = ap.parse_args()
    spotter = shared_or_skip("traces", "spotter", leaving_out="the comparison with ccusage")
    exe = install_ccusage() if spotter is not None else None  # nothing to compare on: no npm install
    root = Path(a.keep or tempfile.mkdtemp(prefix="toolsurvey-vs-ccusage-"))
    try:
        if spotter is None or exe is None:
            sets = {}
        elif (root / "small").is_dir():  # kept from an earlier run: as many copies as it made
            made = len([d for d in (root / "large" / "projects").iterdir() if d.is_dir()])
            sets = {"17 MB": root / "small", f"{made} copies": root / "large"}
        else:
            sets = make_sets(spotter, root, a.copies)
        print(f"load average before: {', '.join(f'{x:.1f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
        ratios = {name: compare(name, config, exe, a.runs) for name, config in sets.items()}
        up, up_cpu = startup(root)
        print(f"start-up, traces on a one-line file: {up:.3f} s, CPU {up_cpu:.3f} s (best of 7; goal <= 0.25 s: "
              f"{'met' if up <= 0.25 else 'not met'})")
        print(f"load average after: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
        for name, r in ratios.items():
            goal = 1.0 if "copies" in name else 2.0
            print(f"goal {name}: time {r['time']:.2f}x (<= {goal}x: {'met' if r['time'] <= goal else 'not met'}), "
                  f"memory {r['memory']:.2f}x (<= 1.5x: {'met' if r['memory'] <= 1.5 else 'not met'}), CPU {r['cpu']:.2f}x, "
                  f"totals {'agree' if r['agree'] else 'DIFFER'}")
        if not all(r["agree"] for r in ratios.values()):
            raise SystemExit("the two tools' totals differ: a ratio of two different answers means nothing")
    finally:
        if not a.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
