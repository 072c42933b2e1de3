"""The catalog-size sweep: the same queries asked with fewer or more tools in view. For each query and
each size, the visible set is the query's gold tools plus distractors from the same registry:

- `random`: a seeded shuffle of the registry's other tools, one per query (drawn from the seed and
  the query's id, so adding a query changes no other query's draw); a size takes its first tools,
  so a smaller set is always inside a larger one;
- `nearest`: the other tools BM25 ranks highest for the query (the retrieval module's BM25, the
  one `toolsurvey retrieval` measures), best first, ties in registry order; when fewer of them score
  above 0 than a size needs, the rest come from the seeded shuffle.

A size counts every tool offered, gold included; a query whose gold tools alone reach the size is
offered its gold tools only. `all` is the whole registry. The tools are sent in registry order.

Each record of the log gains `visible` (the size asked, a number or "all"); `tools_offered` already
lists the tools sent. The figures per size are counted from the records of that size (`metrics`),
with the wrong-call rate defined in `wrong_calls`."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ...core.registry import Registry
from ...core.viewable import Viewable
from ...errors import InputError
from ...inputs.queries import Query
from . import metrics
from . import request as req
from .result import CAVEAT, SelectionEval

ALL = "all"
DISTRACTORS = ("random", "nearest")
DEFAULT_SEED = 0
DEFAULT_SIZES = (5, 10, 20, 40, ALL)


def parse_sizes(sizes) -> list:
    """Sizes from "5,10,all" or a sequence of whole numbers >= 1 and "all"; sorted, "all" last, no repeats.
    Raises InputError naming what was expected."""
    items = [s.strip() for s in sizes.split(",")] if isinstance(sizes, str) else list(sizes)
    out: set[int] = set()
    has_all = False
    for s in items:
        if isinstance(s, str) and s.lower() == ALL:
            has_all = True
            continue
        try:
            n = int(s)
            ok = n >= 1 and float(s) == n
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise InputError(f"expected --visible sizes as whole numbers of at least 1 or 'all', such as 5,10,all; "
                             f"found {s!r}")
        out.add(n)
    if not out and not has_all:
        raise InputError("expected at least one --visible size, such as 5,10,all; found none")
    return sorted(out) + ([ALL] if has_all else [])


def _rng(seed: int, qid: str) -> np.random.Generator:
    digest = hashlib.sha256(f"{seed}\x00{qid}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "big"))


def distractor_order(registry: Registry, query: Query, *, seed: int = DEFAULT_SEED, distractors: str = "random",
                     scorer=None) -> list[str]:
    """The registry's non-gold tool keys in the order a sweep adds them to `query`'s visible set."""
    keys = [t.key for t in registry]
    gold = set(query.gold)
    others = [i for i, k in enumerate(keys) if k not in gold]
    shuffled = [others[i] for i in _rng(seed, query.id).permutation(len(others))]
    if distractors == "random":
        return [keys[i] for i in shuffled]
    scores = scorer.scores(query.query)
    hit = sorted((i for i in others if scores[i] > 0), key=lambda i: (-scores[i], i))
    seen = set(hit)
    return [keys[i] for i in hit + [i for i in shuffled if i not in seen]]


def draw_visible(registry: Registry, queries: Sequence[Query], sizes, *, seed: int = DEFAULT_SEED,
                 distractors: str = "random") -> dict[str, dict]:
    """{query id: {size: [tool keys offered, in registry order]}}: each query's gold tools plus the first
    distractors of `distractor_order` up to the size ("all": every tool)."""
    if distractors not in DISTRACTORS:
        raise InputError(f"expected --distractors {' or '.join(DISTRACTORS)}, found {distractors!r}")
    sizes = parse_sizes(sizes)
    keys = [t.key for t in registry]
    rank = {k: i for i, k in enumerate(keys)}
    scorer = None
    if distractors == "nearest":
        from ..retrieval.methods import BM25
        from ..retrieval.text import tool_text

        scorer = BM25([tool_text(t) for t in registry])
    out: dict[str, dict] = {}
    for q in queries:
        order = distractor_order(registry, q, seed=seed, distractors=distractors, scorer=scorer)
        gold = [k for k in keys if k in set(q.gold)]
        sets = {}
        for s in sizes:
            chosen = keys if s == ALL else gold + order[:max(0, s - len(gold))]
            sets[s] = sorted(chosen, key=rank.__getitem__)
        out[q.id] = sets
    return out


def wrong_calls(records: Sequence[dict]) -> dict:
    """The wrong-call rate as accuracy.toml means it, the share of tool calls that pick a wrong tool,
    over each query's first answer: of the queries that need a tool and whose answer made a call
    (`right`, `wrong` or `invalid`), those whose call is `wrong` or `invalid` (an invalid call, to a
    tool not offered, with arguments that are not an object or written out as text, cannot run and is
    made again, as a wrong one is). Skips and the queries that need no tool are not tool calls of a
    task and are left out (the skip rate and false-call rate are reported beside it)."""
    first = [r for r in metrics.first_answers(records) if r["gold"]]
    calls = [r for r in first if r["outcome"] in ("right", "wrong", "invalid")]
    return metrics.rate(sum(1 for r in calls if r["outcome"] != "right"), len(calls))


def size_label(size) -> str:
    return str(size)


class OneAxis:
    """What an eval over one axis (catalog size, description length) shares: `eval`, one SelectionEval
    whose records each carry their point on the axis."""

    eval: SelectionEval
    axis = ""  # the record field holding each answer's point on the axis

    @property
    def records(self) -> list[dict]:
        return self.eval.records

    @property
    def queries(self) -> int:
        return len({r["id"] for r in self.eval.records})

    @property
    def points(self) -> list:
        raise NotImplementedError

    def at(self, point) -> SelectionEval:
        """The eval at one point of the axis: its records only (each query once per repeat), as a plain eval."""
        if point not in self.points:
            raise InputError(f"expected one of this sweep's {self.axis} values ({', '.join(map(str, self.points))}), "
                             f"found {point!r}")
        ev = self.eval
        return SelectionEval(ev.model, ev.api, ev.base_url, [r for r in ev.records if r[self.axis] == point],
                             ev.estimate, list(ev.warnings), list(ev.order), list(ev.failed))


@dataclass(repr=False)
class SweepEval(OneAxis, Viewable):
    """One eval over every (query, size): `eval.records` each carry `visible`; `by_size()` the figures."""

    view_name = "selection sweep"

    eval: SelectionEval
    sizes: list
    distractors: str
    seed: int
    registry_size: int
    warnings: list[str] = field(default_factory=list)

    axis = "visible"

    @property
    def points(self) -> list:
        return self.sizes

    def by_size(self) -> list[dict]:
        """Per size: the mean number of tools offered, the queries, the wrong-call rate, accuracy, tool
        accuracy, skip, false-call and invalid rates (each count, of, rate, low, high)."""
        out = []
        for s in self.sizes:
            recs = self.at(s).records
            first = metrics.first_answers(recs)
            summ = metrics.summary(recs)
            tools = float(np.mean([len(r["tools_offered"]) for r in first])) if first else float("nan")
            out.append({"visible": s, "tools_offered": tools, "queries": summ["queries"],
                        "wrong_call_rate": wrong_calls(recs), "accuracy": summ["accuracy"],
                        "tool_accuracy": summ["tool_accuracy"], "skip_rate": summ["skip_rate"],
                        "false_call_rate": summ["false_call_rate"], "invalid_rate": summ["invalid_rate"],
                        "outcomes": summ["outcomes"]})
        return out

    def to_json(self) -> dict:
        ev = self.eval
        return {"model": ev.model, "api": ev.api, "base_url": ev.base_url, "distractors": self.distractors,
                "seed": self.seed, "registry_size": self.registry_size, "by_size": self.by_size(),
                "estimate": ev.estimate.to_json(), "billed": ev.billed(), "failed": ev.failed,
                "warnings": ev.warnings, "caveat": CAVEAT, "queries": ev.records}

    def describe(self) -> str:
        parts = []
        for row in self.by_size():
            w = row["wrong_call_rate"]["rate"]
            parts.append(f"{row['visible']}: wrong {'n/a' if w is None else f'{w:.0%}'}")
        return f"{self.eval.model}, {self.queries} queries, {self.distractors} distractors; " + ", ".join(parts)


def plan_sweep(registry: Registry, queries, model: str, sizes=DEFAULT_SIZES, *, seed: int = DEFAULT_SEED,
               distractors: str = "random", **options):
    """What `selection_sweep` would send: one job per query, size (and repeat), each with its own visible
    set, grouped so that requests with the same tools are sent one after another (a server with one
    prompt-cache slot re-reads the tools only when they change). Returns (plan, sizes)."""
    from .run import Job, eval_queries, plan_eval

    sizes = parse_sizes(sizes)
    n = len(registry)
    clamped = [s for s in sizes if s != ALL and s >= n]
    if clamped:  # a size at or above the registry's is the whole registry
        sizes = [s for s in sizes if s == ALL or s < n]
        if ALL not in sizes:
            sizes.append(ALL)
    if not len(registry):
        raise InputError("the registry has no tools; an eval needs tools to offer")
    qs = eval_queries(queries, registry)
    sets = draw_visible(registry, qs, sizes, seed=seed, distractors=distractors)
    plan = plan_eval(registry, qs, model, **options)
    cl = plan.client
    repeat = max(j.repeat for j in plan.jobs) + 1 if plan.jobs else 1
    by_key = {t.key: t for t in registry}
    offers: dict[tuple, req.Offered] = {}
    jobs = []
    order = sorted(((s, q) for s in sizes for q in qs),
                   key=lambda sq: (sizes.index(sq[0]), tuple(sets[sq[1].id][sq[0]])))
    for s, q in order:
        chosen = tuple(sets[q.id][s])
        off = offers.get(chosen)
        if off is None:
            off = offers[chosen] = req.offered(Registry.from_tools(by_key[k] for k in chosen), cl.api.tools_format)
        body = cl.body(q.query, off.tools, options.get("system"))
        h = cl.request_hash(body)
        jobs += [Job(q, r, body, h, off, s) for r in range(repeat)]
    plan.jobs = jobs
    plan.estimate = _estimate(plan, registry, options.get("system"))
    if clamped:
        plan.warnings.append(f"--visible {', '.join(map(str, clamped))}: at or above the registry's {n} tools, "
                             "so measured as 'all'")
    return plan, sizes


def tokens_by_tool(plan, registry: Registry) -> tuple[dict[str, int], int]:
    """Each tool's tokens (by key) and the request's fixed overhead, counted as `request.tools_tokens`
    counts a whole registry's (the same rendering; servers' instructions are not sent by an eval)."""
    from ..parts import footprint_columns

    cl = plan.client  # the rendering plan_eval counts with: the provider's own, compact JSON for another server
    render, model = ("json" if cl.custom_url else cl.provider.renderings[0].name), cl.model
    try:
        cols, _ = footprint_columns(registry, render=render, model=model, parts=False)
    except InputError:
        cols, _ = footprint_columns(registry, render=render, parts=False)
    tools = [int(t) for t, kind in zip(cols["tokens"], cols["kind"], strict=True) if kind == "tool"]
    fixed = sum(int(t) for t, kind in zip(cols["tokens"], cols["kind"], strict=True) if kind not in ("tool", "instructions"))
    return dict(zip([t.key for t in registry], tools, strict=True)), fixed


def _estimate(plan, registry: Registry, system) -> req.Estimate:
    """The sweep's estimate: each visible set's requests priced as `request.estimate` prices one
    eval's (its tools a prefix written once, then read), their tokens and costs summed. A set's tool
    tokens are its tools' own counts plus the request's fixed overhead; `tools_tokens` is their mean
    per request."""
    price, method = plan.estimate.price, plan.estimate.method
    per_tool, fixed = tokens_by_tool(plan, registry)
    groups: dict[tuple, list] = {}
    for j in plan.jobs:
        if j.key not in plan.cache:
            groups.setdefault(tuple(j.offered.keys), []).append(j.query.query)
    parts = [req.estimate(prompts, len(prompts), fixed + sum(per_tool[k] for k in keys), method, system, price)
             for keys, prompts in groups.items()]
    known = price is not None
    sent = sum(p.requests for p in parts)
    mean = round(sum(p.tools_tokens * p.requests for p in parts) / sent) if sent else plan.estimate.tools_tokens
    return req.Estimate(len(plan.jobs), sent, mean, sum(p.input_tokens for p in parts),
                        sum(p.output_tokens for p in parts), float(sum(p.cost for p in parts)) if known else None,
                        float(sum(p.cost_cached for p in parts)) if known else None, price,
                        method + "; the mean over the visible sets")


def selection_sweep(registry: Registry, queries, model: str, sizes=DEFAULT_SIZES, *, seed: int = DEFAULT_SEED,
                    distractors: str = "random", max_cost: float | None = 1.0, yes: bool = False,
                    concurrency: int = 1, progress=None, **options) -> SweepEval:
    """`selection_eval` at several catalog sizes (module docstring): for each query and each of `sizes`
    ("5,10,all" or [5, 10, "all"]), the query's gold tools plus `distractors` ("random" or "nearest")
    drawn with `seed`. Options as selection_eval's (batch is not taken). Returns a SweepEval."""
    from .run import check_cost

    plan, sizes = plan_sweep(registry, queries, model, sizes, seed=seed, distractors=distractors, **options)
    check_cost(plan.estimate, max_cost, yes, plan.client.custom_url, model)
    ev = plan.run(concurrency, progress)
    return SweepEval(ev, sizes, distractors, seed, len(registry))
