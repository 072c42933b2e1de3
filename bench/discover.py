"""Discovering N real stdio MCP servers at once vs the slowest of them alone (target: <= 1.5x).

Run: .venv/bin/python bench/discover.py [--repeat 3]
Needs the test servers (scripts/install-system.sh). Times are medians of --repeat runs, all
measured in this run, so the ratio does not depend on the machine.
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from toolsurvey.inputs.configs import spec_for  # noqa: E402
from toolsurvey.inputs.discovery.run import discover_specs, failures  # noqa: E402

BIN = ROOT / "tests" / "servers" / "node_modules" / ".bin"
PYBIN = ROOT / "tests" / "servers" / ".venv" / "bin"


def commands(root: str) -> dict[str, list[str]]:
    return {
        "everything": [str(BIN / "mcp-server-everything")],
        "memory": [str(BIN / "mcp-server-memory")],
        "filesystem": [str(BIN / "mcp-server-filesystem"), root],
        "time": [str(PYBIN / "mcp-server-time")],
        "fetch": [str(PYBIN / "mcp-server-fetch")],
    }


def timed(specs) -> float:
    import anyio

    start = time.perf_counter()
    reg = anyio.run(lambda: discover_specs(specs))
    seconds = time.perf_counter() - start
    if failures(reg):
        sys.exit(f"a server failed: {failures(reg)}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        cmds = commands(root)
        missing = [c[0] for c in cmds.values() if not Path(c[0]).exists()]
        if missing:
            sys.exit(f"missing {', '.join(missing)}: run scripts/install-system.sh first")
        specs = [spec_for(cmd, name=name) for name, cmd in cmds.items()]
        timed(specs)  # warm the OS file cache so the first measurement is not penalised
        alone = {s.name: statistics.median(timed([s]) for _ in range(args.repeat)) for s in specs}
        together = statistics.median(timed(specs) for _ in range(args.repeat))
    slowest = max(alone, key=alone.get)
    for name, seconds in alone.items():
        print(f"  {name:<11} alone      {seconds:6.2f} s")
    print(f"  all {len(specs)} together     {together:6.2f} s   (sum of alone: {sum(alone.values()):.2f} s)")
    ratio = together / alone[slowest]
    print(f"together / slowest alone ({slowest}) = {ratio:.2f}x (target <= 1.5x): "
          f"{'ok' if ratio <= 1.5 else 'OVER TARGET'}")


if __name__ == "__main__":
    main()
