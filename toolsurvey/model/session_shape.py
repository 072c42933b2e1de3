"""The shape of a session's threads: per request, its turn, its place in the turn, how likely it is to
be made and how likely the thread's cache is to have expired before it. A shape comes from a
scenario (expected turns, steps and think time) or from a trace (what a session did)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from ..errors import InputError
from ..inputs.traces.billing import price_of
from ..providers.caching import cache_lifetimes, caching_rules, drops_earlier_reasoning
from ..providers.prices import bundled_prices
from .dist import Dist

TTLS = ("5m", "1h")  # a thread's cache lifetime: the provider's default retention, or its longer one


@cache
def _provider(model: str) -> tuple[str, str]:
    """(provider, model as the price table names it); ("", model) for a model with no price."""
    try:
        price = price_of(model, bundled_prices())
    except InputError:
        return "", model
    return price.provider, price.model


def lifetimes_of(model: str) -> dict[str, float]:
    """Seconds a cache entry of `model` lives unused, per TTLS, as its provider documents them
    (`providers.caching.cache_lifetimes`; a model with no price: a provider without rules)."""
    return cache_lifetimes(*_provider(model))


@cache
def caching_rule_of(model: str) -> dict:
    """The caching rules of `model`'s provider for it (`providers.caching.caching_rules`)."""
    return caching_rules(*_provider(model))


def drops_reasoning_of(model: str) -> bool:
    """Whether `model` strips earlier turns' reasoning at a new prompt (`providers.caching.drops_earlier_reasoning`)."""
    provider, named = _provider(model)
    return drops_earlier_reasoning(provider, named)


def increment_of(model: str) -> float:
    """The step a cache hit of `model` reads in, as its provider documents it (1 where none is)."""
    return float(caching_rule_of(model).get("cache_increment") or 1)


@dataclass
class Thread:
    """One thread of a session (the main agent, or one subagent): its requests in order."""

    name: str                  # "main", or the subagent's name
    turn: np.ndarray           # each request's turn, from 1 (a turn starts at a user prompt)
    step: np.ndarray           # its position in the turn, from 1
    answer: np.ndarray         # the share of its output that is the turn's answer (1 for the last, 0 for a call)
    weight: np.ndarray         # the probability the request is made (1, or less for a fractional count)
    expired: dict              # cache lifetime ("5m", "1h") -> the probability the cache expired before each request
    models: tuple | None = None  # each request's model when known (a trace); None: the scenario's
    count: float = 1.0         # threads of this shape per session
    calls: np.ndarray | None = None  # the tool calls each request made (a trace); None: the scenario's calls_per_step

    def __len__(self) -> int:
        return len(self.turn)


def _turn(requests: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(step, answer share, weight) of one turn of `requests` (fractional: linear between whole counts,
    as a single task: the last whole request answers for 1 - f of turns, a further one for f)."""
    whole = int(math.floor(requests))
    frac = requests - whole
    k = whole + (1 if frac > 1e-12 else 0)
    weight = np.ones(k)
    answer = np.zeros(k)
    answer[whole - 1] = 1.0
    if k > whole:
        weight[-1] = frac
        answer[whole - 1] = 1.0 - frac
        answer[-1] = 1.0
    return np.arange(1, k + 1), answer, weight


def expected_thread(name: str, requests: float, turns: Dist, think_time: Dist, lifetimes: dict[str, float],
                    count: float = 1.0) -> Thread:
    """The expected shape: E[turns] turns (the last weighted by its fraction) of `requests` requests
    each; a turn's first request finds the cache expired with probability P(think_time > lifetime)
    (`lifetimes`: seconds per TTLS, e.g. `lifetimes_of(model)`)."""
    n_turns = turns.expected()
    whole = int(math.ceil(n_turns - 1e-12))
    step, answer, weight = _turn(requests)
    k = len(step)
    turn_weight = np.ones(whole)
    if whole > n_turns:
        turn_weight[-1] = n_turns - (whole - 1)
    expired = {}
    for ttl, seconds in lifetimes.items():
        first = np.zeros(k)
        first[0] = think_time.above(seconds)
        e = np.tile(first, whole)
        e[0] = 1.0  # a thread's first request finds no cache of its own
        expired[ttl] = e
    return Thread(name, np.repeat(np.arange(1, whole + 1), k), np.tile(step, whole), np.tile(answer, whole),
                  np.tile(weight, whole) * np.repeat(turn_weight, k), expired, None, count)
