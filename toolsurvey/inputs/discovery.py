"""Live discovery: ask running MCP servers (stdio or Streamable HTTP) for their tools, concurrently."""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import shutil
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from ..core.http import REDACTED, redact_url
from ..core.registry import Registry, Server
from ..errors import InputError, ToolsurveyError
from .configs import ServerSpec, read_config, scrub, spec_for
from .procs import Reaper, StderrRing, kill_session

DEFAULT_CONNECT_TIMEOUT = 30.0  # start + initialize; `npx -y` may first download the package
DEFAULT_LIST_TIMEOUT = 30.0  # every tools/list page together
DEFAULT_MAX_PAGES = 1000  # a paginator that never ends must not loop forever
DEFAULT_CONCURRENCY = 16  # servers started at once; a 40-server config should not fork-bomb a laptop
NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # what OpenAI and Anthropic accept as a tool name
PREFIXES = {"claude-code": "mcp__{server}__{tool}"}  # clients whose namespacing is documented
_STDERR_TAIL = 600  # characters of a failed server's stderr quoted in its error
_STDERR_KEEP = 64 * 1024  # bytes of a server's stderr held (the last ones), however much it writes
# Set in each stdio server's environment, which its children inherit: after the session ends, any
# process still carrying it is a leftover (a grandchild the SDK's process-group kill did not reach
# because the server itself exited in time) and is killed.
_MARK = "TOOLSURVEY_DISCOVERY_ID"
_QUIET = ("mcp.client.stdio", "mcp.client.streamable_http")  # loggers that print tracebacks for bad lines

Progress = Callable[[str, str, str], None]  # (event: start|done|failed, server name, detail)


class DiscoveryError(ToolsurveyError):
    """One server could not be discovered; the message says where it stopped and why."""


@dataclass
class _Trace:
    """What a connection saw besides the answers: stray stdout lines, HTTP statuses."""

    junk: list[str] = field(default_factory=list)
    http: list[tuple[int, str, str]] = field(default_factory=list)  # (status, reason, content-type)
    reaped: int = 0  # leftover processes killed after the session ended
    refused: list[str] = field(default_factory=list)  # HTTP bodies over the size cap


# --- public API ---------------------------------------------------------------------------------


def discover(target: str | list[str] | None = None, *, config: str | os.PathLike | None = None,
             servers: Iterable[str] | None = None, name: str | None = None,
             headers: Mapping[str, str] | None = None, env: Mapping[str, str] | None = None,
             cwd: str | None = None, prefix: str | None = None,
             connect_timeout: float = DEFAULT_CONNECT_TIMEOUT, list_timeout: float = DEFAULT_LIST_TIMEOUT,
             max_pages: int = DEFAULT_MAX_PAGES, concurrency: int = DEFAULT_CONCURRENCY,
             on_progress: Progress | None = None) -> Registry:
    """Start or connect to MCP servers and return their tools as a Registry (a live snapshot).

    `target` is a URL (Streamable HTTP) or a command line (stdio); `config` an `mcpServers` JSON
    file, of which `servers` picks some; `prefix` a name template such as 'mcp__{server}__{tool}'
    or a client name (see PREFIXES). A server that fails is kept with no tools and an `error` in
    its info, and named in `warnings`. Raises InputError for bad arguments or config.
    """
    template = _template(prefix) if prefix else None
    if min(connect_timeout, list_timeout) <= 0 or max_pages < 1 or concurrency < 1:
        raise InputError("expected positive timeouts, and max_pages and concurrency of at least 1; found "
                         f"connect_timeout={connect_timeout:g}, list_timeout={list_timeout:g}, "
                         f"max_pages={max_pages}, concurrency={concurrency}")
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

    from ..core.extras import require

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
            server, warnings = await _discover_one(spec, connect_timeout, list_timeout, max_pages)
        except Exception as e:  # noqa: BLE001 - one server's failure must not lose the others
            text = str(e) if isinstance(e, ToolsurveyError) else f"internal error: {type(e).__name__}: {e}"
            message = scrub(text, spec.secrets)
            info = {"error": message, "captured_at": _now(), "launch": spec.launch()}
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


def snapshot(reg: Registry) -> dict:
    """The registry as a snapshot file value: the registry format with each tool exactly as sent."""
    from .formats import dump

    value = dump(reg, "registry")
    for name, entry in value["servers"].items():
        entry["tools"] = [t.as_sent() for t in reg.servers[name].tools]
    return {"toolsurvey": {"kind": "snapshot", "version": 1, "written_at": _now()}, **value}


def save_snapshot(reg: Registry, path: str | os.PathLike) -> None:
    """Write `snapshot(reg)` to `path` atomically; raises InputError if it cannot be written."""
    from ..core.writing import atomic_write

    try:
        atomic_write(path, json.dumps(snapshot(reg), indent=2, ensure_ascii=False, allow_nan=False) + "\n")
    except ValueError as e:  # NaN from a Registry built in Python: JSON cannot hold it
        raise InputError(f"cannot write {path}: {e}") from None
    except OSError as e:
        raise InputError(f"cannot write {path}: {e.strerror}") from None


def _template(prefix: str) -> str:
    template = PREFIXES.get(prefix, prefix)
    if "{tool}" not in template:
        raise InputError(f"prefix template {prefix!r} has no {{tool}} field; "
                         f"expected e.g. 'mcp__{{server}}__{{tool}}' or one of: {', '.join(PREFIXES)}")
    return template


def apply_prefix(reg: Registry, template: str) -> Registry:
    """Each tool renamed as a client shows it to the model, e.g. `mcp__{server}__{tool}`.

    Raises InputError for a template without a {tool} field.
    """
    template = _template(template)

    def rename(t):
        new = template.replace("{server}", t.server).replace("{tool}", t.name)
        raw = {k: (new if k == "name" else v) for k, v in t.raw.items()} if t.raw is not None else None
        return replace(t, name=new, raw=raw)

    out = reg.map(rename)
    for name, s in out.servers.items():
        out.servers[name] = replace(s, info={**s.info, "name_template": template})
    return out


def name_problems(reg: Registry) -> list[str]:
    """Names a provider would reject: shared by several servers, or outside ^[a-zA-Z0-9_-]{1,64}$."""
    problems = [f"tool name {n!r} is defined by several servers ({', '.join(sorted(set(s)))}); "
                "without a per-server prefix the model cannot tell them apart"
                for n, s in reg.collisions().items()]
    for t in reg:
        if not NAME_PATTERN.match(t.name):
            why = f"{len(t.name)} characters, over 64" if len(t.name) > 64 else "characters outside a-z A-Z 0-9 _ -"
            problems.append(f"{t.key}: name {t.name!r} breaks ^[a-zA-Z0-9_-]{{1,64}}$ ({why})")
    return problems


# --- one server ---------------------------------------------------------------------------------


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


async def _discover_one(spec: ServerSpec, connect_timeout: float, list_timeout: float,
                        max_pages: int) -> tuple[Server, list[str]]:
    """Connect, initialize, list every page; raises DiscoveryError saying which step failed."""
    import anyio
    import anyio.to_thread

    trace = _Trace()
    token = uuid.uuid4().hex
    marked = spec if spec.url else replace(spec, env={**spec.env, _MARK: token})
    errlog = StderrRing(_STDERR_KEEP)
    sid = None
    with contextlib.closing(errlog):
        step = "connecting"
        try:
            async with contextlib.AsyncExitStack() as stack:
                session = await _open(stack, marked, trace, errlog.writer, connect_timeout)
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
            leaf = _leaf(e)
            limit = connect_timeout if step != "tools/list" else list_timeout
            message = (f"{_where(spec)}: {leaf}" if isinstance(leaf, DiscoveryError)
                       else _explain(leaf, spec, step, limit, trace, _tail(errlog.text())))
            raise DiscoveryError(message) from None
        finally:
            if not spec.url:
                with anyio.CancelScope(shield=True):  # also after Ctrl-C: leave nothing running
                    trace.reaped = await anyio.to_thread.run_sync(_reap, token, sid)
    server, load_warnings = _server(spec, init, tools, pages)
    return server, load_warnings + _warnings(spec, trace)


async def _open(stack: contextlib.AsyncExitStack, spec: ServerSpec, trace: _Trace, errlog,
                connect_timeout: float):
    """Start the transport and a ClientSession on it, both closed by `stack`."""
    from mcp import ClientSession
    from mcp.types import Implementation

    from .. import __version__

    if spec.url:
        streams = await stack.enter_async_context(_http_transport(spec, trace, connect_timeout))
    else:
        streams = await stack.enter_async_context(_stdio_transport(spec, errlog))

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):  # a stdout line that is not JSON-RPC
            errors = getattr(message, "errors", None)
            line = errors()[0].get("input") if callable(errors) and errors() else None
            trace.junk.append(line if isinstance(line, str) else str(message))

    session = ClientSession(streams[0], streams[1], message_handler=on_message,
                            client_info=Implementation(name="toolsurvey", version=__version__))
    return await stack.enter_async_context(session)


def _stdio_transport(spec: ServerSpec, errlog):
    from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client

    path = {**get_default_environment(), **spec.env}.get("PATH")
    if shutil.which(spec.command, path=path) is None:
        where = "is not executable" if os.path.exists(spec.command) else "was not found on PATH"
        raise DiscoveryError(f"cannot start the server: the command {spec.command!r} {where}")
    params = StdioServerParameters(command=spec.command, args=list(spec.args), env=spec.env or None,
                                   cwd=spec.cwd, encoding_error_handler="replace")
    return stdio_client(params, errlog=errlog)


@contextlib.asynccontextmanager
async def _http_transport(spec: ServerSpec, trace: _Trace, connect_timeout: float):
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async def record(response) -> None:
        # Only the POSTs carry requests; a 405 to the optional GET stream or the closing DELETE is normal.
        if response.request.method == "POST":
            trace.http.append((response.status_code, response.reason_phrase,
                               response.headers.get("content-type", "")))

    from ..core.http import MAX_DISCOVERY_BYTES, capped_transport

    timeout = httpx2.Timeout(connect_timeout, read=max(connect_timeout, 60.0))
    transport = capped_transport(httpx2.AsyncHTTPTransport(), MAX_DISCOVERY_BYTES, trace.refused.append)
    async with httpx2.AsyncClient(headers=spec.headers, timeout=timeout, transport=transport,
                                  event_hooks={"response": [record]}) as client:
        async with streamable_http_client(spec.url, http_client=client) as streams:
            yield streams


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
    from .formats import from_json

    answered = init.model_dump(by_alias=True, mode="json", exclude_none=True)
    # A server may echo what it was given (an Authorization header, an env token) into its name,
    # instructions or descriptions: nothing it sent is stored or shown with a secret in it.
    dumped, clean_tools = scrub(answered, spec.secrets), scrub(tools, spec.secrets)
    echoed = dumped != answered or clean_tools != tools
    tools = clean_tools
    info = {"serverInfo": dumped.get("serverInfo"), "protocolVersion": dumped.get("protocolVersion"),
            "capabilities": dumped.get("capabilities", {}), "captured_at": _now(),
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
        v, where = stack.pop()
        if isinstance(v, float) and not math.isfinite(v):
            return where, v
        if isinstance(v, dict):
            stack.extend((x, f"{where}.{k}") for k, x in reversed(list(v.items())))
        elif isinstance(v, list):
            stack.extend((x, f"{where}[{i}]") for i, x in reversed(list(enumerate(v))))
    return None


def _warnings(spec: ServerSpec, trace: _Trace) -> list[str]:
    out = []
    if trace.junk:
        out.append(f"server {spec.name!r}: printed {len(trace.junk)} line(s) on stdout that are not JSON-RPC "
                   f"(ignored; stdout is reserved for protocol messages), first: {_clip(trace.junk[0])}")
    if trace.reaped:
        out.append(f"server {spec.name!r}: left {trace.reaped} process(es) running after it exited; killed them")
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


# --- errors -------------------------------------------------------------------------------------


def _leaf(e: BaseException) -> BaseException:
    """The first real error inside nested exception groups."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    return e


def _where(spec: ServerSpec) -> str:
    return redact_url(spec.url) if spec.url else " ".join([spec.command or "", *spec.args]).strip()


def _explain(e: BaseException, spec: ServerSpec, step: str, limit: float, trace: _Trace, stderr: str) -> str:
    """One sentence: where it stopped, what was seen, and what to try."""
    where = _where(spec)
    extra = f"; its stderr ends with: {stderr}" if stderr else ""
    if trace.junk:
        extra += f"; it printed non-JSON on stdout: {_clip(trace.junk[0])}"
    if trace.refused:
        return f"{where}: {trace.refused[0]}"
    http = _http_problem(trace, bool(spec.headers))
    if http:
        return f"{where}: {http}"
    if isinstance(e, TimeoutError):
        what = {"initialize": "no answer to initialize", "tools/list": "tools/list did not finish",
                "connecting": "could not connect"}[step]
        return f"{where}: {what} within {limit:g} s (the timeout){extra}"
    if isinstance(e, FileNotFoundError | PermissionError):
        return f"cannot start {spec.command!r}: {e.strerror or e}"
    text = getattr(e, "message", None) or str(e) or type(e).__name__
    if type(e).__name__ == "MCPError" and text == "Connection closed":
        gone = "the server exited or closed stdout" if not spec.url else "the connection closed"
        return f"{where}: {gone} during {step}{extra}"
    if type(e).__name__ == "MCPError":
        return f"{where}: the server answered {step} with error {e.code}: {_clip(text)}{extra}"
    if type(e).__name__ == "ValidationError":
        problems = "; ".join(f"{'.'.join(map(str, err['loc']))}: {err['msg']}" for err in e.errors()[:3])
        return f"{where}: the {step} result is not valid MCP ({problems[:300]})"
    if type(e).__module__.startswith(("httpx", "httpcore")):
        return f"{where}: cannot reach the server ({type(e).__name__}: {_clip(text)})"
    return f"{where}: {step} failed: {type(e).__name__}: {_clip(text)}{extra}"


def _http_problem(trace: _Trace, sent_headers: bool) -> str | None:
    for status, reason, ctype in trace.http:
        if status in (401, 403) and sent_headers:
            return f"HTTP {status} {reason}: the server refused the credentials in the headers given"
        if status in (401, 403):
            return (f"HTTP {status} {reason}: the server wants credentials "
                    "(pass them with --header 'Authorization: Bearer …' or the config's headers)")
        if status == 404:
            return f"HTTP 404 {reason}: no MCP endpoint at this URL (Streamable HTTP endpoints often end in /mcp)"
        if status >= 400:
            return f"HTTP {status} {reason}: the server failed to answer"
        base = ctype.split(";")[0].strip().lower()
        if status < 300 and base and base not in ("application/json", "text/event-stream"):
            return (f"answered with {base} (HTTP {status}), not an MCP endpoint "
                    "(expected application/json or text/event-stream)")
    return None


def _tail(text: str) -> str:
    """The end of the server's stderr, one line per ' | '."""
    text = text[-4 * _STDERR_TAIL:]
    return " | ".join(line.strip() for line in text.splitlines() if line.strip())[-_STDERR_TAIL:]


def _clip(text: str, n: int = 200) -> str:
    """`text` quoted and cut to about `n` characters."""
    return repr(text if len(text) <= n else text[: n - 1] + "…")


# --- plumbing -----------------------------------------------------------------------------------


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


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
