"""Subagents: threads a session starts with a history, a prefix and often a model of their own
(Claude Code's Task tool)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from ..errors import InputError
from .dist import as_dist, nonneg

SHARES = ("cache_1h_share", "prefix_hit", "cache_miss")  # None on a subagent: the session's own value


@dataclass(frozen=True)
class Subagent:
    """`count` threads per session, each one task of `steps` requests with its own prefix and model."""

    name: str = "subagent"
    count: float = 1                   # threads per session (a fraction: the share of sessions that start one)
    model: str | None = None           # None: the session's model
    steps: Any = 1                     # requests per thread, its answer included (number or Dist)
    system_prompt_tokens: float = 0    # its fixed prefix: system prompt, tool definitions and task
    response_tokens: Any = 0           # what each call's result adds to its history
    calls_per_step: float = 1          # tool calls a request makes (parallel calls: more than 1)
    call_tokens: float = 0             # output of a request that calls a tool
    answer_tokens: float = 0           # output of its last request (the result its parent reads)
    cache_1h_share: float | None = None
    prefix_hit: float | None = None
    cache_miss: float | None = None
    growth_by_step: tuple = ()         # as the Scenario field, for its own thread

    def __post_init__(self):
        object.__setattr__(self, "steps", as_dist(self.steps, f"subagent {self.name!r}: steps"))
        object.__setattr__(self, "response_tokens", as_dist(self.response_tokens, f"subagent {self.name!r}: response_tokens"))
        object.__setattr__(self, "growth_by_step", multipliers(f"subagent {self.name!r}: growth_by_step",
                                                               self.growth_by_step))
        if self.steps.expected() < 1:
            raise InputError(f"subagent {self.name!r}: steps must be >= 1, found {self.steps.describe()!r}")
        if self.model is not None and (not isinstance(self.model, str) or not self.model):
            raise InputError(f"subagent {self.name!r}: model must be a model name, found {self.model!r}")
        for k in ("count", "system_prompt_tokens", "call_tokens", "answer_tokens"):
            nonneg(f"subagent {self.name!r}: {k}", getattr(self, k))
        nonneg(f"subagent {self.name!r}: calls_per_step", self.calls_per_step, positive=True)
        for k in SHARES:
            if getattr(self, k) is not None:
                share(f"subagent {self.name!r}: {k}", getattr(self, k))

    def describe(self) -> dict[str, Any]:
        """The subagent as plain values, for printing next to results."""
        return {f.name: getattr(self, f.name).describe() if f.name in ("steps", "response_tokens")
                else getattr(self, f.name) for f in fields(self)}


def share(name: str, v: Any) -> None:
    """Raise InputError unless `v` is a share from 0 to 1."""
    nonneg(name, v)
    if v > 1:
        raise InputError(f"{name} must be a share from 0 to 1, found {v!r}")


def multipliers(name: str, v: Any) -> tuple[float, ...]:
    """A tuple of multipliers >= 0, from a list or tuple of numbers; raises InputError otherwise."""
    if not isinstance(v, (list, tuple)):
        raise InputError(f"{name} must be a list of multipliers (numbers >= 0), found {v!r}")
    for x in v:
        nonneg(name, x)
    return tuple(float(x) for x in v)


def as_subagents(value: Any) -> tuple[Subagent, ...]:
    """Subagents from Subagent values or tables of their fields (a scenario file's [[subagents]])."""
    if isinstance(value, (Subagent, Mapping)):
        value = (value,)
    if not isinstance(value, (list, tuple)):
        raise InputError(f"subagents must be a list of subagent tables, found {value!r}")
    known = {f.name for f in fields(Subagent)}
    out = []
    for v in value:
        if isinstance(v, Subagent):
            out.append(v)
            continue
        if not isinstance(v, Mapping):
            raise InputError(f"each subagent must be a table of {', '.join(sorted(known))}, found {v!r}")
        bad = sorted(set(v) - known)
        if bad:
            raise InputError(f"subagent {v.get('name', '?')!r}: unknown key(s) {', '.join(bad)}; "
                             f"expected some of {', '.join(sorted(known))}")
        out.append(Subagent(**v))
    return tuple(out)

