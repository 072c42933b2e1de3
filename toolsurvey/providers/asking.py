"""What every provider's eval client shares: the answer as toolsurvey reads it (`Answer`), the base
class that sends one exact request body through the provider's official SDK (`AskingClient`), the
tool names an API accepts (`api_names`), and SDK failures as one-line ProviderErrors.

Network I/O happens only in `AskingClient.send`; everything else is pure. A key is read from the
environment when the client is made, handed to the SDK, and never written anywhere: error messages
have it replaced by '***'.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import inspect
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.extras import MissingExtra, absent
from ..errors import ProviderError
from .endpoints import Provider, ToolApi, Usage, error_message
from .limits import tool_name_rule

DEFAULT_TIMEOUT = 120.0  # seconds per request: a local server may take long, and may never stop (notes)
DEFAULT_RETRIES = 2  # the SDKs' own retries on 408, 409, 429 and 5xx, honouring retry-after
# What a batch request costs against the same request sent alone: "50% of standard API prices"
# (Anthropic documentation, Batch processing, pricing; OpenAI documentation, Batch API), 2026-12-06.
BATCH_PRICE = 0.5


@dataclass
class Answer:
    """One answer as an eval reads it: its calls in order (name as sent back, arguments as given),
    its text, its billed usage, why it stopped, and a refusal the API marked as one."""

    calls: list[tuple[Any, Any]] = field(default_factory=list)
    text: str = ""
    usage: Usage = (0, 0, 0, 0, 0)
    stop: str = ""
    refusal: str = ""


def api_names(keys: Sequence[str], names: Sequence[str]) -> tuple[list[str], list[str]]:
    """The name each tool is sent under, and the lines saying which were rewritten. A tool keeps its
    own name when it fits the APIs' rule (^[a-zA-Z0-9_-]{1,64}$) and no other tool has it; otherwise
    it is sent as its key (`server/name`), characters outside the rule as `_`, cut to 64 with a hash
    when longer, and made unique. The caller maps answers back through the same list."""
    rule = tool_name_rule()
    pattern, limit = re.compile(rule["pattern"]), int(rule["max_length"])
    seen: dict[str, int] = {}
    for n in names:
        seen[n] = seen.get(n, 0) + 1
    out, used, notes = [], set(), []
    for key, name in zip(keys, names, strict=True):
        sent = name
        if not pattern.fullmatch(name) or seen[name] > 1 or name in used:
            sent = re.sub(r"[^a-zA-Z0-9_-]", "_", key.replace("/", "__"))
            if len(sent) > limit or sent in used or not sent:
                digest = hashlib.sha1(key.encode()).hexdigest()[:8]
                sent = f"{sent[:limit - 9]}_{digest}"
            notes.append(f"{key!r} sent as {sent!r}")
        used.add(sent)
        out.append(sent)
    return out, notes


@functools.cache
def sdk_takes(resource: str, param: str) -> bool:
    """Whether the installed SDK's `module:Class` create() takes `param` (an SDK drops a parameter
    its API no longer accepts, as anthropic 2.x did temperature); True when it cannot be told."""
    module, _, cls = resource.partition(":")
    try:
        create = getattr(importlib.import_module(module), cls).create
        return param in inspect.signature(create).parameters
    except (ImportError, AttributeError, ValueError, TypeError):
        return True


class RequestFailed(ProviderError):
    """One request failed for a reason of its own (refused as too long or malformed, or no answer in
    time), not the service's: the run goes on, and counts it as a query without an answer."""


class AskingClient:
    """Sends one request body per query to one API of a provider through its official SDK, and reads
    answers. Subclasses give `api`, `provider`, `sdk_module`, `body()`, `_create()` and `read()`."""

    api: ToolApi
    provider: Provider
    sdk_module: str = ""
    key_optional = False  # a --base-url server usually needs no key

    def __init__(self, model: str, *, base_url: str | None = None, environ: Mapping[str, str] | None = None,
                 http_client: Any = None, timeout: float = DEFAULT_TIMEOUT, max_retries: int = DEFAULT_RETRIES,
                 require_key: bool = True, cache_tools: bool = True):
        if require_key and (absent(self.sdk_module) or absent("jsonschema")):  # else: an estimate only
            raise MissingExtra(f"toolsurvey eval with {self.provider.label} needs the {self.sdk_module} SDK and "
                               "jsonschema; install them with: pip install 'toolsurvey[eval]'")
        self.model, self.timeout, self.max_retries = model, timeout, max_retries
        self.cache_tools = cache_tools  # mark the tools as a cached prefix, where the API is told so
        self.custom_url = base_url is not None
        self.base_url = self.provider.base_url(base_url, environ)
        try:
            self._key = self.provider.api_key(environ)
        except ProviderError:
            if require_key and not (self.custom_url and self.key_optional):
                raise ProviderError(f"no {self.provider.label} API key: set {' or '.join(self.provider.key_vars)} "
                                    "in the environment (keys are read from the environment only)") from None
            self._key = "none"  # the SDK wants one; a local server ignores it
        self._http = http_client
        self._sdk = None
        self._tools_digest: tuple[Any, str] | None = None

    @property
    def label(self) -> str:
        return f"{self.provider.label} {self.api.name}"

    def request_hash(self, body: dict) -> str:
        """The cache key of a request: the API, the base URL and the exact body (never the key). The
        tools, the same list in every request of a run, are hashed once."""
        tools = body.get("tools")
        if tools is not None and (self._tools_digest is None or self._tools_digest[0] is not tools):
            blob = json.dumps(tools, sort_keys=True, ensure_ascii=False).encode("utf-8")
            self._tools_digest = (tools, hashlib.sha256(blob).hexdigest())
        rest = {k: v for k, v in body.items() if k != "tools"}
        blob = json.dumps([self.api.name, self.base_url, rest, tools is not None and self._tools_digest[1]],
                          sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def body(self, query: str, tools: list, system: str | None) -> dict:
        raise NotImplementedError

    def read(self, answer: dict) -> Answer:
        raise NotImplementedError

    def _client(self):
        raise NotImplementedError

    def _create(self, sdk, body: dict):
        raise NotImplementedError

    def send(self, body: dict) -> dict:
        """The answer's JSON to `body`; raises ProviderError (the key never in its message)."""
        raw = self.call(lambda sdk: self._create(sdk, body), body)
        try:
            answer = json.loads(raw.http_response.text)
        except ValueError:
            raise ProviderError(f"{self.label} at {self.base_url} answered with something that is not JSON") from None
        if not isinstance(answer, dict):
            raise ProviderError(f"{self.label} answered with JSON that is not an object")
        return answer

    def call(self, fn, body: dict | None = None):
        """`fn(sdk)` through the SDK's client, its failures as one-line ProviderErrors (RequestFailed
        for a request's own), the key never in a message."""
        failure = None
        try:
            if self._sdk is None:
                self._sdk = self._client()
            return fn(self._sdk)
        except Exception as e:  # the SDK's errors, each one line
            failure = (RequestFailed if self._own(e) else ProviderError)(self._failure(e, body or {}))
        raise type(failure)(self.redact(str(failure)))  # outside the handler: no exception chain keeps the key

    # --- batches: each provider's half-price batch API (submit, poll, read back) -------------------
    def batch_submit(self, items: list[tuple[str, dict]]) -> str:
        """Submit (custom_id, body) pairs as one batch; returns the batch's id."""
        raise NotImplementedError

    def batch_state(self, batch_id: str) -> tuple[bool, str]:
        """(whether the batch has ended, its status as the provider words it)."""
        raise NotImplementedError

    def batch_results(self, batch_id: str) -> Iterator[tuple[str, dict | None, str]]:
        """(custom_id, answer JSON or None, error) of each request of an ended batch."""
        raise NotImplementedError

    def _own(self, e: Exception) -> bool:
        """Whether a failure is the request's own: no answer in time, or HTTP 400, 413 or 422."""
        sdk = __import__(self.sdk_module)
        if isinstance(e, sdk.APITimeoutError):
            return True
        return isinstance(e, sdk.APIStatusError) and e.status_code in (400, 413, 422)

    def _failure(self, e: Exception, body: dict) -> str:
        sdk = __import__(self.sdk_module)
        where = f"{self.label} at {self.base_url}"
        if isinstance(e, sdk.APITimeoutError):
            return f"{where}: no answer within {self.timeout:g} s (after {self.max_retries} retries)"
        if isinstance(e, sdk.APIConnectionError):
            return f"{where} cannot be reached: {e.__cause__ or e}"
        if isinstance(e, sdk.APIStatusError):
            try:
                detail = error_message(e.response.json())
            except ValueError:
                detail = e.response.text[:200]
            status = e.status_code
            if status == 404 and "model" in detail.lower():
                return f"{where} does not know model {body.get('model')!r}: {detail}"
            if status in (401, 403):
                return f"{where} refused the key (HTTP {status}): {detail}"
            retried = f" after {self.max_retries} retries" if status == 429 or status >= 500 else ""
            return f"{where} answered HTTP {status}{retried}: {detail}"
        return f"{where}: {type(e).__name__}: {e}"

    def redact(self, text: str) -> str:
        return text.replace(self._key, "***") if self._key and self._key != "none" else text

    def close(self) -> None:
        if self._sdk is not None:
            self._sdk.close()
