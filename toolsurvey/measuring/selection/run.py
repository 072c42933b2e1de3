"""`selection_eval`: ask a model, once per query (and repeat), which tool it would call, with the
registry's tools offered as its API takes them; classify every answer (outcomes) and keep one record
per answer, from which every figure is counted (metrics). Answers are cached on disk by exact
request, so a re-run sends nothing, and a stopped run resumes."""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from ...core.registry import Registry
from ...errors import InputError
from ...inputs.queries import Query, load_queries
from ...providers.asking import BATCH_PRICE, AskingClient, RequestFailed
from ...providers.eval_apis import client as make_client
from ...providers.eval_apis import infer_api
from . import request as req
from .cache import AnswerCache
from .outcomes import classify, make_call
from .result import SelectionEval

USAGE_KEYS = ("input", "cache_write_5m", "cache_write_1h", "cache_read", "output")


@dataclass
class Job:
    query: Query
    repeat: int
    body: dict
    request_hash: str
    offered: req.Offered | None = None  # the tools this request carries, when not the plan's (a sweep)
    visible: Any = None  # the sweep's size this request belongs to (a number or "all")
    description_tokens: Any = None  # the description-length variant (a number, "full" or "none")
    description_mean: float | None = None  # that variant's mean description tokens per tool offered

    @property
    def slot(self) -> tuple:
        """What tells this job's record from another's with the same request (a sweep's size or variant)."""
        return self.key, self.visible, self.description_tokens

    @property
    def key(self) -> str:
        return f"{self.request_hash}-{self.repeat}"


@dataclass
class EvalPlan:
    """Everything an eval will send, and its estimate, before anything is sent."""

    client: AskingClient
    offered: req.Offered
    jobs: list[Job]
    cache: AnswerCache
    estimate: req.Estimate
    warnings: list[str] = field(default_factory=list)

    def run(self, concurrency: int = 1, progress: Callable[[int, int], None] | None = None, *,
            batch: bool = False, poll: float | None = None) -> SelectionEval:
        """Fetch every answer not cached (at most `concurrency` at once, or as one batch at half
        price), classifying each as it comes. Raises ProviderError when the service fails; Ctrl-C
        keeps what was fetched in the cache (and a batch's id, so a re-run resumes it)."""
        if concurrency < 1:
            raise InputError(f"expected a concurrency of at least 1, found {concurrency}")
        done: dict[tuple, dict] = {}

        def record(job: Job, answer: dict, latency: float, from_cache: bool) -> None:
            done[job.slot] = _record(job, job.offered or self.offered, self.client, answer, latency, from_cache, self.estimate.price,
                                    batch and not from_cache)

        if batch:
            from .batch import POLL_SECONDS, fetch_batch

            todo = [j for j in self.jobs if not _from_cache(self, j, record)]
            failed = fetch_batch(self, todo, progress, record, POLL_SECONDS if poll is None else poll) if todo else []
        else:
            failed = _fetch(self, concurrency, progress, record)
        records = [done[j.slot] for j in self.jobs if j.slot in done]
        warnings = list(self.warnings)
        if failed:
            warnings.append(f"{len(failed)} of {len(self.jobs)} requests got no answer, so the totals are "
                            f"incomplete (first: {failed[0][0]}: {failed[0][1]})")
        return SelectionEval(self.client.model, self.client.api.name, self.client.base_url if self.client.custom_url
                             else None, records, self.estimate, warnings, list(self.offered.keys),
                             [{"id": i, "error": e} for i, e in failed])


def _from_cache(plan: EvalPlan, job: Job, record) -> bool:
    hit = plan.cache.get(job.key)
    if hit is not None:
        record(job, hit[0], hit[1], True)
    return hit is not None


def _fetch(plan: EvalPlan, concurrency: int, progress, record) -> list[tuple[str, str]]:
    """Each answer to `record(job, answer, latency, from_cache)` as it comes (cached ones first), the
    classifying done while the next requests are in flight; returns the (id, error) of failed ones."""
    todo = [j for j in plan.jobs if not _from_cache(plan, j, record)]
    failed: list[tuple[str, str]] = []
    total, done = len(plan.jobs), len(plan.jobs) - len(todo)

    def ask(job: Job):
        t0 = time.perf_counter()
        answer = plan.client.send(job.body)
        latency = time.perf_counter() - t0
        plan.cache.put(job.key, answer, latency)
        return answer, latency

    if progress:
        progress(done, total)
    pool = ThreadPoolExecutor(max_workers=concurrency)
    queue = iter(todo)
    futures: dict = {}

    def top_up() -> None:  # at most `concurrency` requests submitted: a Ctrl-C leaves none queued
        for job in itertools.islice(queue, concurrency - len(futures)):
            futures[pool.submit(ask, job)] = job

    try:
        top_up()
        while futures:
            finished, _ = wait(futures, return_when=FIRST_COMPLETED)
            jobs = [(f, futures.pop(f)) for f in finished]  # the answer is recorded, and not kept twice
            top_up()  # the next requests go out before these answers are classified
            for f, job in jobs:
                try:
                    answer, latency = f.result()
                except RequestFailed as e:
                    failed.append((job.query.id, str(e)))
                else:
                    record(job, answer, latency, False)
                done += 1
                if progress:
                    progress(done, total)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    return failed


def _record(job: Job, offered: req.Offered, client: AskingClient, answer: dict, latency: float,
            from_cache: bool, price, batch: bool = False) -> dict:
    """The log's record of one answer: the query, the verdict, the request, what came back, usage,
    latency and cost (at the batch price when it came through a batch; not billed this run when it
    came from the cache)."""
    a = client.read(answer)
    by_name = offered.by_name
    calls = [make_call(n, args, by_name) for n, args in a.calls]
    q = job.query
    v = classify(q.gold, calls, a.text, offered.schemas, q.args, offered.names)
    first = calls[0] if calls else None
    cost = req.cost_of(a.usage, price)
    if cost is not None and batch:
        cost *= BATCH_PRICE
    visible = {} if job.visible is None else {"visible": job.visible}
    if job.description_tokens is not None:
        visible = {**visible, "description_tokens": job.description_tokens,
                   "description_mean_tokens": job.description_mean}
    return {"id": q.id, "model": client.model, "repeat": job.repeat, **visible, "query": q.query, "gold": list(q.gold), "outcome": v.outcome,
            "expected": v.expected, "called": v.called, "args_valid": v.args_valid, "args_match": v.args_match,
            "reason": v.reason, "request_hash": job.request_hash, "tools_offered": offered.keys,
            "tool": (first.tool or first.name) if first else None, "arguments": first.arguments if first else None,
            "calls": [c.to_json() for c in calls], "text": a.text, "refusal": a.refusal, "stop": a.stop,
            "usage": dict(zip(USAGE_KEYS, a.usage, strict=True)), "latency_s": round(latency, 6),
            "cost": cost, "from_cache": from_cache, "batch": batch}


def plan_eval(registry: Registry, queries, model: str, *, api: str | None = None, base_url: str | None = None,
              system: str | None = None, repeat: int = 1, cache: bool = True, cache_dir=None,
              http_client: Any = None, timeout: float | None = None, max_retries: int | None = None,
              environ: Mapping[str, str] | None = None, dry_run: bool = False,
              cache_tools: bool = True, batch: bool = False) -> EvalPlan:
    """What `selection_eval` would send and what it would cost, without sending anything. Raises
    InputError for bad queries or options, ProviderError for a missing key (unless `dry_run`: then the
    plan can be estimated but not run)."""
    if repeat < 1:
        raise InputError(f"expected --repeat of at least 1, found {repeat}")
    if not len(registry):
        raise InputError("the registry has no tools; an eval needs tools to offer")
    qs = eval_queries(queries, registry)
    extra = {k: v for k, v in (("timeout", timeout), ("max_retries", max_retries)) if v is not None}
    extra["require_key"] = not dry_run
    if not cache_tools:  # Anthropic's cache_control on the tools (OpenAI caches a prefix on its own)
        extra["cache_tools"] = False
    cl = make_client(api or infer_api(model, base_url), model, base_url=base_url, environ=environ,
                     http_client=http_client, **extra)
    off = req.offered(registry, cl.api.tools_format)
    jobs = []
    for q in qs:
        body = cl.body(q.query, off.tools, system)
        h = cl.request_hash(body)
        jobs += [Job(q, r, body, h) for r in range(repeat)]
    store = AnswerCache(cache_dir, enabled=cache)
    todo = [j for j in jobs if j.key not in store]
    tokens, method = req.tools_tokens(registry, rendering(cl), model)
    price = req.find_price(model)
    est = req.estimate([j.query.query for j in todo], len(jobs), tokens, method, system, price,
                       BATCH_PRICE if batch else 1.0)
    if batch and cl.custom_url:
        raise InputError("--batch goes through a provider's batch API; a --base-url server has none")
    warnings = []
    if jobs and "temperature" not in jobs[0].body:
        warnings.append(f"temperature 0 is not sent: {cl.label} for {model} does not take it, so answers may vary")
    if off.renamed:
        warnings.append(f"{len(off.renamed)} tool name(s) the API would refuse or that repeat were sent under "
                        f"another name and mapped back: {'; '.join(off.renamed[:5])}"
                        + (" …" if len(off.renamed) > 5 else ""))
    return EvalPlan(cl, off, jobs, store, est, warnings)


def eval_queries(queries, registry: Registry) -> list[Query]:
    """Queries from a file, several files (ids unique across them), mappings or Query values; `"gold": []`
    and `"args"` allowed. Raises InputError as load_queries does."""
    if isinstance(queries, (list, tuple)) and queries and all(isinstance(q, (str, os.PathLike)) for q in queries):
        out, seen = [], {}
        for path in queries:
            for q in load_queries(path, registry, no_tool=True):
                if q.id in seen:
                    raise InputError(f"{os.fspath(path)}: query id {q.id!r} is also in {seen[q.id]}; ids must be unique")
                seen[q.id] = os.fspath(path)
                out.append(q)
        return out
    if isinstance(queries, Sequence) and not isinstance(queries, str) and queries \
            and all(isinstance(q, Query) for q in queries):
        return list(queries)
    return load_queries(queries, registry, no_tool=True)


def rendering(cl: AskingClient) -> str:
    """The rendering that counts what the API's model sees: its provider's own, or compact JSON for
    another server (its tokenizer and template are not known)."""
    return "json" if cl.custom_url else cl.provider.renderings[0].name


def selection_eval(registry: Registry, queries, model: str, *, max_cost: float | None = 1.0, yes: bool = False,
                   concurrency: int = 1, progress: Callable[[int, int], None] | None = None,
                   batch: bool = False, poll: float | None = None, **options) -> SelectionEval:
    """Ask `model` which of `registry`'s tools it would call for each of `queries` (a JSON Lines file
    of {"id", "query", "gold": [...] or [], "args"?}, or Query values), and count the outcomes.

    Options: api ("openai-chat", "openai-responses", "anthropic-messages"; by default from the model,
    and Chat Completions for `base_url`), base_url (an OpenAI-compatible server), system, repeat,
    cache, cache_dir, http_client, timeout, max_retries, environ, cache_tools (False: no
    cache_control on Anthropic's tools). `batch`: through the provider's batch API at half price,
    polling every `poll` seconds; a re-run resumes a batch still processing. Nothing is sent when the estimate
    is over `max_cost` dollars, unless `yes`. Raises InputError for bad input or an estimate over
    max_cost, ProviderError for a missing key or a failing service."""
    plan = plan_eval(registry, queries, model, batch=batch, **options)
    check_cost(plan.estimate, max_cost, yes, plan.client.custom_url, model)
    return plan.run(concurrency, progress, batch=batch, poll=poll)


def check_cost(est: req.Estimate, max_cost: float | None, yes: bool, local: bool, model: str) -> None:
    """Raise InputError unless the run may go ahead: `yes`, nothing to send, an estimate under
    `max_cost`, or a --base-url server with no known price (counted in tokens only)."""
    if yes or est.requests == 0:
        return
    if est.cost is None:
        if local:
            return
        raise InputError(f"no price is known for {model!r}, so the run's "
                         "cost cannot be estimated; pass --yes to send it anyway")
    if max_cost is not None and est.cost > max_cost:
        raise InputError(f"the estimate, ${est.cost:,.4f} for {est.requests:,} requests, is over --max-cost "
                         f"${max_cost:,.2f}; pass --yes or a higher --max-cost to send them")
