"""Reading HTTP answers from endpoints we do not control: a byte cap and an overall deadline.

httpx's timeouts bound each read, so an endpoint sending one byte every two seconds never trips
them; and `response.read()` holds whatever Content-Length promised. Everything here reads a
streamed response chunk by chunk, stopping at `max_bytes` or when the deadline passes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..errors import InputError

MAX_ANSWER_BYTES = 1 * 2**20  # a token count or an error is a few hundred bytes of JSON
MAX_DISCOVERY_BYTES = 32 * 2**20  # one MCP message (a tools/list page) over Streamable HTTP


class TooLarge(InputError):
    """The endpoint sent more than we agreed to read."""


def deadline_timeout(timeout: float, deadline: float) -> float:
    """The per-read timeout for a request that must end by `deadline` (time.monotonic())."""
    return max(0.001, min(timeout, deadline - time.monotonic()))


def read_capped(response: Any, *, max_bytes: int, deadline: float, where: str) -> bytes:
    """The body of a streamed httpx response; raises TooLarge over `max_bytes`, and
    httpx.ReadTimeout when the whole body has not arrived by `deadline`."""
    import httpx

    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise TooLarge(f"{where} announced {int(declared):,} bytes (Content-Length); "
                       f"more than the {max_bytes:,} an answer may have, so nothing was read")
    chunks, size = [], 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > max_bytes:
            raise TooLarge(f"{where} sent more than {max_bytes:,} bytes; stopped reading")
        chunks.append(chunk)
        if time.monotonic() > deadline:
            raise httpx.ReadTimeout(f"{where}: the answer was still arriving at the deadline")
    return b"".join(chunks)


def capped_transport(inner: Any, max_bytes: int, on_refuse: Callable[[str], None] = lambda _: None) -> Any:
    """An httpx2 async transport that fails a response once its body passes `max_bytes` (the MCP SDK
    reads bodies itself, so the cap goes under it); `on_refuse` hears why, as the SDK may not say."""
    import httpx2

    def refuse(message: str) -> TooLarge:
        on_refuse(message)
        return TooLarge(message)

    class _Capped(httpx2.AsyncByteStream):
        def __init__(self, stream: Any):
            self.stream = stream

        async def __aiter__(self):
            size = 0
            async for chunk in self.stream:
                size += len(chunk)
                if size > max_bytes:
                    raise refuse(f"the server sent a message over {max_bytes:,} bytes; stopped reading")
                yield chunk

        async def aclose(self) -> None:
            await self.stream.aclose()

    class _Transport(httpx2.AsyncBaseTransport):
        async def handle_async_request(self, request):
            response = await inner.handle_async_request(request)
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > max_bytes:
                await response.aclose()
                raise refuse(f"the server announced a {int(declared):,}-byte message (Content-Length); "
                               f"more than the {max_bytes:,} allowed, so nothing was read")
            response.stream = _Capped(response.stream)
            return response

        async def aclose(self) -> None:
            await inner.aclose()

    return _Transport()
