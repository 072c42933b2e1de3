"""Route the httpx clients toolsurvey makes during a test through an `httpx.MockTransport`: the
code's real request and reading path, with only the wire replaced, and no socket or server.

`core.http.fetch` (payloads, price files) makes its own `httpx.Client`; `route_httpx` replaces
`httpx.Client` for the test so that every client made, the CLI's included, sends to `handle`.
`refuse` is a handler for a host that cannot be reached, as when offline.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx

_CLIENT = httpx.Client  # the real class, whatever a test has patched since (a second route replaces the first)


def route_httpx(monkeypatch, handle: Callable[[httpx.Request], httpx.Response]) -> list[httpx.Request]:
    """Every httpx.Client made during the test sends through `handle`; returns the requests sent."""
    seen: list[httpx.Request] = []

    def recorded(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return handle(request)

    class Routed(_CLIENT):
        def __init__(self, **kwargs):
            kwargs["transport"] = httpx.MockTransport(recorded)
            super().__init__(**kwargs)

    monkeypatch.setattr(httpx, "Client", Routed)
    return seen


def refuse(request: httpx.Request) -> httpx.Response:
    """What a closed port or no network gives: the connection is refused."""
    raise httpx.ConnectError("[Errno 111] Connection refused", request=request)


def serve(routes: dict[str, bytes | int], content_type: str = "application/json"):
    """A handler answering each URL path in `routes` with its body (200) or its status; other paths 404."""
    def handle(request: httpx.Request) -> httpx.Response:
        answer = routes.get(request.url.path, 404)
        if isinstance(answer, int):
            return httpx.Response(answer, request=request)
        return httpx.Response(200, content=answer, headers={"content-type": content_type}, request=request)
    return handle


class Hostile:
    """A handler that misbehaves on purpose, by the first part of the URL path (as tests/hostile_http.py
    does over a socket):

    /huge-length/…  announces Content-Length 2**31, then streams zeros;
    /endless/…      streams zeros with no length (chunked);
    /trickle/…      announces 10**6 bytes, then sends one byte every `period` seconds.

    The streams are bounded (`limit` bytes, `limit_trickle` bytes) so that code which fails to stop
    ends anyway; `read` lists the bytes the code under test read of each answer, the oracle that it
    stopped, and `pulled` their sum."""

    CHUNK = b"0" * 65536

    def __init__(self, limit: int = 64 * 2**20, period: float = 0.1, limit_trickle: int = 100):
        self.limit, self.period, self.limit_trickle = limit, period, limit_trickle
        self.read: list[int] = []

    @property
    def pulled(self) -> int:
        return sum(self.read)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        import time

        kind = request.url.path.strip("/").split("/")[0]
        self.read.append(0)
        n = len(self.read) - 1

        def zeros():
            while self.read[n] < self.limit:
                self.read[n] += len(self.CHUNK)
                yield self.CHUNK

        def trickle():
            while self.read[n] < self.limit_trickle:
                self.read[n] += 1
                yield b" "
                time.sleep(self.period)

        headers = {"content-type": "application/json"}
        if kind == "huge-length":
            headers["content-length"] = str(2**31)
        elif kind == "trickle":
            headers["content-length"] = str(10**6)
        stream = trickle() if kind == "trickle" else zeros()
        return httpx.Response(200, headers=headers, content=stream, request=request)
