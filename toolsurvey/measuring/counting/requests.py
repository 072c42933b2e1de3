"""The requests that count a registry: the baseline, the all-tools request (in parts when too large),
each tool alone and each server's instructions alone, each with its cache key."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from ...core.jsontree import compact
from ...core.registry import Registry, Tool
from ...errors import InputError
from ...inputs.formats import dump
from ...providers.catalog import parse_target
from ...providers.endpoints import Provider


@dataclass(frozen=True)
class Request:
    """One body to count, with a label for messages and its cache key."""

    label: str
    body: dict
    key: str


def body_bytes(body: dict) -> bytes:
    """The exact bytes sent for `body`: compact JSON, UTF-8 kept."""
    return compact(body).encode("utf-8")


def _cache_key(provider: Provider, model: str, body: dict) -> str:
    # The exact bytes sent: key order matters to a tokenizer, so nothing is sorted.
    blob = provider.counting.name.encode() + b"\0" + model.encode() + b"\0" + body_bytes(body)
    return hashlib.sha256(blob).hexdigest()


def _request(provider: Provider, model: str, label: str, tools: Sequence[Tool], system: str | None) -> Request:
    value = dump(Registry.from_tools(tools), provider.counting.tools_format) if tools else None
    body = provider.counting.body(model, value, system)
    return Request(label, body, _cache_key(provider, model, body))


def server_instructions(reg: Registry) -> list[tuple[str, str]]:
    """(server, instructions) of each server that has instructions, in registry order."""
    return [(s.name, s.instructions) for s in reg.servers.values() if s.instructions]


def _chunks(sizes: list[int], first_extra: int, base: int, max_bytes: int) -> list[tuple[int, int]]:
    """Consecutive (start, end) ranges of tools whose requests fit in `max_bytes` (greedy, order kept).

    A request's size is taken as the tool-less body (`base`, plus `first_extra` for the
    instructions in the first part) plus each tool's own increase: an upper bound, since the
    wrapper bytes counted with every tool appear once per request.
    """
    ranges: list[tuple[int, int]] = []
    start, used = 0, base + first_extra
    for i, size in enumerate(sizes):
        if i > start and used + size > max_bytes:
            ranges.append((start, i))
            start, used = i, base
        used += size
    ranges.append((start, len(sizes)))
    return ranges


@dataclass
class Plan:
    """Every request needed to attribute a registry's tokens, in the order they are reported."""

    provider: Provider
    model: str
    baseline: Request
    chunks: list[Request]
    chunk_tools: list[list[Tool]]
    singles: list[Request]
    instructions: list[Request]
    system: str | None

    @property
    def requests(self) -> list[Request]:
        return [self.baseline, *self.chunks, *self.singles, *self.instructions]


def chunk_requests(provider: Provider, model: str, groups: list[list[Tool]], system: str | None) -> list[Request]:
    """One all-tools request per group of tools; the first also carries the instructions."""
    return [_request(provider, model, f"all tools (part {i + 1} of {len(groups)})" if len(groups) > 1
                     else "all tools", g, system if i == 0 else None) for i, g in enumerate(groups)]


def plan(reg: Registry, target: str, *, max_body_bytes: int | None = None) -> Plan:
    """The requests that count `reg` under `PROVIDER:MODEL`; raises InputError for a bad target."""
    provider, model = parse_target(target)
    tools = reg.tools
    instr = server_instructions(reg)
    system = "\n\n".join(text for _, text in instr) or None
    limit = max_body_bytes or provider.counting.max_body_bytes
    baseline = _request(provider, model, "baseline (no tools)", [], None)
    singles = [_request(provider, model, f"tool {t.key!r} alone", [t], None) for t in tools]
    base = len(body_bytes(baseline.body))
    sizes = []
    for t, r in zip(tools, singles, strict=True):
        size = len(body_bytes(r.body))
        if size > limit:
            raise InputError(f"tool {t.key!r} alone makes a {size:,}-byte request, over "
                             f"{provider.counting.name}'s limit of {limit:,} bytes: it cannot be counted")
        sizes.append(size - base)
    extra = len(body_bytes(provider.counting.body(model, None, system))) - base if system else 0
    groups = [tools[a:b] for a, b in _chunks(sizes, extra, base, limit)] if tools else [[]]
    chunks = chunk_requests(provider, model, groups, system)
    return Plan(provider, model, baseline, chunks, groups, singles,
                [_request(provider, model, f"instructions of {name!r}", [], text) for name, text in instr], system)
