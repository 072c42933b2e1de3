"""What a selection eval's verdicts add up to: the headline rates with Wilson 95% intervals, per
tool precision, recall and skip rate, the confusion matrix, agreement across repeats, and the exact
McNemar test between two runs. Everything is counted from the per-query records (the `--log`
JSON Lines), so a reader can recount every figure from the log.

The headline rates read each query's first answer (`repeat` 0):
- accuracy: answers that did what the query needs (`right`, or `no_call` when no tool should fire),
  over all queries;
- tool accuracy: `right` over the queries that need a tool;
- skip rate: `skip` over the queries that need a tool;
- false-call rate: `false_call` over the queries that need none;
- invalid rate: `invalid` over all queries.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from fractions import Fraction

from .outcomes import INVALID, NONE, OUTCOMES

Z95 = 1.959963984540054  # the standard normal's 97.5th percentile


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for k successes in n trials (95% by default); (nan, nan) for n = 0."""
    if n == 0:
        return math.nan, math.nan
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(k: int, n: int) -> dict:
    """{"count", "of", "rate", "low", "high"}: k of n with its Wilson 95% interval (rate None for n = 0)."""
    lo, hi = wilson(k, n)
    return {"count": k, "of": n, "rate": float(Fraction(k, n)) if n else None,
            "low": None if n == 0 else lo, "high": None if n == 0 else hi}


def first_answers(records: Iterable[dict]) -> list[dict]:
    """Each query's first answer (repeat 0), in order."""
    return [r for r in records if r.get("repeat", 0) == 0]


def summary(records: Sequence[dict]) -> dict:
    """The headline counts and rates over each query's first answer (module docstring)."""
    first = first_answers(records)
    n = len(first)
    c = Counter(r["outcome"] for r in first)
    need = sum(1 for r in first if r["gold"])
    out = {"queries": n, "need_tool": need, "need_none": n - need, "outcomes": {o: c[o] for o in OUTCOMES},
           "accuracy": rate(c["right"] + c["no_call"], n),
           "tool_accuracy": rate(c["right"], need),
           "skip_rate": rate(c["skip"], need),
           "false_call_rate": rate(c["false_call"], n - need),
           "invalid_rate": rate(c["invalid"], n)}
    right = [r for r in first if r["outcome"] == "right"]
    out["right_invalid_args"] = sum(1 for r in right if r["args_valid"] is False)
    with_args = [r for r in right if r["args_match"] is not None]
    out["args_match"] = rate(sum(1 for r in with_args if r["args_match"]), len(with_args))
    return out


def confusion(records: Sequence[dict], order: Sequence[str] = ()) -> tuple[list[str], list[str], list[list[int]]]:
    """(rows, columns, counts): expected (rows, "none" last) against called (columns, then "none" and
    "invalid"), over each query's first answer; only labels that occur, in `order` (the registry's)."""
    first = first_answers(records)
    cells = Counter((r["expected"], r["called"]) for r in first)
    seen = {r["expected"] for r in first} | {r["called"] for r in first}
    rank = {k: i for i, k in enumerate(order)}
    tools = sorted((k for k in seen if k not in (NONE, INVALID)), key=lambda k: (rank.get(k, len(rank)), k))
    rows = tools + [NONE]
    cols = tools + [NONE, INVALID]
    return rows, cols, [[cells[(r, c)] for c in cols] for r in rows]


def per_tool(records: Sequence[dict], order: Sequence[str] = ()) -> list[dict]:
    """Per tool that is expected or called: expected (its confusion row's total), called (its column's
    total), right (the diagonal), precision (right / called), recall (right / expected) and skip
    rate (no call / expected), each None when its denominator is 0."""
    rows, cols, m = confusion(records, order)
    out = []
    for i, tool in enumerate(rows[:-1]):
        expected = sum(m[i])
        called = sum(m[r][cols.index(tool)] for r in range(len(rows)))
        right = m[i][cols.index(tool)]
        skipped = m[i][cols.index(NONE)]
        share = lambda k, n: float(Fraction(k, n)) if n else None
        out.append({"tool": tool, "expected": expected, "called": called, "right": right,
                    "precision": share(right, called), "recall": share(right, expected),
                    "skip_rate": share(skipped, expected)})
    return out


def agreement(records: Sequence[dict]) -> dict | None:
    """Across repeats of the same query: the share of queries whose answers all agree (same outcome
    and same called tool); None when no query was asked more than once."""
    by_id: dict[str, list[tuple]] = defaultdict(list)
    for r in records:
        by_id[r["id"]].append((r["outcome"], r["called"]))
    repeated = [v for v in by_id.values() if len(v) > 1]
    if not repeated:
        return None
    return rate(sum(1 for v in repeated if len(set(v)) == 1), len(repeated))


def correct(record: dict) -> bool:
    """Whether an answer did what its query needs (the accuracy's numerator)."""
    return record["outcome"] in ("right", "no_call")


def mcnemar(b: int, c: int) -> float:
    """The exact (binomial) two-sided McNemar p-value for b and c discordant pairs: twice the
    probability of at most min(b, c) successes in b + c fair coin flips, capped at 1."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1))
    return float(min(Fraction(1), Fraction(2 * tail, 2 ** n)))


def confused_pairs(records: Sequence[dict], min_count: int = 1) -> list[dict]:
    """The pairs of tools the model took for each other, over each query's first answer: an answer
    whose confusion row is tool A (its first gold tool) and whose column is tool B (the first call to
    a tool that is not gold), A != B, both tools ("none" and "invalid" are not tools). One entry per
    unordered pair with at least `min_count` such answers, both directions kept:
    {"a", "b", "a_as_b" (gold A, called B), "b_as_a", "total", "queries_a_as_b", "queries_b_as_a"}
    (query ids in record order). A is the tool of the direction counted more (ties: the name first in
    order of A, B sorted). Most confused first, then by name."""
    cells: dict[tuple[str, str], list[str]] = defaultdict(list)
    for r in first_answers(records):
        gold, called = r["expected"], r["called"]
        if gold != called and gold not in (NONE, INVALID) and called not in (NONE, INVALID):
            cells[(gold, called)].append(r["id"])
    out = []
    for a, b in sorted({tuple(sorted(k)) for k in cells}):
        ab, ba = cells.get((a, b), []), cells.get((b, a), [])
        if len(ba) > len(ab):
            a, b, ab, ba = b, a, ba, ab
        if len(ab) + len(ba) >= min_count:
            out.append({"a": a, "b": b, "a_as_b": len(ab), "b_as_a": len(ba), "total": len(ab) + len(ba),
                        "queries_a_as_b": ab, "queries_b_as_a": ba})
    return sorted(out, key=lambda p: (-p["total"], p["a"], p["b"]))


def skipped(records: Sequence[dict]) -> list[dict]:
    """The tools the model skipped, over each query's first answer: per tool, the answers with no call
    whose confusion row is that tool (the query's first gold tool), of the queries whose row it is.
    {"tool", "skipped", "expected", "queries"}, most skipped first, then by name; tools never skipped
    are left out."""
    expected: Counter = Counter()
    skips: dict[str, list[str]] = defaultdict(list)
    for r in first_answers(records):
        if r["expected"] == NONE:
            continue
        expected[r["expected"]] += 1
        if r["outcome"] == "skip":
            skips[r["expected"]].append(r["id"])
    rows = [{"tool": t, "skipped": len(q), "expected": expected[t], "queries": q} for t, q in skips.items()]
    return sorted(rows, key=lambda x: (-x["skipped"], x["tool"]))
