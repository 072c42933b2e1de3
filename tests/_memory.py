"""Peak memory of a piece of Python run in a fresh process, measured with `resource.getrusage`.

The code runs in a grandchild started by a small launcher, and the launcher reports
RUSAGE_CHILDREN: Linux carries a process's peak RSS across fork and exec, so a child started
straight from pytest (hundreds of MB by then) would report pytest's peak, not its own.
"""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import ROOT

LAUNCH = """
import resource, subprocess, sys
r = subprocess.run([sys.executable, "-c", sys.argv[1], *sys.argv[2:]], stdout=subprocess.PIPE)
sys.stdout.write(r.stdout.decode())
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(r.returncode)
"""


def run_measured(code: str, *args: str, timeout: float = 600) -> tuple[str, int]:
    """(standard output, peak resident memory in KiB) of `python -c code args`; fails on a non-zero exit."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", LAUNCH, code, *map(str, args)], capture_output=True, text=True,
                         timeout=timeout, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    *lines, peak = out.stdout.splitlines()
    return "\n".join(lines), int(peak)
