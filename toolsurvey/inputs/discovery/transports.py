"""The two MCP transports discovery speaks: stdio (a command it starts) and Streamable HTTP (a URL)."""

from __future__ import annotations

import contextlib
import os
import shutil

from ...core.http import MAX_DISCOVERY_BYTES, capped_transport
from ..configs import ServerSpec
from .explain import ConnectionLog, DiscoveryError


def stdio_transport(spec: ServerSpec, errlog):
    """The SDK's stdio client for `spec`'s command; raises DiscoveryError when it cannot be started."""
    from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client

    path = {**get_default_environment(), **spec.env}.get("PATH")
    if shutil.which(spec.command, path=path) is None:
        where = "is not executable" if os.path.exists(spec.command) else "was not found on PATH"
        raise DiscoveryError(f"cannot start the server: the command {spec.command!r} {where}")
    params = StdioServerParameters(command=spec.command, args=list(spec.args), env=spec.env or None,
                                   cwd=spec.cwd, encoding_error_handler="replace")
    return stdio_client(params, errlog=errlog)


@contextlib.asynccontextmanager
async def http_transport(spec: ServerSpec, log: ConnectionLog, connect_timeout: float):
    """The SDK's Streamable HTTP client for `spec`'s URL, each POST's status and body cap kept in `log`."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async def record(response) -> None:
        # Only the POSTs carry requests; a 405 to the optional GET stream or the closing DELETE is normal.
        if response.request.method == "POST":
            log.http.append((response.status_code, response.reason_phrase,
                             response.headers.get("content-type", "")))

    timeout = httpx2.Timeout(connect_timeout, read=max(connect_timeout, 60.0))
    transport = capped_transport(httpx2.AsyncHTTPTransport(), MAX_DISCOVERY_BYTES, log.refused.append)
    async with httpx2.AsyncClient(headers=spec.headers, timeout=timeout, transport=transport,
                                  event_hooks={"response": [record]}) as client:
        async with streamable_http_client(spec.url, http_client=client) as streams:
            yield streams
