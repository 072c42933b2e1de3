"""A large JSONL trace is measured one line at a time: bounded memory, the same figures as a list."""

from __future__ import annotations

import json
import random

from _memory import run_measured
from _oracle import compact, ntok

from toolsurvey.measuring.responses import measure_responses


def _write_trace(path, mb: int) -> int:
    rng = random.Random(0)
    words = "deploy fails when the cache is cold retry timeout user reports error after update".split()
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        while f.tell() < mb * 1_000_000:
            items = [{"id": rng.randrange(10**9), "title": " ".join(rng.choices(words, k=8)),
                      "body": " ".join(rng.choices(words, k=60)), "labels": rng.choices(words, k=2)}
                     for _ in range(rng.randint(3, 9))]
            f.write(json.dumps({"tool": rng.choice(["search", "list"]), "result": {"items": items}}) + "\n")
            n += 1
    return n


def test_streamed_trace_counts_every_line_as_tiktoken_does(tmp_path):
    trace = tmp_path / "t.jsonl"
    lines = [{"tool": "a", "result": {"x": "héllo wörld", "n": [1, 2]}}, {"tool": "b", "result": "plain text"},
             "not json", {"tool": "a", "result": {"y": None}}]
    trace.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n\u2028\n",
                     encoding="utf-8")
    table = measure_responses(trace)
    assert table["tool"].tolist() == ["a", "b", "a"]
    assert table["tokens"].tolist() == [ntok(compact(lines[0]["result"])), ntok("plain text"),
                                        ntok(compact(lines[3]["result"]))]
    assert table["source"].tolist() == [f"{trace}:1", f"{trace}:2", f"{trace}:4"]
    assert any(w.startswith(f"{trace}:3: not JSON") for w in table.attrs["warnings"])


MEASURE = """
import sys
from toolsurvey.cli import main
sys.exit(main(["responses", sys.argv[1], "--format", "csv", "-o", sys.argv[2]]))
"""


def test_60_mb_trace_is_measured_in_under_300_mb(tmp_path):
    # Held whole, a 100 MB trace peaked at 1,060 MB (its text, parsed values and payloads at once).
    trace = tmp_path / "big.jsonl"
    n = _write_trace(trace, 60)
    _, peak_kb = run_measured(MEASURE, trace, tmp_path / "out.csv")
    rows = (tmp_path / "out.csv").read_text(encoding="utf-8").splitlines()
    assert sum(int(r.split(",")[1]) for r in rows[1:]) == n  # payloads per tool add up to the lines
    assert peak_kb < 300 * 1000, f"peak {peak_kb / 1000:,.0f} MB"
