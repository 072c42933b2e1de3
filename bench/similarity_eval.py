"""Precision and recall of near-duplicate detection (`similar_pairs`) on a labelled set of real MCP
tool pairs (tests/data/similarity_pairs.csv; labelling rule and sources in similarity_pairs.md).

    .venv/bin/python bench/similarity_eval.py [--threshold 0.55] [--fit] [--memory 20000]

The score's weights were fitted on the pairs marked `tune`; the figures that count are the `test`
half's, which played no part in fitting or in choosing the threshold. `--fit` refits on `tune` and
prints the weights (to paste into toolsurvey/similarity.py). `--memory N` also prints the peak memory
of similar_pairs on N synthetic tools shaped like bench/audit.py's (goal at 20,000: under 300 MB), each
method in a fresh process: the rise of its peak resident set over the process after imports.
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from toolsurvey.auditing import load_config  # noqa: E402
from toolsurvey.formats import load  # noqa: E402
from toolsurvey.similarity import FEATURES, METHODS, score, scored_pairs, similar_pairs  # noqa: E402

DATA = ROOT / "tests" / "data"


def labelled() -> list[dict]:
    with open(DATA / "similarity_pairs.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def key(sa, ta, sb, tb) -> frozenset:
    return frozenset(((sa, ta), (sb, tb)))


def evaluate(threshold: float, method: str) -> dict[str, tuple[int, int, int]]:
    """(true positives, false positives, false negatives) per split, of similar_pairs on the labelled pairs."""
    reg = load(DATA / "similarity_pairs.tools.json")
    cfg = load_config()["similarity"]
    found = {key(r.server_a, r.tool_a, r.server_b, r.tool_b)
             for r in similar_pairs(reg, threshold=threshold, method=method, config=cfg).itertuples(index=False)}
    out = {}
    for r in labelled():
        hit = key(r["server_a"], r["tool_a"], r["server_b"], r["tool_b"]) in found
        dup = r["duplicate"] == "1"
        tp, fp, fn = out.get(r["split"], (0, 0, 0))
        out[r["split"]] = (tp + (hit and dup), fp + (hit and not dup), fn + (dup and not hit))
    return out


def missed(split: str, threshold: float = 0.55) -> dict[str, int]:
    """Why the `scored` method misses the duplicates of a split: never a candidate, vetoed, or scored low."""
    reg = load(DATA / "similarity_pairs.tools.json")
    index = {(t.server, t.name): i for i, t in enumerate(reg.tools)}
    feats = {(a, b): f for a, b, f in scored_pairs(reg, load_config()["similarity"])}
    out = {"not a candidate": 0, "vetoed (read/write, action or product differs)": 0, "scored below threshold": 0}
    for r in labelled():
        if r["split"] != split or r["duplicate"] != "1":
            continue
        pair = tuple(sorted((index[(r["server_a"], r["tool_a"])], index[(r["server_b"], r["tool_b"])])))
        if pair not in feats:
            out["not a candidate"] += 1
        elif feats[pair] is None:
            out["vetoed (read/write, action or product differs)"] += 1
        elif score(feats[pair]) < threshold:
            out["scored below threshold"] += 1
    return out


def fit() -> dict[str, float]:
    """Logistic regression of the pair features on the `tune` pairs that survive the vetoes."""
    reg = load(DATA / "similarity_pairs.tools.json")
    index = {(t.server, t.name): i for i, t in enumerate(reg.tools)}
    feats = {(a, b): f for a, b, f in scored_pairs(reg, load_config()["similarity"]) if f is not None}
    xs, ys = [], []
    for r in labelled():
        if r["split"] != "tune":
            continue
        a, b = sorted((index[(r["server_a"], r["tool_a"])], index[(r["server_b"], r["tool_b"])]))
        if (a, b) in feats:
            xs.append([feats[(a, b)][f] for f in FEATURES])
            ys.append(int(r["duplicate"]))
    return _nonnegative_logistic(np.array(xs), np.array(ys))


def _nonnegative_logistic(x, y, l2: float = 0.1) -> dict[str, float]:
    """Logistic regression with every feature weight >= 0 (more of any signal never lowers the score),
    by L-BFGS-B on the L2-penalised log loss."""
    from scipy.optimize import minimize

    def loss(w):
        z = w[0] + x @ w[1:]
        p = 1 / (1 + np.exp(-z))
        g = p - y
        return (np.logaddexp(0, z) - y * z).sum() + l2 * (w[1:] @ w[1:]), \
            np.concatenate([[g.sum()], x.T @ g + 2 * l2 * w[1:]])

    bounds = [(None, None)] + [(0, None)] * x.shape[1]
    w = minimize(loss, np.zeros(x.shape[1] + 1), jac=True, method="L-BFGS-B", bounds=bounds).x
    return {"bias": round(float(w[0]), 2), **{f: round(float(v), 2) for f, v in zip(FEATURES, w[1:], strict=True)}}


MEMORY_CHILD = """
import resource, sys
sys.path[:0] = [{root!r}, {bench!r}]
from audit import registry
from toolsurvey.auditing import load_config
from toolsurvey.similarity import similar_pairs
cfg = load_config()["similarity"]
reg = registry({n}, 1)
similar_pairs(registry(50, 2), config=cfg)  # imports and first-use allocations outside the measure
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
pairs = similar_pairs(reg, threshold=cfg["threshold"], method={method!r}, config=cfg)
print(len(pairs), (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024)
"""


def peak_memory(n: int, method: str) -> tuple[int, float]:
    """(pairs found, MiB the peak resident set rose by) of similar_pairs on n tools, in a fresh process."""
    code = MEMORY_CHILD.format(root=str(ROOT), bench=str(ROOT / "bench"), n=n, method=method)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    return int(out[0]), float(out[1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threshold", type=float, default=load_config()["similarity"]["threshold"])
    ap.add_argument("--fit", action="store_true", help="refit the weights on the tune half and print them")
    ap.add_argument("--memory", type=int, default=0, metavar="N", help="also measure peak memory at N tools")
    a = ap.parse_args(argv)
    if a.fit:
        print("WEIGHTS =", fit())
        return 0
    rows = labelled()
    print(f"labelled pairs: {len(rows)} ({sum(r['duplicate'] == '1' for r in rows)} duplicates); "
          "goal: precision >= 0.9 at recall >= 0.7")
    for method in METHODS:
        res = evaluate(a.threshold, method)
        for split in ("tune", "test"):
            tp, fp, fn = res[split]
            note = ("used to fit the weights and design the features" if split == "tune"
                    else "held out: not used for fitting, features or the threshold")
            print(f"{method:6} threshold {a.threshold}  {split:4}  precision {tp / max(tp + fp, 1):.3f}  "
                  f"recall {tp / max(tp + fn, 1):.3f}  (tp {tp}, fp {fp}, fn {fn}; {note})")
    print("scored, held-out duplicates missed:", ", ".join(f"{n} {why}" for why, n in missed("test", a.threshold).items()))
    for method in METHODS if a.memory else ():
        pairs, mib = peak_memory(a.memory, method)
        print(f"{method:6} {a.memory:,} tools: peak memory of similar_pairs {mib:.0f} MiB ({pairs:,} pairs; goal < 300 MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
