"""The oracle: a plain per-request loop of the cost model, and checks that the vectorised engine
agrees with it on randomized scenarios. bench/simulate.py times the same oracle."""

from __future__ import annotations

import fnmatch
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolsurvey as ts
from toolsurvey.core.registry import Registry, Tool
from toolsurvey.model.strategies import SEARCH_TOOL
from toolsurvey.providers.prices import bundled_prices

WORDS = "alpha beta gamma delta service deploy metric incident owner window latency error".split()
PREFIXES = ["search", "query", "list", "describe", "create", "update", "restart", "rollback"]


def build_registry(n: int = 36) -> Registry:
    """A registry with tools of varied size, two servers with instructions, and phase tags."""
    tools = []
    for i in range(n):
        prefix = PREFIXES[i % len(PREFIXES)]
        words = " ".join(WORDS[(i * 7 + j) % len(WORDS)] for j in range(3 + (i * 5) % 40))
        props = {f"p{j}": {"type": "string", "description": f"{WORDS[j % len(WORDS)]} value"} for j in range(i % 4)}
        tools.append(Tool(name=f"{prefix}_thing_{i}", description=f"{prefix.title()} {words}.",
                          input_schema={"type": "object", "properties": props},
                          server="ops" if i % 3 else "admin",
                          tags={"phase": "investigate" if i % len(PREFIXES) < 4 else "act"}))
    reg = Registry.from_tools(tools)
    reg.servers["ops"] = type(reg.servers["ops"])("ops", reg.servers["ops"].tools, instructions="Use ops tools for ops.")
    return reg


# What docs/simulation.md says render="auto" and caching="auto" mean for each provider, restated here.
AUTO_RENDER = {"anthropic": "anthropic", "openai": "openai"}
AUTO_CACHING = {"anthropic": "none", "openai": "incremental", "google": "incremental"}
NO_WRITE_PREMIUM = {"openai", "google"}
HIT_STEP = {"openai": 128}  # OpenAI counts cache hits in 128-token increments


class Oracle:
    """The cost model written out request by request, from the footprint table and the scenario."""

    def __init__(self, reg: Registry | None):
        self.reg = reg
        self.prices = {}
        self.measured = {}

    def measure(self, sc):
        """Load the footprint of the scenario's rendering (auto: the model's provider's) into self."""
        price = self.price(sc)
        render = AUTO_RENDER.get(price.provider, "json") if sc.render == "auto" else sc.render
        model = sc.model if AUTO_RENDER.get(price.provider) == render else None
        key = (render, model)
        if key not in self.measured:
            reg = self.reg if self.reg is not None else Registry.from_tools([Tool("x", "x")])
            fp = ts.footprint(reg, render=render, model=model)
            tools = fp[fp["kind"] == "tool"]
            search = ts.footprint(Registry.from_tools([SEARCH_TOOL]), render=render, model=model)
            self.measured[key] = dict(
                names=list(tools["tool"]), servers=list(tools["server"]), tokens=[float(x) for x in tools["tokens"]],
                tags=[dict(t.tags) for t in reg],
                instructions={r.server: float(r.tokens) for r in fp[fp["kind"] == "instructions"].itertuples()},
                overhead=float(fp[fp["kind"] == "overhead"]["tokens"].sum()),
                search_tool=float(search[search["kind"] == "tool"]["tokens"].sum()))
        self.__dict__.update(self.measured[key])

    # --- which tools request k carries
    def _set(self, idx):
        servers = {self.servers[i] for i in idx}
        return sum(self.tokens[i] for i in idx) + sum(v for s, v in self.instructions.items() if s in servers)

    def _matches(self, i, globs, tags=None):
        name_hit = any(fnmatch.fnmatchcase(self.names[i], g) or fnmatch.fnmatchcase(f"{self.servers[i]}/{self.names[i]}", g)
                       for g in globs)
        tag_hit = bool(tags) and all(fnmatch.fnmatchcase(str(self.tags[i].get(k, "\0")), v) for k, v in tags.items())
        return name_hit or tag_hit

    def request_tools(self, sc, k):
        """(stable tool tokens, loaded tool tokens, visible count, block) on request k (1-based)."""
        if self.reg is None:  # average-size mode
            n = sc.registry_size if sc.visible is None else min(sc.visible, sc.registry_size)
            if sc.strategy == "phases":
                sched = [p for p in sc.phase_list() for _ in range(p.steps)]
                p = sched[min(k, len(sched)) - 1] if sc.overflow == "last" else sched[(k - 1) % len(sched)]
                n = p.count if sc.visible is None else min(p.count, sc.visible)
                return n * sc.tool_tokens, 0.0, n, p.name
            return n * sc.tool_tokens, 0.0, n, 0
        everything = list(range(len(self.names)))
        cap = (lambda xs: xs if sc.visible is None else xs[:sc.visible])
        if sc.strategy == "all":
            idx = cap(everything)
            return self._set(idx), 0.0, len(idx), 0
        if sc.strategy == "fixed":
            idx = cap([i for i in everything if self._matches(i, sc.tools)] if sc.tools else everything)
            return self._set(idx), 0.0, len(idx), 0
        if sc.strategy == "phases":
            sched = [p for p in sc.phase_list() for _ in range(p.steps)]
            p = sched[min(k, len(sched)) - 1] if sc.overflow == "last" else sched[(k - 1) % len(sched)]
            idx = cap([i for i in everything if self._matches(i, p.tools, p.tags)])
            return self._set(idx), 0.0, len(idx), tuple(idx)
        core = [i for i in everything if self._matches(i, sc.core)]
        pool = [i for i in everything if i not in core]
        mean = sum(self.tokens[i] for i in pool) / len(pool)
        inst = sum(self.instructions.values())
        if sc.strategy == "retrieval":
            kk = sc.retrieval_k if sc.visible is None else max(0, sc.visible - len(core))
            kk = min(kk, len(pool))
            return sum(self.tokens[i] for i in core) + kk * mean + inst, 0.0, len(core) + kk, 0
        kk = sc.search_k if sc.visible is None else min(sc.search_k, max(0, sc.visible - 1 - len(core)) // max(sc.searches, 1))
        if kk * sc.searches > len(pool):
            kk = len(pool) // max(sc.searches, 1)
        search = self.search_tool if sc.search_tool_tokens is None else sc.search_tool_tokens
        done = min(k - 1, sc.searches)  # searches finished before request k
        return (search + sum(self.tokens[i] for i in core) + inst, done * kk * mean,
                1 + len(core) + done * kk, 0)

    # --- one task with a whole number of calls
    def price(self, sc):
        key = (sc.price_file, repr(sc.prices))
        if key not in self.prices:  # read each price file once, as the engine does
            self.prices[key] = ts.load_prices(sc.price_file, overrides=sc.prices)
        return self.prices[key][sc.model]

    def caching(self, sc):
        return AUTO_CACHING.get(self.price(sc).provider, "none") if sc.caching == "auto" else sc.caching

    def task(self, sc, calls: int, results=None):
        price = self.price(sc)
        self.measure(sc)
        overhead = self.overhead if sc.overhead_tokens is None else sc.overhead_tokens
        caching = self.caching(sc)
        p_write = price.input if price.provider in NO_WRITE_PREMIUM else price.cache_write
        if sc.cache_ttl == "1h" and price.provider == "anthropic":  # 1-hour cache: 2x input
            p_write = price.cache_write_1h if price.cache_write_1h is not None else 2 * price.input
        tot = dict(cost=0.0, input=0.0, tools=0.0, write=0.0, read=0.0, output=0.0, fits=True, max_input=0.0,
                   stored={})
        history, prev = 0.0, None
        searches = sc.searches if sc.strategy == "tool_search" else 0
        for k in range(1, calls + 2):
            stable, loaded, visible, block = self.request_tools(sc, k)
            o = overhead if visible > 0 else 0.0
            inp = o + stable + loaded + sc.system_prompt_tokens + sc.user_message_tokens + history
            if caching in ("prefix", "explicit"):
                cacheable = o + stable + sc.system_prompt_tokens
            elif caching == "incremental":
                cacheable = inp
            else:
                cacheable = 0.0
            read = 0.0
            if prev is not None and prev[0] == block and prev[1] >= price.min_cache_tokens and prev[1] > 0:
                read = prev[1]
            step = HIT_STEP.get(price.provider, 1)
            read = (read // step) * step
            write = cacheable - read if cacheable >= price.min_cache_tokens and cacheable > 0 else 0.0
            if caching == "explicit":  # held across tasks: read on every request, never written
                read, write = (cacheable if cacheable >= price.min_cache_tokens and cacheable > 0 else 0.0), 0.0
                if read:
                    tot["stored"][block] = cacheable
            out = sc.answer_tokens if k == calls + 1 else sc.call_tokens
            tot["cost"] += ((inp - read - write) * price.input + write * p_write
                            + read * price.cache_read + out * price.output) / 1e6
            tot["input"] += inp
            tot["tools"] += stable + loaded
            tot["write"] += write
            tot["read"] += read
            tot["output"] += out
            tot["max_input"] = max(tot["max_input"], inp)
            tot["fits"] = tot["fits"] and inp <= price.context_window
            if k <= calls:
                if results is not None:
                    r = results[k - 1]
                else:
                    r = sc.search_result_tokens if k <= searches else sc.response_tokens.expected()
                history += sc.call_tokens + r
            prev = (block, cacheable)
        return tot

    def expected(self, sc):
        """Expected task totals with the accuracy effect: calls may be fractional (linear between)."""
        steps = int(sc.steps.expected())
        searches = sc.searches if sc.strategy == "tool_search" else 0
        self.measure(sc)
        visible = [self.request_tools(sc, k)[2] for k in range(1, searches + steps + 1)]
        mean_visible = sum(visible) / len(visible)
        wrong, success = 0.0, 1.0
        if sc.accuracy:
            c = sc.curve()
            wrong, success = float(c.wrong_rate(mean_visible)), float(c.success_rate(mean_visible))
        # wrong = share of calls that are wrong: steps - 1 useful calls need (steps - 1) / (1 - wrong) calls
        useful = steps - 1
        calls = searches + useful + sc.wrong_call_steps * (useful / (1 - wrong) - useful)
        lo = math.floor(calls)
        a = self.task(sc, lo)
        if calls == lo:
            out = a
        else:
            b = self.task(sc, lo + 1)
            f = calls - lo
            out = {k: a[k] + f * (b[k] - a[k]) for k in ("cost", "input", "tools", "write", "read", "output")}
            out["fits"] = a["fits"] and b["fits"]
        out.update(wrong=wrong, success=success, mean_visible=mean_visible, requests=calls + 1)
        # Explicit caches: stored all day, the month's storage shared by the month's attempts.
        stored = self.task(sc, math.ceil(calls))["stored"]
        month = sum(stored.values()) * (self.price(sc).cache_storage or 0) / 1e6 * 24 * sc.days_per_month
        attempts = sc.tasks_per_day * sc.days_per_month / success
        out["cost"] += month / attempts if attempts else 0.0
        return out


REG = build_registry()
ORACLE = Oracle(REG)
MODELS = ["claude-sonnet-4-5", "claude-haiku-4-5", "gpt-5", "gemini-2.5-flash"]
PHASES = (ts.Phase("investigate", tools=("search_*", "query_*"), steps=2),
          ts.Phase("act", tags={"phase": "act"}, steps=3),
          ts.Phase("wrap", tools=("list_*", "admin/*"), steps=1))


@st.composite
def scenarios(draw):
    strategy = draw(st.sampled_from(["all", "fixed", "phases", "retrieval", "tool_search"]))
    kw = dict(
        model=draw(st.sampled_from(MODELS)), strategy=strategy, steps=draw(st.integers(1, 14)),
        visible=draw(st.one_of(st.none(), st.integers(1, 45))),
        caching=draw(st.sampled_from(["auto", "none", "prefix", "incremental"])),
        system_prompt_tokens=draw(st.integers(0, 3000)), user_message_tokens=draw(st.integers(0, 400)),
        call_tokens=draw(st.integers(0, 200)), answer_tokens=draw(st.integers(0, 800)),
        response_tokens=draw(st.integers(0, 3000)), accuracy=draw(st.booleans()),
        wrong_call_steps=draw(st.integers(0, 2)), overflow=draw(st.sampled_from(["last", "cycle"])))
    if strategy == "fixed":
        kw["tools"] = draw(st.sampled_from([("search_*",), ("*_thing_1*", "create_*"), ("admin/*",)]))
    if strategy == "phases":
        kw["phases"] = PHASES
    if strategy in ("retrieval", "tool_search"):
        kw["core"] = draw(st.sampled_from([(), ("rollback_*",), ("restart_thing_6",)]))
        kw["retrieval_k"] = draw(st.integers(0, 40))
        kw["search_k"] = draw(st.integers(0, 12))
        kw["searches"] = draw(st.integers(0, 3))
    if kw["model"].startswith("gemini") and draw(st.booleans()):
        kw["caching"] = "explicit"
    if kw["model"].startswith("claude") and draw(st.booleans()):
        kw["cache_ttl"] = "1h"
    if draw(st.booleans()):  # a small context window, so some tasks do not fit
        kw["prices"] = {kw["model"]: {"context_window": draw(st.integers(2000, 20000))}}
    return ts.Scenario(**kw)


def check(sc, reg=REG, oracle=ORACLE):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = ts.simulate(reg, sc).summary
    want = oracle.expected(sc)
    assert got["fits"] == want["fits"]
    for mine, theirs in (("tool_tokens_per_task", "tools"), ("input_tokens_per_task", "input"),
                         ("cache_write_tokens", "write"), ("cache_read_tokens", "read"),
                         ("output_tokens_per_task", "output"), ("expected_requests", "requests"),
                         ("wrong_rate", "wrong"), ("success", "success"), ("mean_visible", "mean_visible")):
        assert got[mine] == pytest.approx(want[theirs], rel=1e-12, abs=1e-9), mine
    if want["fits"]:
        assert got["cost_per_task"] == pytest.approx(want["cost"], rel=1e-12, abs=1e-15)
        assert got["cost_per_completed_task"] == pytest.approx(want["cost"] / want["success"], rel=1e-12)
    else:
        assert math.isnan(got["cost_per_task"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_engine_matches_oracle_on_random_scenarios(sc):
    check(sc)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 12), st.integers(1, 30), st.integers(50, 400),
       st.sampled_from(["auto", "none", "prefix", "incremental"]), st.booleans(), st.sampled_from(MODELS))
def test_engine_matches_oracle_in_average_mode(steps, size, per_tool, caching, accuracy, model):
    sc = ts.Scenario(steps=steps, tool_tokens=per_tool, registry_size=size, caching=caching, accuracy=accuracy,
                     system_prompt_tokens=900, model=model)
    check(sc, reg=None, oracle=Oracle(None))


def test_sweep_rows_match_the_oracle():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grid = ts.sweep(REG, ts.Scenario(phases=PHASES, core=("rollback_*",)), steps=[1, 4, 9],
                        visible=[3, 12, 50], strategy=["all", "phases", "retrieval", "tool_search"],
                        caching=["none", "incremental"], model=["claude-sonnet-4-5", "gpt-5"])
    assert len(grid) == 3 * 3 * 4 * 2 * 2
    for row in grid.itertuples():
        sc = ts.Scenario(phases=PHASES, core=("rollback_*",), steps=int(row.steps), visible=int(row.visible),
                         strategy=row.strategy, caching=row.caching, model=row.model)
        want = ORACLE.expected(sc)
        assert row.cost_per_task == pytest.approx(want["cost"], rel=1e-12)
        assert row.tool_tokens_per_task == pytest.approx(want["tools"], rel=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from(["none", "prefix", "incremental"]), st.sampled_from(["all", "phases"]))
def test_monte_carlo_draws_priced_like_the_oracle(seed, caching, strategy):
    sc = ts.Scenario(steps={"dist": "poisson", "mean": 6}, response_tokens=[120, 900, 4000, 40], samples=30,
                     seed=seed, caching=caching, strategy=strategy, phases=PHASES)
    run = ts.simulate(REG, sc)
    d = run.sampled
    for i in range(len(d["steps"])):
        want = ORACLE.task(sc, int(d["calls"][i]), results=list(d["results"][i]))
        assert run.draws["cost"][i] == pytest.approx(want["cost"], rel=1e-12)
        assert run.draws["input_tokens"][i] == pytest.approx(want["input"], rel=1e-12)


def test_prices_used_by_oracle_are_the_bundled_ones():
    assert set(MODELS) <= set(bundled_prices())
