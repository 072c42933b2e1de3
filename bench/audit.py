"""Time and memory of the audit on a large registry: near-duplicate detection on N tools (default
2,000) and the full rule set, against a baseline measured in the same run (scikit-learn's TF-IDF fit
and one sparse similarity product of the same texts, the least any TF-IDF comparison must do).

    .venv/bin/python bench/audit.py [--tools 2000] [--seed 1]
    .venv/bin/python bench/audit.py --tools 1000 --scale 20   # issue 15: audit at 20x the tools <= 25x the time
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from toolsurvey.advice.audit.run import audit
from toolsurvey.advice.similarity.folding import Folder  # noqa: E402
from toolsurvey.advice.similarity.pairs import similar_pairs  # noqa: E402
from toolsurvey.advice.thresholds import load_config  # noqa: E402
from toolsurvey.core.registry import Registry, Tool  # noqa: E402

VERBS = ["get", "list", "search", "create", "update", "delete", "describe", "fetch", "query", "send", "restart",
         "rollback", "close", "assign", "export", "sync", "validate", "archive"]
OBJECTS = ["service", "incident", "ticket", "alert", "deploy", "user", "team", "invoice", "order", "customer",
           "metric", "log", "dashboard", "report", "channel", "message", "pipeline", "release", "cluster", "node",
           "bucket", "secret", "policy", "role", "project", "article", "comment", "label", "schedule", "shift"]
QUALIFIERS = ["", "details", "history", "status", "summary", "by_id", "for_team", "all", "active", "recent"]
WORDS = ("returns the matching records with their id name owner status and last update use this when you "
         "need to find who owns a resource or what changed recently does not modify anything results are "
         "paginated newest first errors are reported with a code and a hint").split()


def registry(n: int, seed: int) -> Registry:
    rng = random.Random(seed)
    tools, seen = [], set()
    while len(tools) < n:
        v, o, q = rng.choice(VERBS), rng.choice(OBJECTS), rng.choice(QUALIFIERS)
        name = "_".join(x for x in (f"svc{rng.randrange(40)}", v, o, q) if x)
        if name in seen:
            continue
        seen.add(name)
        desc = f"{v.capitalize()} {o} {q.replace('_', ' ')}. " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 60)))
        schema = {"type": "object", "properties": {f"{o}_id": {"type": "string", "description": f"The {o} id"}},
                  "required": [f"{o}_id"], "additionalProperties": False}
        tools.append(Tool(name, desc, schema, server=f"server{len(tools) % 25}"))
    return Registry.from_tools(tools)


def timed(f):
    t = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t


def baseline(texts: list[str]) -> None:
    from sklearn.feature_extraction.text import TfidfVectorizer

    x = TfidfVectorizer(stop_words="english", sublinear_tf=True).fit_transform(texts)
    (x @ x.T).toarray()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tools", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scale", type=int, default=None,
                    help="only time the full audit at --tools and at SCALE times as many, and print the ratio")
    a = ap.parse_args(argv)
    if a.scale:
        return scaling(a.tools, a.scale, a.seed)
    reg = registry(a.tools, a.seed)
    cfg = load_config()["similarity"]
    texts = [Folder(cfg).text(t) for t in reg]
    similar_pairs(Registry.from_tools(reg.tools[:50]), config=cfg)  # warm caches and imports outside the timings
    _, t_base = timed(lambda: baseline(texts))
    pairs, t_sim = timed(lambda: similar_pairs(reg, threshold=cfg["threshold"], config=cfg))
    tracemalloc.start()  # a second, untimed run: tracing allocations slows Python code several-fold
    similar_pairs(reg, threshold=cfg["threshold"], config=cfg)
    _, peak_sim = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    findings, t_audit = timed(lambda: audit(reg))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"tools: {len(reg):,}")
    print(f"baseline (TF-IDF fit + one dense {len(reg):,}x{len(reg):,} similarity product): {t_base:.3f} s")
    print(f"similar_pairs: {t_sim:.3f} s, {len(pairs):,} pairs, {pairs['cluster'].max() if len(pairs) else 0} clusters; "
          f"ratio to baseline {t_sim / t_base:.2f}x; peak traced memory {peak_sim / 2**20:.1f} MiB")
    print(f"full audit ({len(findings):,} findings): {t_audit:.3f} s ({t_audit / len(reg) * 1000:.2f} ms per tool)")
    print(f"peak resident memory of the process: {rss:.0f} MiB")
    return 0


def scaling(n: int, scale: int, seed: int) -> int:
    """The audit's time at n and at scale * n tools, each the best of several runs (the least disturbed
    by other jobs on the machine: single runs of the small audit vary by a third)."""
    audit(registry(50, seed + 1))  # imports and encodings outside the timings
    small_reg, big_reg = registry(n, seed), registry(n * scale, seed)
    small = min(timed(lambda: audit(small_reg))[1] for _ in range(7))
    big = min(timed(lambda: audit(big_reg))[1] for _ in range(2))
    print(f"audit (best of 7 and of 2 runs): {n:,} tools {small:.2f} s, {n * scale:,} tools {big:.2f} s: "
          f"{big / small:.1f}x the time for {scale}x the tools (goal for 20x: <= 25x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
