"""Memory and throughput of `toolsurvey responses` on a large JSONL trace, against a plain loop, and
memory of `--by field` on one large JSON response.

Run: .venv/bin/python bench/responses_stream.py [--mb 1024] [--json-mb 100]
Targets (issue 15): peak resident memory under 300 MB whatever the trace's size; throughput at least
0.8x a plain loop that json.loads each line and encodes its result's compact JSON (same run, same file);
`--by field` on a single 100 MB JSON response peaks under 4x the file.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

PLAIN = """
import json, resource, sys
from toolsurvey.core.tokens import get_encoding
encode = get_encoding("o200k_base").encode_ordinary
total = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        rec = json.loads(line)
        total += len(encode(json.dumps(rec["result"], ensure_ascii=False, separators=(",", ":"))))
print(total, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

OURS = """
import resource, sys
from toolsurvey.cli import main
main(["responses", *sys.argv[1:], "--format", "csv"])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


WORDS = "the a deploy fails when cache is cold retry timeout user reports error on login page after update".split()


def issue(rng: random.Random) -> dict:
    """One GitHub-issue-like search result item (about 600 bytes)."""
    return {"id": rng.randrange(10**9), "number": rng.randrange(10**5), "state": rng.choice(["open", "closed"]),
            "title": " ".join(rng.choices(WORDS, k=8)), "user": {"login": f"user{rng.randrange(999)}",
            "id": rng.randrange(10**7), "site_admin": False}, "labels": [{"name": w} for w in rng.choices(WORDS, k=2)],
            "body": " ".join(rng.choices(WORDS, k=60)), "comments": rng.randrange(40), "reactions": None}


def write_trace(path: Path, mb: int, seed: int = 0) -> int:
    """A trace of GitHub-issue-like search results (about 4 KB each) until it holds `mb` megabytes."""
    rng = random.Random(seed)
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        while f.tell() < mb * 1_000_000:
            items = [issue(rng) for _ in range(rng.randint(3, 9))]
            rec = {"tool": rng.choice(["search_issues", "list_issues", "get_issue"]), "server": "github",
                   "timestamp": "2026-11-30T12:00:00Z", "result": {"total_count": len(items), "items": items}}
            f.write(json.dumps(rec) + "\n")
            n += 1
    return n


def write_response(path: Path, mb: int, seed: int = 0) -> int:
    """One JSON search result ({"items": [...], "total_count"}) of about `mb` megabytes, written an item at
    a time so this process stays small (a child inherits its parent's peak memory); its item count."""
    rng = random.Random(seed)
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"items": [')
        while f.tell() < mb * 1_000_000:
            f.write(("," if n else "") + json.dumps(issue(rng)))
            n += 1
        f.write(f'], "total_count": {n}}}')
    return n


# The same command with the result parsed whole, as before it was streamed (and as trimming still reads it).
WHOLE = "import toolsurvey.inputs.payload_sources as p; p.STREAM_JSON_BYTES = float('inf')\n" + OURS


def by_field(mb: int) -> None:
    """Peak memory of `toolsurvey responses FILE --by field` on one JSON response of `mb` megabytes,
    streamed (the default for a large file) and parsed whole, with the same output."""
    with tempfile.TemporaryDirectory() as tmp:
        doc = Path(tmp) / "search_issues" / "response.json"
        doc.parent.mkdir()
        n = write_response(doc, mb)
        size = doc.stat().st_size
        print(f"one JSON response: {size / 1e6:,.0f} MB, {n:,} items; `toolsurvey responses FILE --by field`:")
        outputs = []
        for name, code in (("streamed", OURS), ("parsed whole", WHOLE)):
            csv = Path(tmp) / f"{len(outputs)}.csv"
            t0 = time.perf_counter()
            out = subprocess.run([sys.executable, "-c", code, str(doc), "--by", "field", "-o", str(csv)],
                                 capture_output=True, text=True, check=True)
            took = time.perf_counter() - t0
            outputs.append(csv.read_text(encoding="utf-8"))
            peak = int(out.stdout.split()[-1]) * 1024
            print(f"  {name + ':':13} {took:5.1f} s, peak {peak / 2**20:,.0f} MiB = {peak / size:.2f}x the file"
                  + (" (goal < 4x)" if name == "streamed" else ""))
        print(f"  same output: {outputs[0] == outputs[1]}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=1024, help="size of the generated trace in MB (0: skip)")
    ap.add_argument("--json-mb", type=int, default=100, help="size of the single JSON response in MB (0: skip)")
    a = ap.parse_args()
    if a.json_mb:
        by_field(a.json_mb)
    if not a.mb:
        return
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "trace.jsonl"
        n = write_trace(trace, a.mb)
        size = trace.stat().st_size / 1e6
        subprocess.run([sys.executable, "-c", "from toolsurvey.core.tokens import get_encoding; get_encoding()"], check=True)
        t0 = time.perf_counter()
        plain = subprocess.run([sys.executable, "-c", PLAIN, str(trace)], capture_output=True, text=True, check=True)
        t_plain = time.perf_counter() - t0
        t0 = time.perf_counter()
        ours = subprocess.run([sys.executable, "-c", OURS, str(trace), "-o", str(Path(tmp) / "out.csv")],
                              capture_output=True, text=True, check=True)
        t_ours = time.perf_counter() - t0
    plain_peak = int(plain.stdout.split()[1]) / 1024
    ours_peak = int(ours.stdout.split()[-1]) / 1024
    print(f"trace: {size:,.0f} MB, {n:,} results")
    print(f"plain json.loads + encode loop: {t_plain:.1f} s ({size / t_plain:.1f} MB/s), peak {plain_peak:,.0f} MiB")
    print(f"toolsurvey responses:           {t_ours:.1f} s ({size / t_ours:.1f} MB/s), peak {ours_peak:,.0f} MiB "
          f"(goal < 300 MB)")
    print(f"throughput vs plain loop: {t_plain / t_ours:.2f}x (goal >= 0.8x)")


if __name__ == "__main__":
    main()
