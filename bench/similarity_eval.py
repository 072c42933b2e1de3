"""Precision and recall of near-duplicate detection (`similar_pairs`) on a labelled set of real MCP
tool pairs (tests/data/similarity_pairs.csv; labelling rule and sources in similarity_pairs.md). Their
tools are tests/data/similarity_pairs.tools.json plus GitHub's server from ../shared/data/tools; without
the shared data the bench says so and evaluates the pairs of the committed tools only.

    .venv/bin/python bench/similarity_eval.py [--threshold T] [--fit] [--memory 20000] [--model DIR]

The score's weights and threshold were fitted on the pairs marked `tune`; the figures that count are
the `test` split's, which played no part in fitting or in choosing the threshold. `--fit` refits the
weights on `tune`, picks the threshold by cross-validation on `tune` only (the lowest whose precision,
5 x 5-fold, is >= 0.92) and prints both (to paste into toolsurvey/similarity.py and audit.toml). `--threshold` applies one
threshold to every method instead of each one's default; `--model DIR` also evaluates the embedding
method with a local model2vec model (none is bundled). `--memory N` also prints the peak memory
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

from _shared_data import SIMILARITY_GITHUB, SIMILARITY_PAIRS, shared_or_skip, similarity_tools  # noqa: E402

from toolsurvey.advice.similarity.pair_features import FEATURES, score, scored_pairs  # noqa: E402
from toolsurvey.advice.similarity.pairs import METHODS, similar_pairs  # noqa: E402
from toolsurvey.advice.thresholds import load_config  # noqa: E402


def labelled() -> list[dict]:
    """The labelled pairs whose two tools are loaded: all 600 with the shared data."""
    have = {(t.server, t.name) for t in similarity_tools().tools}
    with open(SIMILARITY_PAIRS, newline="", encoding="utf-8") as f:
        return [r for r in csv.DictReader(f)
                if (r["server_a"], r["tool_a"]) in have and (r["server_b"], r["tool_b"]) in have]


def key(sa, ta, sb, tb) -> frozenset:
    return frozenset(((sa, ta), (sb, tb)))


def evaluate(threshold: float, method: str, model: str | None = None) -> dict[str, tuple[int, int, int]]:
    """(true positives, false positives, false negatives) per split, and for `all`, of similar_pairs on
    the labelled pairs."""
    reg = similarity_tools()
    cfg = {**load_config()["similarity"], "model": model or ""}
    found = {key(r.server_a, r.tool_a, r.server_b, r.tool_b)
             for r in similar_pairs(reg, threshold=threshold, method=method, config=cfg).itertuples(index=False)}
    out = {}
    for r in labelled():
        hit = key(r["server_a"], r["tool_a"], r["server_b"], r["tool_b"]) in found
        dup = r["duplicate"] == "1"
        for split in (r["split"], "all"):
            tp, fp, fn = out.get(split, (0, 0, 0))
            out[split] = (tp + (hit and dup), fp + (hit and not dup), fn + (dup and not hit))
    return out


def _features(split: str) -> list[tuple[dict[str, float] | None, int]]:
    """(features, label) of each labelled pair of a split; features None: not a candidate, or vetoed."""
    reg = similarity_tools()
    index = {(t.server, t.name): i for i, t in enumerate(reg.tools)}
    feats = {(a, b): f for a, b, f in scored_pairs(reg, load_config()["similarity"])}
    return [(feats.get(tuple(sorted((index[(r["server_a"], r["tool_a"])], index[(r["server_b"], r["tool_b"])])))),
             int(r["duplicate"])) for r in labelled() if r["split"] == split]


def missed(split: str, threshold: float) -> dict[str, int]:
    """Why the `scored` method misses the duplicates of a split: not a candidate or vetoed, or scored low."""
    out = {"not a candidate or vetoed (read/write, verb or product differs)": 0, "scored below threshold": 0}
    for f, dup in _features(split):
        if dup and f is None:
            out["not a candidate or vetoed (read/write, verb or product differs)"] += 1
        elif dup and score(f) < threshold:
            out["scored below threshold"] += 1
    return out


def fit(rows: list[tuple[dict[str, float] | None, int]]) -> dict[str, float]:
    """Logistic regression of the pair features on `rows` that survive the vetoes."""
    kept = [(f, y) for f, y in rows if f is not None]
    return _nonnegative_logistic(np.array([[f[k] for k in FEATURES] for f, _ in kept]),
                                 np.array([y for _, y in kept]))


def cv_threshold(rows, goal: float = 0.92, folds: int = 5, repeats: int = 5) -> tuple[float, float, float]:
    """(threshold, precision, recall): the lowest threshold on a 0.05 grid whose out-of-fold precision on
    `rows` (stratified k-fold, repeated with fixed seeds) is >= `goal`, a margin over the 0.9 goal."""
    y = np.array([d for _, d in rows])
    rng = np.random.default_rng(0)
    prob = np.zeros((repeats, len(rows)))
    for r in range(repeats):
        fold = np.zeros(len(rows), dtype=int)
        for cls in (0, 1):
            members = rng.permutation(np.flatnonzero(y == cls))
            fold[members] = np.arange(len(members)) % folds
        for k in range(folds):
            w = fit([rows[i] for i in np.flatnonzero(fold != k)])
            for i in np.flatnonzero(fold == k):
                prob[r, i] = 0.0 if rows[i][0] is None else score(rows[i][0], w)
    for t in np.round(np.arange(0.3, 0.95, 0.05), 2):
        hit = prob >= t
        tp, fp, fn = ((hit & (y == 1)).sum(1), (hit & (y == 0)).sum(1), (~hit & (y == 1)).sum(1))
        precision, recall = float(np.mean(tp / np.maximum(tp + fp, 1))), float(np.mean(tp / np.maximum(tp + fn, 1)))
        if precision >= goal:
            return float(t), precision, recall
    raise SystemExit(f"no threshold reaches cross-validated precision {goal}")


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
from toolsurvey.advice.thresholds import load_config
from toolsurvey.advice.similarity.pairs import similar_pairs
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
    ap.add_argument("--threshold", type=float, help="one threshold for every method (default: each one's own)")
    ap.add_argument("--fit", action="store_true", help="refit the weights and threshold on the tune split")
    ap.add_argument("--memory", type=int, default=0, metavar="N", help="also measure peak memory at N tools")
    ap.add_argument("--model", metavar="DIR", help="a local model2vec model: also evaluate the embedding method")
    a = ap.parse_args(argv)
    github = shared_or_skip(*SIMILARITY_GITHUB, leaving_out="the pairs with a tool of GitHub's own server (117 of "
                            "the 255 tools); evaluating the pairs of the committed tools only")
    if a.fit and github is None:
        print("--fit needs all 600 pairs: weights fitted on part of them would replace the published ones")
        return 2
    if a.fit:
        rows = _features("tune")
        print("WEIGHTS =", fit(rows))
        t, precision, recall = cv_threshold(rows)
        print(f"threshold {t} (tune, 5 x 5-fold cross-validated: precision {precision:.3f}, recall {recall:.3f})")
        return 0
    rows = labelled()
    print(f"labelled pairs: {len(rows)} ({sum(r['duplicate'] == '1' for r in rows)} duplicates); "
          "goal: precision >= 0.9 at recall >= 0.7")
    notes = {"tune": "used to fit the weights and threshold and to design the features",
             "test": "held out: not used for fitting, features or the threshold", "all": "all labelled pairs"}
    for method, default in METHODS.items():
        threshold = default if a.threshold is None else a.threshold
        if method == "embedding" and not a.model:
            print("embedding: not evaluated (no model is bundled or downloadable here; pass --model DIR)")
            continue
        res = evaluate(threshold, method, a.model)
        for split in ("tune", "test", "all"):
            tp, fp, fn = res[split]
            print(f"{method:6} threshold {threshold}  {split:4}  precision {tp / max(tp + fp, 1):.3f}  "
                  f"recall {tp / max(tp + fn, 1):.3f}  (tp {tp}, fp {fp}, fn {fn}; {notes[split]})")
    print("scored, held-out duplicates missed:",
          ", ".join(f"{n} {why}" for why, n in missed("test", a.threshold or METHODS["scored"]).items()))
    for method in [m for m in METHODS if m != "embedding"] if a.memory else ():
        pairs, mib = peak_memory(a.memory, method)
        print(f"{method:6} {a.memory:,} tools: peak memory of similar_pairs {mib:.0f} MiB ({pairs:,} pairs; goal < 300 MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
