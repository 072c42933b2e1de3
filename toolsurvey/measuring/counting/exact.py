"""The exact footprint table (`exact_footprint`) and what it would send (`dry_run`)."""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from ...core.registry import Registry, Tool
from ...errors import InputError
from ...providers.catalog import rendering
from ...providers.endpoints import Provider
from ..footprint import footprint
from ..parts import PARTS
from .attribution import Attribution, attribute, largest_remainder
from .cache import Cache
from .client import Client, Progress, TooLarge
from .requests import Plan, chunk_requests, plan, server_instructions


def _count_with_splits(client: Client, p: Plan) -> tuple[list[int], list[int], list[int], int]:
    """Count the plan; a part refused for its size is split in halves and counted again."""
    values = client.count(p.requests)
    k, n = len(p.chunks), len(p.singles)
    baseline, chunk_vals = values[0], values[1:1 + k]
    singles, instr = values[1 + k:1 + k + n], values[1 + k + n:]
    for i, v in enumerate(singles):
        if isinstance(v, TooLarge):
            raise InputError(f"{client.name} refused the {p.singles[i].label} request "
                             f"for its size ({v}); it cannot be counted")
    for v in [baseline, *instr]:
        if isinstance(v, TooLarge):
            raise InputError(f"{client.name} refused a request without tools for its size ({v})")
    groups, counts = list(p.chunk_tools), list(chunk_vals)
    while any(isinstance(v, TooLarge) for v in counts):
        new_groups: list[list[Tool]] = []
        for g, v in zip(groups, counts, strict=True):
            if not isinstance(v, TooLarge):
                new_groups.append(g)
            elif len(g) < 2:
                raise InputError(f"{client.name} refused the request with tool {g[0].key!r} for its size ({v})")
            else:
                new_groups += [g[: len(g) // 2], g[len(g) // 2:]]
        client.stats.splits.append(f"the endpoint refused a request for its size; split into {len(new_groups)} parts")
        groups = new_groups
        counts = client.count(chunk_requests(p.provider, p.model, groups, p.system))
    p.chunk_tools = groups
    return [baseline, *counts], singles, instr, len(groups)  # type: ignore[list-item]


def exact_footprint(reg: Registry, target: str, *, base: str | None = None, cache_dir: str | None = None,
                    use_cache: bool = True, concurrency: int | None = None, timeout: float = 30.0,
                    retries: int = 5, max_body_bytes: int | None = None, progress: Progress | None = None,
                    environ: dict[str, str] | None = None, **client_kwargs: Any) -> pd.DataFrame:
    """A footprint table (as `toolsurvey.footprint`) whose tokens are the provider's exact counts.

    Each tool's parts are its exact count split in proportion to its offline parts. `attrs["exact"]`
    says how many requests it took and how the overhead was found. Raises InputError for a bad
    target, a missing key, or an endpoint that fails.
    """
    p = plan(reg, target, max_body_bytes=max_body_bytes)
    client = Client(target, base=base, cache=Cache(cache_dir, use_cache), concurrency=concurrency,
                    timeout=timeout, retries=retries, progress=progress, environ=environ, **client_kwargs)
    first_split = len(p.chunks) > 1
    values, singles, instr, k = _count_with_splits(client, p)
    offline, render_note = _offline(reg, p.provider, p.model)
    documented = _documented_overhead(p.provider, p.model)
    att = attribute(values[0], values[1:], singles, instr, documented)
    table = _table(reg, offline, att)
    splits = list(client.stats.splits)
    if first_split:
        splits.insert(0, f"the registry is too large for one request; counted in {len(p.chunks)} parts")
    name = p.provider.counting.name
    method = (f"exact counts from {name}'s token-counting endpoint for {p.model} "
              f"({client.stats.sent + client.stats.cached} requests: {client.stats.sent} sent, "
              f"{client.stats.cached} from the cache, {client.stats.retries} retried); overhead {att.overhead_method}; residual of "
              f"{att.residual:+d} spread over the items in proportion to their own counts (largest remainder); "
              f"parts split in proportion to the offline {render_note} parts")
    if splits:
        method += "; " + "; ".join(splits)
    table.attrs.update(
        encoding=f"{name}'s own tokenizer (exact)", render=offline.attrs["render"], model=p.model,
        tool_choice=offline.attrs.get("tool_choice"), method=method,
        warnings=list(reg.warnings) + splits, sources=list(reg.sources),
        exact={"provider": name, "model": p.model, "url": client.url,
               "requests": client.stats.sent + client.stats.cached, "sent": client.stats.sent,
               "cached": client.stats.cached, "retries": client.stats.retries, "parts": k,
               "baseline": values[0], "whole": att.whole, "overhead": att.overhead,
               "overhead_method": att.overhead_method, "documented_overhead": documented,
               "residual": att.residual, "splits": splits})
    return table


def _offline(reg: Registry, provider: Provider, model: str) -> tuple[pd.DataFrame, str]:
    render = provider.counting.render
    try:
        return footprint(reg, render=render, model=model), f"{render} rendering"
    except InputError:  # a model the provider constants file does not list: the plain JSON parts
        return footprint(reg, render="json"), f"json rendering ({model!r} is not in providers.toml)"


def _documented_overhead(provider: Provider, model: str) -> int | None:
    """The overhead the provider publishes for `model` (tool_choice auto, as the endpoints count),
    where it publishes one; None elsewhere, or for a model its table does not list."""
    r = rendering(provider.counting.render)
    if not r.documents_overhead:
        return None
    try:
        return r.overhead(model).tokens
    except InputError:
        return None


def _table(reg: Registry, offline: pd.DataFrame, att: Attribution) -> pd.DataFrame:
    rows = []
    tool_rows = offline[offline["kind"] == "tool"]
    for (_, off), tokens in zip(tool_rows.iterrows(), att.tools, strict=True):
        weights = [int(off[c]) for c in PARTS]
        parts = largest_remainder(tokens, weights) if sum(weights) else [0] * len(PARTS)
        if not sum(weights):  # nothing to go by: it is all structure
            parts[PARTS.index("structure")] = tokens
        rows.append({"server": off["server"], "tool": off["tool"], "kind": "tool", **dict(zip(PARTS, parts, strict=True))})
    for (name, _), tokens in zip(server_instructions(reg), att.instructions, strict=True):
        rows.append({"server": name, "tool": "(instructions)", "kind": "instructions", "instructions": tokens})
    if att.overhead or (reg.tools and att.whole):
        rows.append({"server": "(request)", "tool": "(provider overhead)", "kind": "overhead",
                     "overhead": att.overhead})
    table = pd.DataFrame(rows, columns=["server", "tool", "kind", *PARTS])
    table[list(PARTS)] = table[list(PARTS)].fillna(0).astype("int64")
    table["tokens"] = table[list(PARTS)].sum(axis=1)
    return table


def dry_run(reg: Registry, target: str, *, base: str | None = None, cache_dir: str | None = None,
            use_cache: bool = True, max_body_bytes: int | None = None,
            environ: dict[str, str] | None = None) -> dict:
    """What `exact_footprint` would send, without sending anything or needing a key."""
    p = plan(reg, target, max_body_bytes=max_body_bytes)
    cache = Cache(cache_dir, use_cache)
    reqs = p.requests
    cached = sum(cache.get(r.key) is not None for r in reqs)
    env = os.environ if environ is None else environ
    return {"provider": p.provider.counting.name, "model": p.model,
            "url": p.provider.base_url(base, environ) + p.provider.counting.path(p.model),
            "tools": len(reg), "requests": len(reqs), "cached": cached, "to_send": len(reqs) - cached,
            "parts": len(p.chunks), "key_set": any(env.get(v, "").strip() for v in p.provider.key_vars),
            "key_vars": list(p.provider.key_vars)}
