"""Start-up: `toolsurvey --help` and `footprint` on a one-tool server, each against a bare baseline.

Run: .venv/bin/python bench/startup.py
Targets (issue 15): `toolsurvey --help` within 3x of `python -c "import argparse"`; `toolsurvey
footprint` on a one-tool server within 1.3x of a raw tiktoken script that loads the same encoding
file and counts the same text. Both are fresh processes, as a user or a CI job starts them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

TOOL = {"name": "get_weather", "description": "Current weather for a city.",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}},
                        "required": ["city"]}}

RAW = """
import json, tiktoken
from tiktoken.load import load_tiktoken_bpe
from toolsurvey.core.tokens import _SPECS
pat, special = _SPECS["o200k_base"]
ranks = load_tiktoken_bpe({path!r}, expected_hash={sha!r})
enc = tiktoken.Encoding("o200k_base", pat_str=pat, mergeable_ranks=ranks, special_tokens=special)
tool = json.load(open({tool!r}))["tools"][0]
print(len(enc.encode_ordinary(json.dumps(tool, ensure_ascii=False, separators=(",", ":")))))
"""


def _fastest(cmds: dict, rounds: int = 7) -> dict:
    """Fastest wall time of each command over `rounds`, interleaved so machine load hits each alike."""
    best = dict.fromkeys(cmds, float("inf"))
    for _ in range(rounds):
        for name, cmd in cmds.items():
            start = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def main() -> None:
    from toolsurvey.core.tokens import SHIPPED, get_encoding

    get_encoding("o200k_base")  # the binary cache exists, as after any first run
    with tempfile.TemporaryDirectory() as tmp:
        tool = Path(tmp) / "weather.json"
        tool.write_text(json.dumps({"tools": [TOOL]}))
        shipped = ROOT / "toolsurvey" / "encodings" / "o200k_base.tiktoken"
        raw = RAW.format(path=str(shipped), sha=SHIPPED["o200k_base"], tool=str(tool))
        t = _fastest({
            "argparse": [sys.executable, "-c", "import argparse"],
            "help": [str(BIN / "toolsurvey"), "--help"],
            "raw tiktoken": [sys.executable, "-c", raw],
            "footprint": [str(BIN / "toolsurvey"), "footprint", str(tool)],
        })
    for name, s in t.items():
        print(f"{name:>14}: {s * 1000:7.0f} ms")
    print(f"toolsurvey --help vs import argparse: {t['help'] / t['argparse']:.2f}x (goal <= 3x)")
    print(f"footprint, 1 tool vs raw tiktoken:    {t['footprint'] / t['raw tiktoken']:.2f}x (goal <= 1.3x)")


if __name__ == "__main__":
    main()
