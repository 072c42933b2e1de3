"""Deferred loading with the model in the loop (`toolsurvey eval --defer MODE`): the model is not
shown the registry's definitions, only a search, and what it calls after searching is classified as
any answer is (outcomes.classify). Three modes:

- `client`: a search run by the client, as Claude Code's ToolSearch is (Chat Completions only). The
  model sees one tool, `tool_search` (the harness's own definition, SEARCH_DESCRIPTION), and, unless
  `list_names=False`, the deferred tools' names, listed in the system message as Claude Code lists
  them in the conversation. When it calls the search, the harness runs the BM25 that `toolsurvey
  retrieval` measures (measuring.retrieval: BM25 over each tool's name, description and parameters,
  the best `k` with a score above 0, ties in registry order) on the query the model wrote, answers
  with a `tool` message holding {"query", "matches": [names], "total_deferred_tools"}, and sends the
  next request with the found tools' definitions added to `tools` (a tool found once stays loaded).
  The first answer that calls something other than the search, or calls nothing, is the final
  answer; after `rounds` requests the conversation stops, and a model still only searching has made
  no call (a skip). A call to a deferred tool the search has not loaded is a call to a tool not
  offered: invalid, as it fails in Claude Code.
- `anthropic-bm25`, `anthropic-regex`: Anthropic's server-side tool search (providers.toml
  [search.*]). One request carries the search tool and every tool with `defer_loading: true`; the
  API runs the searches, and the answer holds server_tool_use and tool_search_tool_result blocks
  (tool_reference), then the model's tool_use. Its usage counts the searches
  (`usage.server_tool_use.tool_search_requests`). An answer that stops with `pause_turn` is
  classified as it stands: toolsurvey does not send the turn back to be continued.

Every record gains `"defer"`: {"mode", "searched", "found_gold" (None when the query needs no tool
or no search ran), "searches": [{"query", "found": [keys]}], "loaded", "rounds", "exhausted",
"search_requests", "extra_requests", "extra_input_tokens", "extra_output_tokens"}. Its `usage` and
`cost` are the whole conversation's. Each request is cached by its exact body, so a re-run replays
the conversation from the cache and sends nothing."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...core.registry import Registry, Tool
from ...core.tokens import count
from ...errors import InputError
from ...inputs.queries import Query
from ...providers.asking import RequestFailed
from ...providers.search import search_rules
from . import request as req
from .cache import AnswerCache
from .outcomes import classify, make_call, parse_arguments
from .result import SelectionEval

CLIENT = "client"
MODES = (CLIENT, "anthropic-bm25", "anthropic-regex")
DEFAULT_ROUNDS = 3  # requests per query in client mode: a search, a second search, then a call
DEFAULT_K = 5  # tools one client search loads, as Anthropic's BM25 search loads by default (providers.toml)
SEARCH_NAME = "tool_search"
SEARCH_DESCRIPTION = ("Search the deferred tools by keywords (their names, descriptions and parameters) and load "
                      "the best matches. A deferred tool cannot be called until a search has loaded it; once "
                      "loaded, call it directly.")
SEARCH_SCHEMA = {"type": "object", "properties": {"query": {"type": "string", "description":
                                                             "keywords describing the tool you need"}},
                 "required": ["query"]}
NAMES_HEAD = "Deferred tools (call {search} to load one before calling it):"
USAGE_KEYS = ("input", "cache_write_5m", "cache_write_1h", "cache_read", "output")


@dataclass
class DeferJob:
    query: Query
    repeat: int
    body: dict  # the first request


@dataclass
class DeferPlan:
    """Everything a deferred-loading eval will send first, and its estimate, before anything is sent."""

    client: Any
    mode: str
    registry: Registry
    offered: req.Offered  # every registry tool, under the names sent
    jobs: list[DeferJob]
    cache: AnswerCache
    estimate: req.Estimate
    rounds: int
    k: int
    search_name: str
    search_tools: list  # the client search tool, in the API's format
    scorer: Any = None
    warnings: list[str] = field(default_factory=list)

    def search(self, text: str) -> list[str]:
        """The registry keys BM25 ranks best for `text`: score above 0, at most k, ties in registry order."""
        from ..retrieval.ranks import top

        scores = self.scorer.scores(text)
        return [self.offered.keys[i] for i in top(scores, np.zeros(len(scores), dtype=bool), self.k)]

    def run(self, concurrency: int = 1, progress: Callable[[int, int], None] | None = None) -> SelectionEval:
        """Every query's conversation, `concurrency` at once; a query whose request fails is counted
        as failed (the totals say so). Raises ProviderError when the service fails."""
        if concurrency < 1:
            raise InputError(f"expected a concurrency of at least 1, found {concurrency}")
        one = self._client_mode if self.mode == CLIENT else self._server_mode
        results: dict[int, dict] = {}
        failed: list[tuple[str, str]] = []
        done = 0

        def go(i: int) -> tuple[int, dict | None, str]:
            try:
                return i, one(self.jobs[i]), ""
            except RequestFailed as e:
                return i, None, str(e)

        if progress:
            progress(0, len(self.jobs))
        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            for i, rec, err in pool.map(go, range(len(self.jobs))):
                if rec is None:
                    failed.append((self.jobs[i].query.id, err))
                else:
                    results[i] = rec
                done += 1
                if progress:
                    progress(done, len(self.jobs))
        records = [results[i] for i in range(len(self.jobs)) if i in results]
        warnings = list(self.warnings)
        if failed:
            warnings.append(f"{len(failed)} of {len(self.jobs)} queries got no answer, so the totals are "
                            f"incomplete (first: {failed[0][0]}: {failed[0][1]})")
        cl = self.client
        return SelectionEval(cl.model, cl.api.name, cl.base_url if cl.custom_url else None, records, self.estimate,
                             warnings, list(self.offered.keys), [{"id": i, "error": e} for i, e in failed])

    def _ask(self, body: dict, repeat: int) -> tuple[dict, float, bool]:
        key = f"{self.client.request_hash(body)}-{repeat}"
        hit = self.cache.get(key)
        if hit is not None:
            return hit[0], hit[1], True
        t0 = time.perf_counter()
        answer = self.client.send(body)
        latency = time.perf_counter() - t0
        self.cache.put(key, answer, latency)
        return answer, latency, False

    def _client_mode(self, job: DeferJob) -> dict:
        body, loaded, searches, rounds = job.body, [], [], []
        exhausted = False
        for n in range(self.rounds):
            answer, latency, cached = self._ask(body, job.repeat)
            rounds.append((self.client.read(answer), latency, cached))
            calls = self.client.call_ids(answer)
            asked = [c for c in calls if c[1] == self.search_name]
            if not asked or len(asked) < len(calls):
                break
            if n == self.rounds - 1:
                exhausted = True
                break
            replies = []
            for cid, _, raw in asked:
                args, ok = parse_arguments(raw)
                text = args.get("query") if ok and isinstance(args, dict) else None
                found = self.search(text) if isinstance(text, str) and text.strip() else []
                searches.append({"query": text, "found": found})
                loaded += [k for k in found if k not in loaded]
                names = [self.offered.names[self.offered.keys.index(k)] for k in found]
                replies.append((cid, json.dumps({"query": text, "matches": names,
                                                 "total_deferred_tools": len(self.offered.keys)},
                                                ensure_ascii=False)))
            body = self.client.follow_up(body, answer, replies, self.search_tools + _subset(self.offered, loaded).tools)
        final, _, _ = rounds[-1]
        off = _subset(self.offered, loaded)
        calls = [make_call(nm, a, off.by_name) for nm, a in final.calls if nm != self.search_name]
        q = job.query
        v = classify(q.gold, calls, "" if calls else final.text, off.schemas, q.args, off.names)
        reason = v.reason or (f"still searching after {self.rounds} requests" if exhausted else "")
        found_keys = {k for s in searches for k in s["found"]}
        extra = rounds[1:]
        return _record(job, self.client, v, reason, calls, final, rounds, off.keys, {
            "mode": self.mode, "searched": bool(searches),
            "found_gold": bool(found_keys & set(q.gold)) if searches and q.gold else None,
            "searches": searches, "loaded": loaded, "rounds": len(rounds), "exhausted": exhausted,
            "search_requests": len(searches), "extra_requests": len(extra),
            "extra_input_tokens": sum(sum(a.usage[:4]) for a, _, _ in extra),
            "extra_output_tokens": sum(a.usage[4] for a, _, _ in extra)}, self.estimate.price)

    def _server_mode(self, job: DeferJob) -> dict:
        answer, latency, cached = self._ask(job.body, job.repeat)
        a = self.client.read(answer)
        off, q = self.offered, job.query
        calls = [make_call(nm, args, off.by_name) for nm, args in a.calls]
        v = classify(q.gold, calls, a.text, off.schemas, q.args, off.names)
        searches = [{"query": _query_of(s["input"]), "found": [off.by_name.get(n, n) for n in s["found"] or []],
                     **({"error": s["error"]} if s["error"] else {})} for s in self.client.tool_searches(answer)]
        counted = self.client.search_requests(answer)
        found_keys = {k for s in searches for k in s["found"]}
        searched = bool(searches) or bool(counted)
        return _record(job, self.client, v, v.reason, calls, a, [(a, latency, cached)], off.keys, {
            "mode": self.mode, "searched": searched,
            "found_gold": bool(found_keys & set(q.gold)) if searched and q.gold else None,
            "searches": searches, "loaded": [k for k in dict.fromkeys(k for s in searches for k in s["found"])],
            "rounds": 1, "exhausted": False, "search_requests": counted if counted is not None else len(searches),
            "extra_requests": 0, "extra_input_tokens": None, "extra_output_tokens": None}, self.estimate.price)


def _query_of(given: Any) -> Any:
    """What a server-side search searched for: its input's "query" when that is text, else the input."""
    return given["query"] if isinstance(given, dict) and isinstance(given.get("query"), str) else given


def _subset(off: req.Offered, keys: list[str]) -> req.Offered:
    """The tools of `off` whose keys are in `keys`, in registry order, under the same names."""
    want = set(keys)
    idx = [i for i, k in enumerate(off.keys) if k in want]
    return req.Offered([off.keys[i] for i in idx], [off.names[i] for i in idx], [off.tools[i] for i in idx],
                       {off.keys[i]: off.schemas[off.keys[i]] for i in idx})


def _record(job: DeferJob, client, v, reason: str, calls, final, rounds, offered_keys, defer: dict, price) -> dict:
    """The log's record of one query's conversation: the fields a plain eval's record has (the usage,
    latency and cost of every request summed), plus `defer`."""
    usage = [sum(a.usage[i] for a, _, _ in rounds) for i in range(5)]
    cost = req.cost_of(usage, price)
    first = calls[0] if calls else None
    q = job.query
    return {"id": q.id, "model": client.model, "repeat": job.repeat, "query": q.query, "gold": list(q.gold),
            "outcome": v.outcome, "expected": v.expected, "called": v.called, "args_valid": v.args_valid,
            "args_match": v.args_match, "reason": reason, "request_hash": client.request_hash(job.body),
            "tools_offered": list(offered_keys), "tool": (first.tool or first.name) if first else None,
            "arguments": first.arguments if first else None, "calls": [c.to_json() for c in calls],
            "text": final.text, "refusal": final.refusal, "stop": final.stop,
            "usage": dict(zip(USAGE_KEYS, usage, strict=True)),
            "latency_s": round(sum(lat for _, lat, _ in rounds), 6), "cost": cost,
            "from_cache": all(c for _, _, c in rounds), "batch": False, "defer": defer}


def _search_tool(registry: Registry, tools_format: str) -> tuple[str, list]:
    """The client search tool's name (tool_search, or with a suffix when a registry tool has that
    name) and its definition in the API's format."""
    names = {t.name for t in registry}
    name, n = SEARCH_NAME, 1
    while name in names:
        n += 1
        name = f"{SEARCH_NAME}_{n}"
    from ...inputs.formats import dump

    tool = Tool(name, SEARCH_DESCRIPTION, SEARCH_SCHEMA, server="toolsurvey")
    return name, dump(Registry.from_tools([tool]), tools_format)


def names_message(search: str, names: list[str]) -> str:
    """The deferred tools' names as the client lists them for the model: one line per tool."""
    return "\n".join([NAMES_HEAD.format(search=search), *names])


def plan_defer(registry: Registry, queries, model: str, mode: str = CLIENT, *, rounds: int = DEFAULT_ROUNDS,
               k: int = DEFAULT_K, list_names: bool = True, system: str | None = None, **options) -> DeferPlan:
    """What `--defer MODE` would send first and what the whole run may cost, without sending anything.
    Options as plan_eval's (api, base_url, repeat, cache, cache_dir, http_client, timeout, max_retries,
    environ, dry_run). Raises InputError for an unknown mode, a mode the API cannot take, or bad input."""
    from ..retrieval.methods import BM25
    from ..retrieval.text import tool_text
    from .run import plan_eval

    if mode not in MODES:
        raise InputError(f"expected --defer {', '.join(MODES)}; found {mode!r}")
    if rounds < 2:
        raise InputError(f"expected --defer-rounds of at least 2 (a search, then a call), found {rounds}")
    if k < 1:
        raise InputError(f"expected --search-k of at least 1, found {k}")
    plan = plan_eval(registry, queries, model, system=system, cache_tools=False, **options)
    cl = plan.client
    jobs: list[DeferJob] = []
    repeat = max(j.repeat for j in plan.jobs) + 1 if plan.jobs else 1
    qs = list(dict.fromkeys(j.query for j in plan.jobs))
    if mode == CLIENT:
        if not hasattr(cl, "follow_up"):
            raise InputError(f"--defer {CLIENT} runs on the openai-chat API (an OpenAI-compatible server or "
                             f"OpenAI's Chat Completions); found --api {cl.api.name}")
        name, tools = _search_tool(registry, cl.api.tools_format)
        listing = names_message(name, plan.offered.names) if list_names else None
        said = "\n\n".join(s for s in (system, listing) if s) or None
        for q in qs:
            jobs += [DeferJob(q, r, cl.body(q.query, tools, said)) for r in range(repeat)]
    else:
        if not hasattr(cl, "deferred_body"):
            raise InputError(f"--defer {mode} is Anthropic's server-side search, on the anthropic-messages API; "
                             f"found --api {cl.api.name}")
        rules = search_rules(mode)
        if not (cl.custom_url or rules.supports(model)):
            from ...providers.search import check_model

            check_model(rules, model)
        name, tools = rules.tool_name, []
        for q in qs:
            jobs += [DeferJob(q, r, cl.deferred_body(q.query, plan.offered.tools, system, rules)) for r in range(repeat)]
        rounds = 1
    scorer = BM25([tool_text(t) for t in registry]) if mode == CLIENT else None
    out = DeferPlan(cl, mode, registry, plan.offered, jobs, plan.cache, plan.estimate, rounds, k, name, tools,
                    scorer, list(plan.warnings))
    out.estimate = _estimate(out, registry, system, listing if mode == CLIENT else None)
    return out


def _estimate(plan: DeferPlan, registry: Registry, system: str | None, listing: str | None) -> req.Estimate:
    """The run's estimate, on a stated assumption (in `method`): client mode, the worst case, every
    query searching in every request but the last, each search loading k tools more of the registry's
    mean size (the messages between requests not counted); server-side search, one request per
    query whose search loads the documented results per search, the search tool at its documented
    size."""
    from .run import rendering
    from .sweep import tokens_by_tool

    per_tool, fixed = tokens_by_tool(plan, registry)
    mean = sum(per_tool.values()) / len(per_tool) if per_tool else 0.0
    price, method = plan.estimate.price, plan.estimate.method
    todo = [j for j in plan.jobs if f"{plan.client.request_hash(j.body)}-{j.repeat}" not in plan.cache]
    prompts = [j.query.query for j in todo]
    if plan.mode == CLIENT:
        search, _ = req.tools_tokens(Registry.from_tools([Tool(plan.search_name, SEARCH_DESCRIPTION, SEARCH_SCHEMA)]),
                                     rendering(plan.client), plan.client.model)
        base = search + (count(listing) if listing else 0)
        parts = [req.estimate(prompts, len(plan.jobs), round(base + j * plan.k * mean), method, system, price)
                 for j in range(plan.rounds)]
        said = (f"; assumed, the worst case: every query searches in each of its first {plan.rounds - 1} requests, "
                f"each search loading {plan.k} tools more of the registry's mean {mean:.0f} tokens")
    else:
        rules = search_rules(plan.mode)
        tokens = round(fixed + rules.search_tool_tokens + rules.results_per_search * mean)
        parts = [req.estimate(prompts, len(plan.jobs), tokens, method, system, price)]
        said = (f"; assumed: one server-side search per query loading {rules.results_per_search} tools of the "
                f"registry's mean {mean:.0f} tokens, the search tool ~{rules.search_tool_tokens:g} tokens "
                f"({rules.source.split(';')[0]}, checked {rules.as_of})")
    known = price is not None
    sent = sum(p.requests for p in parts)
    return req.Estimate(len(plan.jobs) * len(parts), sent, round(sum(p.tools_tokens for p in parts) / len(parts)),
                        sum(p.input_tokens for p in parts), sum(p.output_tokens for p in parts),
                        float(sum(p.cost for p in parts)) if known else None,
                        float(sum(p.cost_cached for p in parts)) if known else None, price, method + said)


def selection_defer(registry: Registry, queries, model: str, mode: str = CLIENT, *, max_cost: float | None = 1.0,
                    yes: bool = False, concurrency: int = 1, progress=None, **options) -> SelectionEval:
    """`selection_eval` with the tools deferred behind a search (module docstring): `mode` "client"
    (rounds, k, list_names), "anthropic-bm25" or "anthropic-regex". Options as plan_defer's. Nothing
    is sent when the estimate is over `max_cost` dollars, unless `yes`."""
    from .run import check_cost

    plan = plan_defer(registry, queries, model, mode, **options)
    check_cost(plan.estimate, max_cost, yes, plan.client.custom_url, model)
    return plan.run(concurrency, progress)
