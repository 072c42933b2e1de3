"""Speed of the retrieval evaluation: N queries over N generated tools (default 10,000 each), the whole
`retrieval_eval` (queries checked against the registry, the tools' texts, BM25, each gold tool's rank
with the tie rule, the top k, findability, the summary) against bm25s alone on the same texts in the
same run (tokenize, index, retrieve the top 10 of every query). Peak memory is printed.

Then the quality of each method on ../shared/data/retrieval/mcp-bench, on two halves of its queries
split by a fixed hash of the query id (sha256, first byte even: "tune", odd: "held-out"). No constant
of any method was tuned on these data; the halves are printed so that one could be, honestly.

    .venv/bin/python bench/retrieval.py [--n 10000] [--seed 1] [--no-quality]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _shared_data import shared_or_skip  # noqa: E402

from toolsurvey.core.registry import Registry, Tool  # noqa: E402
from toolsurvey.inputs.formats import load  # noqa: E402
from toolsurvey.measuring.retrieval.evaluation import retrieval_eval  # noqa: E402
from toolsurvey.measuring.retrieval.text import terms, tool_text  # noqa: E402


def generated(n: int, seed: int) -> tuple[Registry, list[dict]]:
    """n tools of 12-40 words from a 6,000-word vocabulary (Zipf-like frequencies), and n queries of
    4-12 words drawn from one to three tools each, whose gold tools are those tools."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}x" for i in range(6000)]
    p = 1.0 / np.arange(1, len(vocab) + 1) ** 0.8
    p /= p.sum()
    words = lambda k: " ".join(vocab[i] for i in rng.choice(len(vocab), size=k, p=p))
    tools = [Tool(f"tool_{i}", words(int(rng.integers(12, 40))), {"type": "object", "properties": {
        f"arg_{j}": {"type": "string", "description": words(4)} for j in range(int(rng.integers(0, 3)))}},
        server=f"s{i % 50}") for i in range(n)]
    queries = []
    for q in range(n):
        gold = rng.choice(n, size=int(rng.integers(1, 4)), replace=False)
        text = " ".join(" ".join(rng.choice(tools[g].description.split(), size=3).tolist()) for g in gold) + " " + words(4)
        queries.append({"id": q, "query": text, "gold": [tools[g].key for g in gold]})
    return Registry.from_tools(tools), queries


def bm25s_alone(texts: list[str], queries: list[str]) -> float:
    """Seconds for bm25s on its own: tokenize (the same terms), index, retrieve the top 10 of every query."""
    import bm25s

    t = time.perf_counter()
    engine = bm25s.BM25()
    engine.index([terms(x) for x in texts], show_progress=False)
    engine.retrieve([[w for w in terms(q) if w in engine.vocab_dict] or ["\x00"] for q in queries], k=10,
                    show_progress=False, n_threads=1)
    return time.perf_counter() - t


def speed(n: int, seed: int) -> None:
    reg, queries = generated(n, seed)
    texts = [tool_text(t) for t in reg]
    base = min(bm25s_alone(texts, [q["query"] for q in queries]) for _ in range(2))
    runs = []
    for _ in range(2):
        t = time.perf_counter()
        ev = retrieval_eval(reg, queries)
        runs.append(time.perf_counter() - t)
    ours = min(runs)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{n:,} queries x {n:,} tools: retrieval_eval {ours:.2f} s, bm25s alone {base:.2f} s = "
          f"{ours / base:.2f}x (goal <= 1.5x); hit@5 {ev.summary['hit@5']:.3f}; peak RSS {peak:,.0f} MiB")


def half(qid: str) -> str:
    return "tune" if hashlib.sha256(qid.encode()).digest()[0] % 2 == 0 else "held-out"


def plain_bm25_rankings(reg: Registry, rows: list[dict], text) -> dict:
    """Each query's ranking by bm25s with its own tokenizer and English stop words (no identifier
    splitting) over text(tool), the pessimistic tie rule applied (a tool the query does not need ranks
    first among equal scores), tools scoring 0 left out: the data README's "plain BM25"."""
    import bm25s

    keys = [t.key for t in reg]
    engine = bm25s.BM25()
    engine.index(bm25s.tokenize([text(t) for t in reg], stopwords="en", return_ids=False, show_progress=False),
                 show_progress=False)
    out = {}
    for r in rows:
        words = [w for w in bm25s.tokenize([r["query"]], stopwords="en", return_ids=False, show_progress=False)[0]
                 if w in engine.vocab_dict]
        scores = engine.get_scores(words) if words else np.zeros(len(keys))
        gold = set(r["gold"])  # mcp-bench names every gold tool as server/tool
        order = sorted((i for i in range(len(keys)) if scores[i] > 0),
                       key=lambda i: (-scores[i], keys[i] in gold, i))
        out[r["id"]] = [keys[i] for i in order]
    return out


def quality() -> None:
    folder = shared_or_skip("retrieval", "mcp-bench", leaving_out="the quality figures on mcp-bench")
    if folder is None:
        return
    reg = load(str(folder / "catalog.json"))
    rows = [json.loads(x) for x in (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    for method in ("bm25", "tfidf", "regex"):
        for part in ("tune", "held-out"):
            sub = [r for r in rows if half(r["id"]) == part]
            s = retrieval_eval(reg, sub, method=method).summary
            print(f"mcp-bench {method:5} {part:8} ({len(sub)} queries): hit@1 {s['hit@1']:.3f} hit@5 {s['hit@5']:.3f} "
                  f"recall@10 {s['recall@10']:.3f} MRR {s['mrr']:.3f}")
    for label, text in (("name + description + parameters", tool_text), ("tool names alone", lambda t: t.name)):
        s = retrieval_eval(reg, rows, rankings=plain_bm25_rankings(reg, rows, text)).summary
        print(f"mcp-bench plain bm25s (its tokenizer, no identifier splitting), {label}, all {len(rows)} queries: "
              f"hit@5 {s['hit@5']:.3f} recall@10 {s['recall@10']:.3f} MRR {s['mrr']:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-quality", action="store_true")
    a = ap.parse_args()
    speed(a.n, a.seed)
    if not a.no_quality:
        quality()


if __name__ == "__main__":
    main()
