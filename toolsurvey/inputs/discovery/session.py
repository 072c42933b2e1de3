"""One server's discovery: connect, initialize, list every tools/list page, and leave nothing running."""

from __future__ import annotations

import contextlib
import math
import os
import uuid
from dataclasses import replace
from typing import Any

from ... import __version__
from ...core.http import REDACTED
from ...core.registry import Server
from ..configs import ServerSpec, scrub
from ..formats import from_json
from .explain import ConnectionLog, DiscoveryError, clip, explain, leaf, tail, where
from .procs import StderrRing, kill_session
from .snapshots import utc_now
from .transports import http_transport, stdio_transport

_STDERR_KEEP = 64 * 1024  # bytes of a server's stderr held (the last ones), however much it writes
# Set in each stdio server's environment, which its children inherit: after the session ends, any
# process still carrying it is a leftover (a grandchild the SDK's process-group kill did not reach
# because the server itself exited in time) and is killed.
_MARK = "TOOLSURVEY_DISCOVERY_ID"


async def discover_one(spec: ServerSpec, connect_timeout: float, list_timeout: float,
                       max_pages: int) -> tuple[Server, list[str]]:
    """Connect, initialize, list every page; raises DiscoveryError saying which step failed."""
    import anyio
    import anyio.to_thread

    log = ConnectionLog()
    token = uuid.uuid4().hex
    marked = spec if spec.url else replace(spec, env={**spec.env, _MARK: token})
    errlog = StderrRing(_STDERR_KEEP)
    sid = None
    with contextlib.closing(errlog):
        step = "connecting"
        try:
            async with contextlib.AsyncExitStack() as stack:
                session = await _open(stack, marked, log, errlog.writer, connect_timeout)
                errlog.started()  # the server holds the write end now; ours would hide its end of file
                sid = None if spec.url else _server_pid(token)
                step = "initialize"
                with anyio.fail_after(connect_timeout):
                    init = await session.initialize()
                step = "tools/list"
                with anyio.fail_after(list_timeout):
                    tools, pages = await _list_tools(session, max_pages)
                bad = _non_finite(tools, "tools")  # the SDK's JSON parser accepts NaN and Infinity
                if bad:
                    raise DiscoveryError(f"tools/list: {bad[0]} is {bad[1]}, which is not a JSON number "
                                         "(JSON has no NaN or Infinity)")
        except Exception as e:  # noqa: BLE001 - every failure becomes one clear message
            first = leaf(e)
            limit = connect_timeout if step != "tools/list" else list_timeout
            message = (f"{where(spec)}: {first}" if isinstance(first, DiscoveryError)
                       else explain(first, spec, step, limit, log, tail(errlog.text())))
            raise DiscoveryError(message) from None
        finally:
            if not spec.url:
                with anyio.CancelScope(shield=True):  # also after Ctrl-C: leave nothing running
                    log.reaped = await anyio.to_thread.run_sync(_reap, token, sid)
    server, load_warnings = _server(spec, init, tools, pages)
    return server, load_warnings + _warnings(spec, log)


async def _open(stack: contextlib.AsyncExitStack, spec: ServerSpec, log: ConnectionLog, errlog,
                connect_timeout: float):
    """Start the transport and a ClientSession on it, both closed by `stack`."""
    from mcp import ClientSession
    from mcp.types import Implementation

    if spec.url:
        streams = await stack.enter_async_context(http_transport(spec, log, connect_timeout))
    else:
        streams = await stack.enter_async_context(stdio_transport(spec, errlog))

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):  # a stdout line that is not JSON-RPC
            errors = getattr(message, "errors", None)
            line = errors()[0].get("input") if callable(errors) and errors() else None
            log.junk.append(line if isinstance(line, str) else str(message))

    session = ClientSession(streams[0], streams[1], message_handler=on_message,
                            client_info=Implementation(name="toolsurvey", version=__version__))
    return await stack.enter_async_context(session)


async def _list_tools(session, max_pages: int) -> tuple[list[dict], int]:
    """Every tool over every `tools/list` page, as the raw JSON objects the server sent."""
    from mcp import types
    from pydantic import TypeAdapter

    raw_result = TypeAdapter(dict[str, Any])  # keeps the result as sent (key order, unknown keys)
    tools: list[dict] = []
    seen: set[str] = set()
    cursor: str | None = None
    for page in range(1, max_pages + 1):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
        result = await session.send_request(types.ListToolsRequest(params=params), raw_result)
        page_tools = result.get("tools")
        if not isinstance(page_tools, list):
            raise DiscoveryError(f"tools/list page {page}: 'tools' is {type(page_tools).__name__}, expected a list")
        tools.extend(page_tools)
        cursor = result.get("nextCursor")
        if cursor is None:
            return tools, page
        if cursor in seen:
            raise DiscoveryError(f"tools/list page {page}: the server sent cursor {str(cursor)[:60]!r} again, "
                                 f"so its pagination would never end ({len(tools)} tools read so far)")
        seen.add(cursor)
    raise DiscoveryError(f"tools/list: still more pages after {max_pages} (raise --max-pages if this is real; "
                         f"{len(tools)} tools read so far)")


def _server(spec: ServerSpec, init, tools: list[dict], pages: int) -> tuple[Server, list[str]]:
    answered = init.model_dump(by_alias=True, mode="json", exclude_none=True)
    # A server may echo what it was given (an Authorization header, an env token) into its name,
    # instructions or descriptions: nothing it sent is stored or shown with a secret in it.
    dumped, clean_tools = scrub(answered, spec.secrets), scrub(tools, spec.secrets)
    echoed = dumped != answered or clean_tools != tools
    tools = clean_tools
    info = {"serverInfo": dumped.get("serverInfo"), "protocolVersion": dumped.get("protocolVersion"),
            "capabilities": dumped.get("capabilities", {}), "captured_at": utc_now(),
            "launch": spec.launch(), "pages": pages}
    part = from_json(tools, source=f"{spec.name} (live)", server=spec.name) if tools else None
    server_tools = part.servers[spec.name].tools if part else ()
    warnings = part.warnings if part else []
    if echoed:
        info["scrubbed"] = True
        warnings = [f"server {spec.name!r} sent back a secret it was given (a header, env or URL credential "
                    f"value); it was replaced with {REDACTED} before anything was stored or shown", *warnings]
    return Server(spec.name, server_tools, dumped.get("instructions"), info), warnings


def _non_finite(value: Any, path: str) -> tuple[str, float] | None:
    """(where, value) of the first NaN or infinite number inside a JSON value, or None."""
    stack = [(value, path)]
    while stack:
        v, at = stack.pop()
        if isinstance(v, float) and not math.isfinite(v):
            return at, v
        if isinstance(v, dict):
            stack.extend((x, f"{at}.{k}") for k, x in reversed(list(v.items())))
        elif isinstance(v, list):
            stack.extend((x, f"{at}[{i}]") for i, x in reversed(list(enumerate(v))))
    return None


def _warnings(spec: ServerSpec, log: ConnectionLog) -> list[str]:
    out = []
    if log.junk:
        out.append(f"server {spec.name!r}: printed {len(log.junk)} line(s) on stdout that are not JSON-RPC "
                   f"(ignored; stdout is reserved for protocol messages), first: {clip(log.junk[0])}")
    if log.reaped:
        out.append(f"server {spec.name!r}: left {log.reaped} process(es) running after it exited; killed them")
    return [scrub(w, spec.secrets) for w in out]


def _server_pid(token: str) -> int | None:
    """The pid of the server just started with this mark (our child; a session leader)."""
    import psutil

    for p in psutil.Process().children():
        with contextlib.suppress(psutil.Error, OSError):
            if p.environ().get(_MARK) == token:
                return p.pid
    return None


def _reap(token: str, sid: int | None = None) -> int:
    """Kill every process left in the server's session or carrying this discovery's mark in its
    environment; returns how many."""
    import psutil

    killed = len(kill_session(sid)) if sid else 0
    left = []
    for p in psutil.process_iter():
        with contextlib.suppress(psutil.Error, OSError):
            if p.pid != os.getpid() and p.environ().get(_MARK) == token:
                left.append(p)
    for p in left:
        with contextlib.suppress(psutil.Error):
            p.kill()
    psutil.wait_procs(left, timeout=2)
    return killed + len(left)
