"""What every provider module fills in: the provider (`Provider`), its token-counting endpoint
(`CountingEndpoint`) and the APIs that take tools and answer with tool calls (`ToolApi`).

The facts (names, environment variables, URLs, paths, the answer's field) are data in
assumptions/providers.toml [providers.NAME]; the wire formats (headers, bodies, how an answer is
read) are code in the provider's module. Everything here is pure: no I/O but the environment
variables a key or base URL is read from.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from ..errors import InputError, ProviderError
from .constants import provider_table
from .render import Rendering

# The one user message every counted request carries: the endpoints require a non-empty
# conversation, and the same message in every request cancels out of the differences.
PROBE = "Hi"

Usage = tuple[int, int, int, int, int]  # input, 5-minute cache write, 1-hour cache write, cache read, output
ToolCall = tuple[Any, Any, Any]  # (call id, tool name, arguments), as the answer gives them
ToolResult = tuple[str, Any, bool]  # (call id, the result's content as sent, is an error)


def probe_body(model: str, tools: Any, system: str | None, *, probe: tuple[str, Any], system_key: str) -> dict:
    """A counting request's body: the model, the probe conversation under its key (`probe`: key and
    value), the system prompt under `system_key` when there is one, and the tools when there are any."""
    body: dict[str, Any] = {"model": model, probe[0]: probe[1]}
    if system:
        body[system_key] = system
    if tools:
        body["tools"] = tools
    return body


def count(v: Any) -> int:
    """`v` as a count read forgivingly from an answer: an int of at least 0, and 0 for what is not
    a number (a fast path for what usage fields almost always are)."""
    if v.__class__ is int and v >= 0:
        return v
    try:
        return max(int(v), 0)
    except (TypeError, ValueError):
        return 0


@dataclass(frozen=True)
class ToolApi:
    """One API of a provider that is sent tools and answers with tool calls: its POST path under the
    base URL, the `toolsurvey convert` format of its `tools`, how to read an answer's usage and tool
    calls, and the tool results a request sends back. The traces' provider logs read logged
    answers with these same functions."""

    name: str  # "messages", "chat-completions", "responses"
    provider: str
    path: str
    tools_format: str
    owns_usage: Callable[[dict], bool]  # whether an answer's `usage` object is this API's
    usage: Callable[[dict], Usage]
    tool_calls: Callable[[dict], Iterator[ToolCall]]
    tool_results: Callable[[dict], Iterator[ToolResult]]


@dataclass(frozen=True)
class Provider:
    """One provider: its renderings, its APIs that take tools, its counting endpoint, the headers
    that carry a key to any of them, and the facts of [providers.NAME]. A client of one of its APIs
    sends `dump(registry, api.tools_format)` as `tools` to `base_url() + api.path` with
    `auth_headers(api_key())`, and reads the answer with `api.usage` and `api.tool_calls`."""

    name: str  # as price rows, caching rules, limits and searches name it
    auth_headers: Callable[[str], dict[str, str]]  # the key -> the headers that carry it
    renderings: tuple[Rendering, ...] = ()  # what its models see; the first is the one "auto" picks
    apis: tuple[ToolApi, ...] = ()
    counting: CountingEndpoint | None = None

    def fact(self, key: str) -> Any:
        """A field of [providers.NAME]; raises InputError naming the table when it is missing."""
        table = provider_table(self.name)
        if key not in table:
            raise InputError(f"providers.toml has no {key!r} in [providers.{self.name}]")
        return table[key]

    @property
    def label(self) -> str:
        return str(self.fact("label"))

    @property
    def default_model(self) -> str:
        """The model its renderings' constants apply to when none is named."""
        return str(self.fact("default_model"))

    @property
    def key_vars(self) -> tuple[str, ...]:
        """The environment variables holding its API key, the first set winning."""
        return tuple(self.fact("api_key_env"))

    @property
    def base_url_var(self) -> str:
        return str(self.fact("base_url_env"))

    def api_key(self, environ: Mapping[str, str] | None = None) -> str:
        """The key from the provider's environment variable; raises ProviderError naming the variable
        (a key is never read from a file or an option)."""
        env = os.environ if environ is None else environ
        for var in self.key_vars:
            if env.get(var, "").strip():
                return env[var].strip()
        raise ProviderError(f"no {self.counting.name if self.counting else self.name} API key: set "
                            f"{' or '.join(self.key_vars)} in the environment (keys are read from the "
                            "environment only), or use --dry-run to see what would be sent")

    def base_url(self, override: str | None = None, environ: Mapping[str, str] | None = None) -> str:
        """The base URL: the option, else the provider's SDK environment variable, else its own."""
        env = os.environ if environ is None else environ
        url = override or env.get(self.base_url_var) or str(self.fact("base_url"))
        if not url.startswith(("http://", "https://")):
            raise InputError(f"base URL {url!r} for {self.counting.name if self.counting else self.name} "
                             "is not an http(s) URL")
        return url.rstrip("/")


@dataclass(frozen=True)
class CountingEndpoint:
    """A provider's token-counting endpoint: [providers.NAME.counting] for where it is and what it
    answers, and the provider module's code for the body."""

    provider: str
    body: Callable[[str, Any, str | None], dict]  # (model, tools as tools_format gives them, system)

    def _fact(self, key: str) -> Any:
        return provider_table(self.provider)["counting"][key]

    @property
    def name(self) -> str:
        """PROVIDER in `--count-with PROVIDER:MODEL` (Google's is "gemini", the API's name)."""
        return str(self._fact("name"))

    @property
    def answer(self) -> str:
        """The answer's field holding the count."""
        return str(self._fact("answer"))

    @property
    def tools_format(self) -> str:
        return str(self._fact("tools_format"))

    @property
    def render(self) -> str:
        """The offline rendering closest to what the provider sends the model."""
        return str(self._fact("render"))

    @property
    def concurrency(self) -> int:
        return int(self._fact("concurrency"))

    @property
    def max_body_bytes(self) -> int:
        return int(self._fact("max_body_bytes"))

    def path(self, model: str) -> str:
        """The endpoint's path under the base URL for `model`."""
        return str(self._fact("path")).format(model=quote(model, safe=".-_"))

    def read(self, answer: Any) -> int | None:
        """The count in an answer: its `answer` field when that is a non-negative integer, else None."""
        v = answer.get(self.answer) if isinstance(answer, dict) else None
        return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def error_message(answer: Any) -> str:
    """The provider's own error type and message from an error body (all three nest it in "error")."""
    err = answer.get("error") if isinstance(answer, dict) else None
    if isinstance(err, dict):
        kind = err.get("type") or err.get("status") or err.get("code") or ""
        return f"{kind}: {err.get('message', '')}".strip(": ")
    if isinstance(err, str):
        return err
    return json.dumps(answer)[:200] if answer is not None else ""
