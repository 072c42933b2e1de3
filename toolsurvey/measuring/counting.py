"""Exact token counts from the providers' counting endpoints, attributed to each tool.

The endpoints only count whole requests, so a registry of n tools is counted as: the request
with no tools (the baseline), the request with all tools (split in parts when too large), each
tool alone, and each server's instructions alone. `attribute` turns those counts into per-tool
figures that add up exactly to the whole request, with the fixed tool-use overhead as its own line.
Network I/O lives in `Client`; everything else here is pure.
"""

from __future__ import annotations

import email.utils
import hashlib
import json
import os
import random
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from ..core.registry import Registry, Tool
from ..core.writing import atomic_write
from ..errors import InputError
from ..providers.endpoints import Provider, api_key, base_url, error_message, parse_target

RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
MAX_RETRY_AFTER = 300.0  # seconds; a provider asking for a longer pause is reported, not waited for
Progress = Callable[[int, int, int, int], None]  # (done, total, sent, cached)


# --- requests ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    """One body to count, with a label for messages and its cache key."""

    label: str
    body: dict
    key: str


def _body_bytes(body: dict) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _cache_key(provider: Provider, model: str, body: dict) -> str:
    # The exact bytes sent: key order matters to a tokenizer, so nothing is sorted.
    blob = provider.name.encode() + b"\0" + model.encode() + b"\0" + _body_bytes(body)
    return hashlib.sha256(blob).hexdigest()


def _request(provider: Provider, model: str, label: str, tools: Sequence[Tool], system: str | None) -> Request:
    from ..inputs.formats import dump

    value = dump(Registry.from_tools(tools), provider.tools_format) if tools else None
    body = provider.body(model, value, system)
    return Request(label, body, _cache_key(provider, model, body))


def _instructions(reg: Registry) -> list[tuple[str, str]]:
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


def _chunk_requests(provider: Provider, model: str, groups: list[list[Tool]], system: str | None) -> list[Request]:
    """One all-tools request per group of tools; the first also carries the instructions."""
    return [_request(provider, model, f"all tools (part {i + 1} of {len(groups)})" if len(groups) > 1
                     else "all tools", g, system if i == 0 else None) for i, g in enumerate(groups)]


def plan(reg: Registry, target: str, *, max_body_bytes: int | None = None) -> Plan:
    """The requests that count `reg` under `PROVIDER:MODEL`; raises InputError for a bad target."""
    provider, model = parse_target(target)
    tools = reg.tools
    instr = _instructions(reg)
    system = "\n\n".join(text for _, text in instr) or None
    limit = max_body_bytes or provider.max_body_bytes
    baseline = _request(provider, model, "baseline (no tools)", [], None)
    singles = [_request(provider, model, f"tool {t.key!r} alone", [t], None) for t in tools]
    base = len(_body_bytes(baseline.body))
    sizes = []
    for t, r in zip(tools, singles, strict=True):
        size = len(_body_bytes(r.body))
        if size > limit:
            raise InputError(f"tool {t.key!r} alone makes a {size:,}-byte request, over "
                             f"{provider.name}'s limit of {limit:,} bytes: it cannot be counted")
        sizes.append(size - base)
    extra = len(_body_bytes(provider.body(model, None, system))) - base if system else 0
    groups = [tools[a:b] for a, b in _chunks(sizes, extra, base, limit)] if tools else [[]]
    chunks = _chunk_requests(provider, model, groups, system)
    return Plan(provider, model, baseline, chunks, groups, singles,
                [_request(provider, model, f"instructions of {name!r}", [], text) for name, text in instr], system)


# --- the cache ------------------------------------------------------------------------------------


def default_cache_dir() -> Path:
    """$TOOLSURVEY_CACHE_DIR, else the user cache folder (XDG_CACHE_HOME, LOCALAPPDATA or ~/.cache)."""
    if os.environ.get("TOOLSURVEY_CACHE_DIR"):
        return Path(os.environ["TOOLSURVEY_CACHE_DIR"])
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "toolsurvey" / "cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "toolsurvey"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "toolsurvey"


class Cache:
    """Counts already obtained, one small JSON file per (provider, model, exact body)."""

    def __init__(self, folder: str | os.PathLike | None = None, enabled: bool = True):
        self.folder = Path(folder) if folder else default_cache_dir()
        self.enabled = enabled

    def _path(self, key: str) -> Path:
        return self.folder / "counts" / key[:2] / f"{key}.json"

    def get(self, key: str) -> int | None:
        if not self.enabled:
            return None
        try:
            v = json.loads(self._path(key).read_text("utf-8")).get("tokens")
        except (OSError, ValueError, AttributeError):
            return None  # absent or damaged: count again
        return v if isinstance(v, int) and v >= 0 else None

    def put(self, key: str, provider: str, model: str, tokens: int) -> None:
        if not self.enabled:
            return
        p = self._path(key)
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(p, json.dumps({"provider": provider, "model": model, "tokens": tokens,
                                        "counted_at": datetime.now(UTC).isoformat(timespec="seconds")}))
        except OSError as e:
            raise InputError(f"cannot write the count cache in {self.folder} ({e.strerror}); "
                             "pass another --cache-dir or --no-cache") from None


# --- the client -----------------------------------------------------------------------------------


class _TooLarge(Exception):
    """The endpoint refused a request for its size (413, or 400 saying the prompt is too long)."""


def _retry_after(headers) -> float | None:
    """Seconds to wait from `retry-after-ms` or `retry-after` (seconds or an HTTP date)."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _too_long(status: int, message: str) -> bool:
    m = message.lower()
    return status == 413 or (status == 400 and any(w in m for w in ("too long", "too large", "exceeds the maximum",
                                                                     "context length", "context window")))


@dataclass
class Stats:
    """What a counting run did: requests sent, answered from the cache, retried (and the seconds
    waited for retries), and the splits of requests refused for their size."""

    sent: int = 0
    cached: int = 0
    retries: int = 0
    waited: float = 0.0
    splits: list[str] = field(default_factory=list)


class Client:
    """Counts request bodies at one provider's endpoint: concurrent, retrying, cached, key-safe."""

    def __init__(self, target: str, *, base: str | None = None, cache: Cache | None = None,
                 concurrency: int | None = None, timeout: float = 30.0, retries: int = 5,
                 backoff: float = 0.5, environ: dict[str, str] | None = None,
                 sleep: Callable[[float], None] | None = None, progress: Progress | None = None,
                 transport: Any = None):
        self.provider, self.model = parse_target(target)
        from ..core.http import check_url

        self.url = check_url(base_url(self.provider, base, environ) + self.provider.path(self.model), "the base URL")
        self.environ = environ
        self.cache = cache if cache is not None else Cache()
        self.concurrency = max(1, concurrency or self.provider.concurrency)
        self.timeout, self.retries, self.backoff = timeout, retries, backoff
        self.progress, self.transport = progress, transport
        self.stats = Stats()
        self._key: str | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()  # set when one request failed: the others stop retrying
        self.sleep = sleep or self._stop.wait  # a pause that ends early when the run stops

    def count(self, requests: Sequence[Request]) -> list[int | _TooLarge]:
        """The count of each request, or _TooLarge where the endpoint refused its size.

        Raises InputError (with the key removed from every message) for anything else that fails.
        """
        out: list[int | _TooLarge | None] = [self.cache.get(r.key) for r in requests]
        todo = [i for i, v in enumerate(out) if v is None]
        self.stats.cached += len(requests) - len(todo)
        done = len(requests) - len(todo)
        self._report(done, len(requests))
        if not todo:
            return out  # type: ignore[return-value]
        self._key = api_key(self.provider, self.environ)
        failure = None
        try:
            import httpx

            with httpx.Client(timeout=self.timeout, transport=self.transport, follow_redirects=False) as http, \
                    ThreadPoolExecutor(max_workers=self.concurrency) as pool:
                futures = {pool.submit(self._send, http, requests[i]): i for i in todo}
                try:
                    for fut in as_completed(futures):
                        i = futures[fut]
                        out[i] = fut.result()
                        done += 1
                        self._report(done, len(requests))
                except BaseException:
                    self._stop.set()
                    for f in futures:
                        f.cancel()
                    raise
        except InputError as e:
            failure = str(e)
        except Exception as e:  # httpx's own errors: reported in one line, like the rest
            failure = f"{self.provider.name} {self.url}: {type(e).__name__}: {e}"
        if failure is not None:  # raised here, outside the handler, so no exception chain keeps the key
            raise InputError(self.redact(failure))
        return out  # type: ignore[return-value]

    def redact(self, text: str) -> str:
        """`text` with the key replaced by '***' wherever it appears."""
        return text.replace(self._key, "***") if self._key else text

    def _report(self, done: int, total: int) -> None:
        if self.progress:
            self.progress(done, total, self.stats.sent, self.stats.cached)

    def _wait(self, seconds: float) -> None:
        with self._lock:
            self.stats.retries += 1
            self.stats.waited += seconds
        if not self._stop.is_set():
            self.sleep(seconds)

    def _send(self, http, req: Request) -> int | _TooLarge:
        import httpx

        headers = {"content-type": "application/json", "accept": "application/json",
                   **self.provider.headers(self._key or "")}
        content = _body_bytes(req.body)
        where = f"{self.provider.name} {self.url}"
        problem = ""
        for attempt in range(self.retries + 1):
            if self._stop.is_set():
                raise InputError("stopped: another request failed")  # never shown: the first failure is
            with self._lock:
                self.stats.sent += 1
            try:
                r = self._post(http, content, headers, where)
            except httpx.TimeoutException:
                problem = f"no answer within {self.timeout:g} s (the whole answer, not each read)"
                if attempt < self.retries:
                    self._wait(self._backoff(attempt))
                continue
            except httpx.TransportError as e:  # the message names the host, never the headers
                problem = f"cannot connect ({type(e).__name__}: {e})"
                if attempt < self.retries:
                    self._wait(self._backoff(attempt))
                continue
            if r.status_code in RETRY_STATUS:
                problem = f"HTTP {r.status_code} {_error_text(r)}".strip()
                after = _retry_after(r.headers)
                if after is not None and after > MAX_RETRY_AFTER:
                    raise InputError(f"{where} asks to wait {after:,.0f} s before retrying ({problem}); "
                                     "try again later")
                if attempt < self.retries:
                    self._wait(after if after is not None else self._backoff(attempt))
                continue
            if r.status_code >= 400:
                if "json" not in r.headers.get("content-type", ""):
                    return self._read(r, where, req)  # says what came instead of JSON
                text = _error_text(r)
                if _too_long(r.status_code, text):
                    return _TooLarge(text)
                raise InputError(_describe_error(self.provider, self.model, where, r.status_code, text))
            return self._read(r, where, req)
        raise InputError(f"{where}: gave up on the {req.label} request after {self.retries + 1} tries: {problem}")

    def _post(self, http, content: bytes, headers: dict, where: str):
        """POST and read the whole answer within `timeout` seconds and MAX_ANSWER_BYTES."""
        import httpx

        from ..core.http import MAX_ANSWER_BYTES, deadline_timeout, read_capped

        deadline = time.monotonic() + self.timeout
        with http.stream("POST", self.url, content=content, headers=headers,
                         timeout=deadline_timeout(self.timeout, deadline)) as r:
            body = read_capped(r, max_bytes=MAX_ANSWER_BYTES, deadline=deadline, where=where)
        return httpx.Response(r.status_code, headers=r.headers, content=body, request=r.request)

    def _backoff(self, attempt: int) -> float:
        # Exponential with jitter, so concurrent workers do not retry in step.
        return min(60.0, self.backoff * 2 ** attempt) * (0.5 + random.random() / 2)

    def _read(self, r, where: str, req: Request) -> int:
        ctype = r.headers.get("content-type", "")
        head = r.text[:60].strip().replace("\n", " ")
        hint = f"is the base URL right (--base-url or {self.provider.base_url_var})?"
        if "json" not in ctype:
            raise InputError(f"{where} answered {r.status_code} with {ctype or 'no content type'} "
                             f"({head!r}), expected JSON; {hint}")
        try:
            answer = r.json()
        except ValueError:
            raise InputError(f"{where} answered {r.status_code} with malformed JSON ({head!r}); {hint}") from None
        tokens = self.provider.read(answer)
        if tokens is None:
            field_name = "totalTokens" if self.provider.name == "gemini" else "input_tokens"
            raise InputError(f"{where} answered without a non-negative integer {field_name!r} "
                             f"(found {head!r}); {hint}")
        self.cache.put(req.key, self.provider.name, self.model, tokens)
        return tokens


def _error_text(r) -> str:
    try:
        return error_message(r.json())
    except ValueError:
        return r.text[:120].strip().replace("\n", " ")


def _describe_error(provider: Provider, model: str, where: str, status: int, text: str) -> str:
    if status in (401, 403) or "api key" in text.lower():
        return (f"{where} refused the key in {' or '.join(provider.key_vars)} (HTTP {status} {text}); "
                "check that it is a valid key for this provider")
    if status == 404 or "model" in text.lower() and status == 400:
        return (f"{where} does not know model {model!r} (HTTP {status} {text}); "
                f"check the model id in {provider.name}:MODEL")
    return f"{where} answered HTTP {status} {text}"


# --- attribution (pure) --------------------------------------------------------------------------


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


# --- the whole run ---------------------------------------------------------------------------------


def _count_with_splits(client: Client, p: Plan) -> tuple[list[int], list[int], list[int], int]:
    """Count the plan; a part refused for its size is split in halves and counted again."""
    values = client.count(p.requests)
    k, n = len(p.chunks), len(p.singles)
    baseline, chunk_vals = values[0], values[1:1 + k]
    singles, instr = values[1 + k:1 + k + n], values[1 + k + n:]
    for i, v in enumerate(singles):
        if isinstance(v, _TooLarge):
            raise InputError(f"{client.provider.name} refused the {p.singles[i].label} request "
                             f"for its size ({v}); it cannot be counted")
    for v in [baseline, *instr]:
        if isinstance(v, _TooLarge):
            raise InputError(f"{client.provider.name} refused a request without tools for its size ({v})")
    groups, counts = list(p.chunk_tools), list(chunk_vals)
    while any(isinstance(v, _TooLarge) for v in counts):
        new_groups: list[list[Tool]] = []
        for g, v in zip(groups, counts, strict=True):
            if not isinstance(v, _TooLarge):
                new_groups.append(g)
            elif len(g) < 2:
                raise InputError(f"{client.provider.name} refused the request with tool {g[0].key!r} for its size ({v})")
            else:
                new_groups += [g[: len(g) // 2], g[len(g) // 2:]]
        client.stats.splits.append(f"the endpoint refused a request for its size; split into {len(new_groups)} parts")
        groups = new_groups
        counts = client.count(_chunk_requests(p.provider, p.model, groups, p.system))
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
    method = (f"exact counts from {p.provider.name}'s token-counting endpoint for {p.model} "
              f"({client.stats.sent + client.stats.cached} requests: {client.stats.sent} sent, "
              f"{client.stats.cached} from the cache, {client.stats.retries} retried); overhead {att.overhead_method}; residual of "
              f"{att.residual:+d} spread over the items in proportion to their own counts (largest remainder); "
              f"parts split in proportion to the offline {render_note} parts")
    if splits:
        method += "; " + "; ".join(splits)
    table.attrs.update(
        encoding=f"{p.provider.name}'s own tokenizer (exact)", render=offline.attrs["render"], model=p.model,
        tool_choice=offline.attrs.get("tool_choice"), method=method,
        warnings=list(reg.warnings) + splits, sources=list(reg.sources),
        exact={"provider": p.provider.name, "model": p.model, "url": client.url,
               "requests": client.stats.sent + client.stats.cached, "sent": client.stats.sent,
               "cached": client.stats.cached, "retries": client.stats.retries, "parts": k,
               "baseline": values[0], "whole": att.whole, "overhead": att.overhead,
               "overhead_method": att.overhead_method, "documented_overhead": documented,
               "residual": att.residual, "splits": splits})
    return table


def _offline(reg: Registry, provider: Provider, model: str) -> tuple[pd.DataFrame, str]:
    from .footprint import footprint

    try:
        return footprint(reg, render=provider.render, model=model), f"{provider.render} rendering"
    except InputError:  # a model the provider constants file does not list: the plain JSON parts
        return footprint(reg, render="json"), f"json rendering ({model!r} is not in providers.toml)"


def _documented_overhead(provider: Provider, model: str) -> int | None:
    if provider.name != "anthropic":
        return None
    from ..providers.constants import anthropic_family

    try:
        return int(anthropic_family(model)[1]["auto"])
    except InputError:
        return None


def _table(reg: Registry, offline: pd.DataFrame, att: Attribution) -> pd.DataFrame:
    from .footprint import PARTS

    rows = []
    tool_rows = offline[offline["kind"] == "tool"]
    for (_, off), tokens in zip(tool_rows.iterrows(), att.tools, strict=True):
        weights = [int(off[c]) for c in PARTS]
        parts = largest_remainder(tokens, weights) if sum(weights) else [0] * len(PARTS)
        if not sum(weights):  # nothing to go by: it is all structure
            parts[PARTS.index("structure")] = tokens
        rows.append({"server": off["server"], "tool": off["tool"], "kind": "tool", **dict(zip(PARTS, parts, strict=True))})
    for (name, _), tokens in zip(_instructions(reg), att.instructions, strict=True):
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
    return {"provider": p.provider.name, "model": p.model,
            "url": base_url(p.provider, base, environ) + p.provider.path(p.model),
            "tools": len(reg), "requests": len(reqs), "cached": cached, "to_send": len(reqs) - cached,
            "parts": len(p.chunks), "key_set": any(env.get(v, "").strip() for v in p.provider.key_vars),
            "key_vars": list(p.provider.key_vars)}
