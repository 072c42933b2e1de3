"""Attribution of whole-request counts to tools: per-tool figures that add up exactly to the whole
request, with the fixed tool-use overhead as its own line. Pure arithmetic."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...errors import InputError


def largest_remainder(total: int, weights: Sequence[int]) -> list[int]:
    """Split integer `total` in proportion to non-negative `weights`, summing exactly to `total`.

    Each item gets the floor of its share; the units left go to the largest remainders (earlier
    items first on ties). Equal weights are used when all are zero. A negative total is split the
    same way and negated.
    """
    n = len(weights)
    if n == 0:
        return []
    sign, total = (-1, -total) if total < 0 else (1, total)
    w = list(weights) if sum(weights) > 0 else [1] * n
    s = sum(w)
    floors = [total * x // s for x in w]
    rems = [total * x % s for x in w]
    left = total - sum(floors)
    for i in sorted(range(n), key=lambda i: (-rems[i], i))[:left]:
        floors[i] += 1
    return [sign * f for f in floors]


@dataclass
class Attribution:
    """Per-tool exact figures: overhead + tools + instructions == whole, exactly."""

    whole: int  # tokens the tool surface adds to one request (all-tools request minus the baseline)
    overhead: int  # fixed tokens any request with tools carries (tool-use system prompt, wrappers)
    tools: list[int]
    instructions: list[int]
    residual: int  # what per-item counts did not explain, spread over the items
    overhead_method: str


def attribute(baseline: int, chunks: Sequence[int], singles: Sequence[int],
              instructions: Sequence[int] = (), documented_overhead: int | None = None) -> Attribution:
    """Per-tool figures from whole-request counts.

    `chunks` are the all-tools request (or its parts, the first also carrying the instructions),
    `singles` each tool alone, `instructions` each server's instructions alone, all as counted
    (the baseline included). The overhead F is estimated by additivity, F = (sum of singles' increases
    - sum of parts' increases without instructions) / (tools - parts), kept between 0 and the smallest
    single; with as many parts as tools it is the documented figure (or 0). The whole is the parts'
    increases less the overhead they repeat. The residual (whole - F - the items' own counts) is
    spread over tools and instructions in proportion to their own counts, largest remainder first.
    """
    s = [x - baseline for x in singles]
    c = [x - baseline for x in chunks]
    ins = [max(0, x - baseline) for x in instructions]
    n, k = len(s), len(c)
    if n == 0:
        whole = max(0, sum(c))
        res = largest_remainder(whole - sum(ins), ins)
        return Attribution(whole, 0, [], [a + b for a, b in zip(ins, res, strict=True)], whole - sum(ins), "no tools")
    if n > k:
        est = (sum(s) - (sum(c) - sum(ins))) / (n - k)
        overhead = min(max(0, round(est)), max(0, min(s)))
        method = f"estimated from {n} single-tool requests and {k} all-tools request(s) by additivity"
    else:
        overhead = max(0, min(documented_overhead or 0, min(s)))
        method = ("the provider's documented tool-use overhead" if documented_overhead
                  else "not separable with one tool per request; left in the tools' figures")
    whole = sum(c) - (k - 1) * overhead
    if whole < 0:
        raise InputError(f"the endpoint counted fewer tokens with the tools ({sum(c):+d} over the baseline in "
                         f"{k} part(s)) than their overhead of {overhead}; these counts cannot be attributed")
    own = [max(0, x - overhead) for x in s]
    items = own + ins
    residual = whole - overhead - sum(items)
    if residual < -sum(items):  # the overhead was over-estimated: it takes the rest
        overhead = max(0, whole)
        items = [0] * len(items)
        residual = whole - overhead
    shares = largest_remainder(residual, items) if items else []
    fixed = [a + b for a, b in zip(items, shares, strict=True)]
    return Attribution(whole, overhead, fixed[:n], fixed[n:], residual, method)
