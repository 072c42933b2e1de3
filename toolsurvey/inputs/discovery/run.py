"""A discovery run: the servers to ask, asked concurrently, each failure recorded, never raised."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ...core.extras import require
from ...core.registry import Registry, Server
from ...errors import InputError, ToolsurveyError
from ..clients.config import ClientConfig
from ..clients.read import read_client
from ..configs import ServerSpec, read_config, scrub, spec_for
from .names import apply_prefix, name_template
from .procs import Reaper
from .session import discover_one
from .snapshots import utc_now

DEFAULT_CONNECT_TIMEOUT = 30.0  # start + initialize; `npx -y` may first download the package
DEFAULT_LIST_TIMEOUT = 30.0  # every tools/list page together
DEFAULT_MAX_PAGES = 1000  # a paginator that never ends must not loop forever
DEFAULT_CONCURRENCY = 16  # servers started at once; a 40-server config should not fork-bomb a laptop
_QUIET = ("mcp.client.stdio", "mcp.client.streamable_http")  # loggers that print tracebacks for bad lines

Progress = Callable[[str, str, str], None]  # (event: start|done|failed, server name, detail)


def discover(target: str | list[str] | None = None, *, config: str | os.PathLike | None = None,
             client: str | ClientConfig | None = None, servers: Iterable[str] | None = None, name: str | None = None,
             headers: Mapping[str, str] | None = None, env: Mapping[str, str] | None = None,
             cwd: str | None = None, prefix: str | None = None,
             connect_timeout: float = DEFAULT_CONNECT_TIMEOUT, list_timeout: float = DEFAULT_LIST_TIMEOUT,
             max_pages: int = DEFAULT_MAX_PAGES, concurrency: int = DEFAULT_CONCURRENCY,
             on_progress: Progress | None = None) -> Registry:
    """Start or connect to MCP servers and return their tools as a Registry (a live snapshot).

    `target` is a URL (Streamable HTTP) or a command line (stdio); `config` an `mcpServers` JSON
    file, or `client` a client whose config is found where it looks (a name such as "claude-code",
    for the current folder, or a ClientConfig from `inputs.clients.read.read_client`), of which
    `servers` picks some; `prefix` a name template such as 'mcp__{server}__{tool}' or a client
    name (providers.toml [clients.*] name_template). A server that fails is kept with no tools and an `error` in
    its info, and named in `warnings`. Raises InputError for bad arguments or config.
    """
    template = name_template(prefix) if prefix else None
    if min(connect_timeout, list_timeout) <= 0 or max_pages < 1 or concurrency < 1:
        raise InputError("expected positive timeouts, and max_pages and concurrency of at least 1; found "
                         f"connect_timeout={connect_timeout:g}, list_timeout={list_timeout:g}, "
                         f"max_pages={max_pages}, concurrency={concurrency}")
    if client is not None:
        if target is not None or config is not None:
            raise InputError("give one of a target (URL or command), --config or --client")
        if headers or env or name or cwd:
            raise InputError("name, headers, env and cwd apply to a single URL or command; "
                             "with a client, set them in its config")
        cfg = read_client(client, servers=list(servers or [])) if isinstance(client, str) else client.pick(list(servers or []))
        specs = cfg.specs()
    else:
        specs = _specs(target, config, servers, name, headers, env, cwd)
    opts = dict(connect_timeout=connect_timeout, list_timeout=list_timeout, max_pages=max_pages,
                concurrency=concurrency, on_progress=on_progress)
    with _quiet_sdk_logs():
        reg = _run_sync(lambda: discover_specs(specs, **opts))
    return apply_prefix(reg, template) if template else reg


async def discover_specs(specs: list[ServerSpec], *, connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
                         list_timeout: float = DEFAULT_LIST_TIMEOUT, max_pages: int = DEFAULT_MAX_PAGES,
                         concurrency: int = DEFAULT_CONCURRENCY, on_progress: Progress | None = None) -> Registry:
    """Discover every spec at once (up to `concurrency` at a time); each failure is recorded, never raised.

    Raises MissingExtra when the MCP SDK is not installed (`pip install 'toolsurvey[discover]'`).
    """
    import anyio

    require("mcp", "psutil", purpose="discovering MCP servers")

    names = [s.name for s in specs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise InputError(f"two servers share the name {', '.join(map(repr, dupes))}; give each a distinct name")
    results: dict[str, tuple[Server, list[str]]] = {}
    notify = on_progress or (lambda *_: None)

    limiter = anyio.CapacityLimiter(concurrency)

    async def one(spec: ServerSpec) -> None:
        async with limiter:
            await run(spec)

    async def run(spec: ServerSpec) -> None:
        notify("start", spec.name, spec.transport)
        started = time.monotonic()
        try:
            server, warnings = await discover_one(spec, connect_timeout, list_timeout, max_pages)
        except Exception as e:  # noqa: BLE001 - one server's failure must not lose the others
            text = str(e) if isinstance(e, ToolsurveyError) else f"internal error: {type(e).__name__}: {e}"
            message = scrub(text, spec.secrets)
            info = {"error": message, "captured_at": utc_now(), "launch": spec.launch()}
            results[spec.name] = (Server(spec.name, (), None, info), [f"server {spec.name!r}: {message}"])
            notify("failed", spec.name, message)
            return
        seconds = round(time.monotonic() - started, 2)
        server.info["seconds"] = seconds
        results[spec.name] = (server, warnings)
        notify("done", spec.name, f"{len(server.tools)} tools in {seconds:.1f} s")

    with Reaper() as reaper:  # on exit, kills what escaped every server's session (setsid, new env)
        async with anyio.create_task_group() as tg:
            for spec in specs:
                tg.start_soon(one, spec)
    reg = Registry(sources=[f"mcp:{s.name}" for s in specs])
    if reaper.killed:
        reg.warnings.append(f"killed {len(reaper.killed)} process(es) the servers left running outside their "
                            f"process group: {', '.join(reaper.killed[:10])}")
    for spec in specs:  # keep the order the user gave, not the order servers answered
        server, warnings = results[spec.name]
        reg.servers[spec.name] = server
        reg.warnings.extend(warnings)
    return reg


def failures(reg: Registry) -> dict[str, str]:
    """Server name -> error, for the servers a discovery could not read."""
    return {n: s.info["error"] for n, s in reg.servers.items() if "error" in s.info}


def _specs(target, config, servers, name, headers, env, cwd) -> list[ServerSpec]:
    servers = list(servers or [])
    if config is not None:
        if target is not None:
            raise InputError("give either a target (URL or command) or --config, not both")
        if headers or env or name or cwd:
            raise InputError("name, headers, env and cwd apply to a single URL or command; "
                             "with a config file, set them in its entries")
        return read_config(config, servers or None)
    if target is None or target == [] or target == "":
        raise InputError("nothing to discover: expected a URL, a command, or a config file")
    if servers:
        raise InputError("--server picks servers from a --config file; there is none")
    return [spec_for(target, name=name, headers=headers, env=env, cwd=cwd)]


@contextlib.contextmanager
def _quiet_sdk_logs():
    """Hide the SDK's tracebacks for lines it cannot parse: they become one warning each instead."""
    import logging

    class Drop(logging.Filter):
        def filter(self, record: logging.LogRecord) -> bool:
            return False

    drop = Drop()
    for name in _QUIET:
        logging.getLogger(name).addFilter(drop)
    try:
        yield
    finally:
        for name in _QUIET:
            logging.getLogger(name).removeFilter(drop)


def _run_sync(make_coro: Callable[[], Any]) -> Any:
    """Run a coroutine to the end, in a worker thread when a loop already runs here (Jupyter)."""
    import asyncio

    import anyio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return anyio.run(make_coro)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(anyio.run, make_coro).result()
