"""Reading HTTP answers from endpoints we do not control: a byte cap and an overall deadline.

httpx's timeouts bound each read, so an endpoint sending one byte every two seconds never trips
them; and `response.read()` holds whatever Content-Length promised. Everything here reads a
streamed response chunk by chunk, stopping at `max_bytes` or when the deadline passes.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..errors import InputError, ProviderError

REDACTED = "<redacted>"
MAX_FETCH_BYTES = 256 * 1024 * 1024  # one fetched document (a tool result, a price file)
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


def redact_url(url: str) -> str:
    """The URL as it may be shown: no password, every query value and the fragment replaced by
    <redacted> (API keys often travel there), and a user without a password (often a token) too."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        user, _, host = netloc.rpartition("@")
        netloc = f"{user.split(':')[0]}:{REDACTED}@{host}" if ":" in user else f"{REDACTED}@{host}"
    query = urlencode([(k, REDACTED) for k, _ in parse_qsl(parts.query, keep_blank_values=True)], safe="<>")
    return urlunsplit((parts.scheme, netloc, parts.path, query, REDACTED if parts.fragment else ""))


def check_url(url: str, where: str = "URL") -> str:
    """`url` if it is a usable http(s) URL; raises InputError saying what is wrong, without echoing it
    (it may carry credentials)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in 0-65535
    except ValueError as e:
        raise InputError(f"{where} is not a valid URL ({e}); expected http(s)://host[:port]/path") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise InputError(f"{where} is not a valid URL (no host); expected http(s)://host[:port]/path")
    return url


def is_url(text: str) -> bool:
    return text.lower().startswith(("http://", "https://"))


_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an HTTP token (RFC 9110)


def parse_header(text: str) -> tuple[str, str]:
    """`"Name: value"` -> (name, value); raises InputError naming the expected form (never the value)."""
    name, sep, value = str(text).partition(":")
    if not sep:  # all of it may be the secret
        raise InputError("a header: expected 'Name: value' (it is not shown: all of it may be a secret)")
    if not _HEADER_NAME.fullmatch(name.strip()):
        raise InputError(f"header {name.strip()[:40]!r}…: expected 'Name: value' (value not shown)")
    return name.strip(), value.strip()


def parse_headers(items: list[str] | dict | None) -> dict[str, str]:
    """'Name: value' strings (or a dict) to a dict; raises InputError as `parse_header` does."""
    if isinstance(items, dict):
        return {str(k): str(v) for k, v in items.items()}
    return dict(parse_header(item) for item in items or ())


# Answers that say the server, not the URL, failed: a refused key, a rate limit, an outage.
_REMOTE_FAILURES = frozenset({401, 403, 407, 408, 429})


def fetch(url: str, headers: dict[str, str], timeout: float = 30.0) -> tuple[bytes, str]:
    """GET `url` with httpx; returns (body, content type). Raises ProviderError when the server cannot
    be reached, answers too slowly, refuses the credentials, limits the rate or fails (5xx), and
    InputError for a malformed URL, another error status (404: nothing there) or an answer over the
    cap. Messages name only the redacted URL, and nothing is chained to httpx's exception, whose
    request holds the headers (often a key)."""
    import httpx

    shown = redact_url(check_url(url, "the source"))
    deadline = time.monotonic() + timeout  # the whole fetch, redirects and a slow trickle included
    try:
        with httpx.Client(timeout=deadline_timeout(timeout, deadline), follow_redirects=True) as client:
            with client.stream("GET", url, headers=headers) as r:
                if r.status_code in _REMOTE_FAILURES or r.status_code >= 500:
                    raise ProviderError(f"{shown} answered HTTP {r.status_code}; expected a 2xx response")
                if r.status_code >= 400:
                    raise InputError(f"{shown} answered HTTP {r.status_code}; expected a 2xx response")
                body = read_capped(r, max_bytes=MAX_FETCH_BYTES, deadline=deadline, where=shown)
                ctype = r.headers.get("content-type", "")
    except httpx.TimeoutException:
        raise ProviderError(f"cannot fetch {shown}: no complete answer within {timeout:g} s") from None
    except httpx.HTTPError as e:
        raise ProviderError(f"cannot fetch {shown}: {type(e).__name__}") from None
    return body, ctype
