"""The HTTP client of the counting endpoints: concurrent, retrying (honouring Retry-After), cached,
and key-safe (the key is removed from every message). httpx is imported only when a request is sent.

What fails is a ProviderError (no connection, no answer in time, a refused key, a rate limit that
outlasts the retries, an error answer), except an unknown model, which is the caller's input. None is
chained to the exception it comes from: httpx's exceptions hold the request, and its headers the key."""

from __future__ import annotations

import email.utils
import random
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ...core.http import MAX_ANSWER_BYTES, check_url, deadline_timeout, read_capped
from ...errors import InputError, ProviderError, ToolsurveyError
from ...providers.catalog import parse_target
from ...providers.endpoints import Provider, error_message
from .cache import Cache
from .requests import Request, body_bytes

RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
MAX_RETRY_AFTER = 300.0  # seconds; a provider asking for a longer pause is reported, not waited for
Progress = Callable[[int, int, int, int], None]  # (done, total, sent, cached)


class TooLarge(Exception):
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
        self.endpoint = self.provider.counting
        self.name = self.endpoint.name  # as --count-with names it
        self.url = check_url(self.provider.base_url(base, environ) + self.endpoint.path(self.model), "the base URL")
        self.environ = environ
        self.cache = cache if cache is not None else Cache()
        self.concurrency = max(1, concurrency or self.endpoint.concurrency)
        self.timeout, self.retries, self.backoff = timeout, retries, backoff
        self.progress, self.transport = progress, transport
        self.stats = Stats()
        self._key: str | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()  # set when one request failed: the others stop retrying
        self.sleep = sleep or self._stop.wait  # a pause that ends early when the run stops

    def count(self, requests: Sequence[Request]) -> list[int | TooLarge]:
        """The count of each request, or TooLarge where the endpoint refused its size.

        Raises ProviderError (InputError for an unknown model), with the key removed from every
        message, for anything else that fails.
        """
        out: list[int | TooLarge | None] = [self.cache.get(r.key) for r in requests]
        todo = [i for i, v in enumerate(out) if v is None]
        self.stats.cached += len(requests) - len(todo)
        done = len(requests) - len(todo)
        self._report(done, len(requests))
        if not todo:
            return out  # type: ignore[return-value]
        self._key = self.provider.api_key(self.environ)
        failure: ToolsurveyError | None = None
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
        except ToolsurveyError as e:
            failure = e
        except Exception as e:  # httpx's own errors: reported in one line, like the rest
            failure = ProviderError(f"{self.name} {self.url}: {type(e).__name__}: {e}")
        if failure is not None:  # raised here, outside the handler, so no exception chain keeps the key
            raise type(failure)(self.redact(str(failure)))
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

    def _send(self, http, req: Request) -> int | TooLarge:
        import httpx

        headers = {"content-type": "application/json", "accept": "application/json",
                   **self.provider.auth_headers(self._key or "")}
        content = body_bytes(req.body)
        where = f"{self.name} {self.url}"
        problem = ""
        for attempt in range(self.retries + 1):
            if self._stop.is_set():
                raise ProviderError("stopped: another request failed")  # never shown: the first failure is
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
                    raise ProviderError(f"{where} asks to wait {after:,.0f} s before retrying ({problem}); "
                                        "try again later")
                if attempt < self.retries:
                    self._wait(after if after is not None else self._backoff(attempt))
                continue
            if r.status_code >= 400:
                if "json" not in r.headers.get("content-type", ""):
                    return self._read(r, where, req)  # says what came instead of JSON
                text = _error_text(r)
                if _too_long(r.status_code, text):
                    return TooLarge(text)
                raise _error(self.provider, self.model, where, r.status_code, text)
            return self._read(r, where, req)
        raise ProviderError(f"{where}: gave up on the {req.label} request after {self.retries + 1} tries: {problem}")

    def _post(self, http, content: bytes, headers: dict, where: str):
        """POST and read the whole answer within `timeout` seconds and MAX_ANSWER_BYTES."""
        import httpx

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
            raise ProviderError(f"{where} answered {r.status_code} with {ctype or 'no content type'} "
                                f"({head!r}), expected JSON; {hint}")
        try:
            answer = r.json()
        except ValueError:
            raise ProviderError(f"{where} answered {r.status_code} with malformed JSON ({head!r}); {hint}") from None
        tokens = self.endpoint.read(answer)
        if tokens is None:
            raise ProviderError(f"{where} answered without a non-negative integer {self.endpoint.answer!r} "
                                f"(found {head!r}); {hint}")
        self.cache.put(req.key, self.name, self.model, tokens)
        return tokens


def _error_text(r) -> str:
    try:
        return error_message(r.json())
    except ValueError:
        return r.text[:120].strip().replace("\n", " ")


def _error(provider: Provider, model: str, where: str, status: int, text: str) -> ToolsurveyError:
    """The error an answer of HTTP `status` is: a refused key, an unknown model (the caller's input),
    or another failure of the provider's."""
    if status in (401, 403) or "api key" in text.lower():
        return ProviderError(f"{where} refused the key in {' or '.join(provider.key_vars)} (HTTP {status} {text}); "
                             "check that it is a valid key for this provider")
    if status == 404 or "model" in text.lower() and status == 400:
        return InputError(f"{where} does not know model {model!r} (HTTP {status} {text}); "
                          f"check the model id in {provider.counting.name}:MODEL")
    return ProviderError(f"{where} answered HTTP {status} {text}")
