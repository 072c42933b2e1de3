"""The wire formats of the providers' token-counting endpoints: URLs, headers, bodies, answers.

Everything here is pure: it builds request bodies from tool lists and reads answers, with no I/O.
Formats as documented by each provider (checked 2026-11-29):
- Anthropic: `POST /v1/messages/count_tokens`, headers `x-api-key` and `anthropic-version`,
  body {model, messages, system?, tools?}, answer {"input_tokens": N}.
- OpenAI: `POST /v1/responses/input_tokens`, `Authorization: Bearer`, body {model, input,
  instructions?, tools?}, answer {"object": "response.input_tokens", "input_tokens": N}.
- Gemini: `POST /v1beta/models/{model}:countTokens`, header `x-goog-api-key`, body
  {"generateContentRequest": {model, contents, systemInstruction?, tools?}}, answer {"totalTokens": N}.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from ..errors import InputError

# The one user message every counted request carries: the endpoints require a non-empty
# conversation, and the same message in every request cancels out of the differences.
PROBE = "Hi"
ANTHROPIC_VERSION = "2023-06-01"


@dataclass(frozen=True)
class Provider:
    """One provider's counting endpoint: where it is, how to authenticate, how to talk to it."""

    name: str
    key_vars: tuple[str, ...]  # environment variables holding the key, first set wins
    base_url_var: str  # environment variable overriding the base URL (as the provider's SDK reads it)
    default_base_url: str
    tools_format: str  # toolsurvey.inputs.formats.dump format of the `tools` value
    render: str  # the offline rendering closest to what the provider sends the model
    concurrency: int  # requests in flight at once (well under the lowest tier's rate limit)
    max_body_bytes: int  # the documented request size limit
    path: Callable[[str], str]
    headers: Callable[[str], dict[str, str]]
    body: Callable[[str, Any, str | None], dict]
    read: Callable[[Any], int | None]


def _anthropic_body(model: str, tools: Any, system: str | None) -> dict:
    body: dict[str, Any] = {"model": model, "messages": [{"role": "user", "content": PROBE}]}
    if system:
        body["system"] = system
    if tools:
        body["tools"] = tools
    return body


def _openai_body(model: str, tools: Any, system: str | None) -> dict:
    body: dict[str, Any] = {"model": model, "input": PROBE}
    if system:
        body["instructions"] = system
    if tools:
        body["tools"] = tools
    return body


def _gemini_body(model: str, tools: Any, system: str | None) -> dict:
    # `contents` alone cannot carry tools: the whole generateContentRequest is counted instead,
    # for every request, so that all of them are counted the same way.
    req: dict[str, Any] = {"model": f"models/{model}",
                           "contents": [{"role": "user", "parts": [{"text": PROBE}]}]}
    if system:
        req["systemInstruction"] = {"parts": [{"text": system}]}
    if tools and tools.get("functionDeclarations"):
        req["tools"] = [tools]
    return {"generateContentRequest": req}


def _int_field(name: str) -> Callable[[Any], int | None]:
    def read(answer: Any) -> int | None:
        v = answer.get(name) if isinstance(answer, dict) else None
        return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None
    return read


PROVIDERS: dict[str, Provider] = {
    "anthropic": Provider(
        "anthropic", ("ANTHROPIC_API_KEY",), "ANTHROPIC_BASE_URL", "https://api.anthropic.com",
        "anthropic", "anthropic", 4, 32_000_000,
        path=lambda model: "/v1/messages/count_tokens",
        headers=lambda key: {"x-api-key": key, "anthropic-version": ANTHROPIC_VERSION},
        body=_anthropic_body, read=_int_field("input_tokens")),
    "openai": Provider(
        "openai", ("OPENAI_API_KEY",), "OPENAI_BASE_URL", "https://api.openai.com/v1",
        "openai-responses", "openai", 4, 32_000_000,
        path=lambda model: "/responses/input_tokens",
        headers=lambda key: {"authorization": f"Bearer {key}"},
        body=_openai_body, read=_int_field("input_tokens")),
    "gemini": Provider(
        "gemini", ("GEMINI_API_KEY", "GOOGLE_API_KEY"), "GOOGLE_GEMINI_BASE_URL",
        "https://generativelanguage.googleapis.com",
        "gemini", "json", 4, 20_000_000,
        path=lambda model: f"/v1beta/models/{quote(model, safe='.-_')}:countTokens",
        headers=lambda key: {"x-goog-api-key": key},
        body=_gemini_body, read=_int_field("totalTokens")),
}


def parse_target(target: str) -> tuple[Provider, str]:
    """Split `PROVIDER:MODEL`; raises InputError for an unknown provider or a missing model."""
    provider, sep, model = (target or "").partition(":")
    if provider.strip().lower() not in PROVIDERS:
        raise InputError(f"unknown provider {provider!r} in {target!r}; expected PROVIDER:MODEL "
                         f"with PROVIDER one of: {', '.join(PROVIDERS)}")
    model = model.strip()
    if not sep or not model:
        raise InputError(f"no model in {target!r}; expected PROVIDER:MODEL, "
                         f"e.g. anthropic:claude-sonnet-4-5, openai:gpt-5 or gemini:gemini-2.5-flash")
    if any(c.isspace() or c in "/?#" for c in model):
        raise InputError(f"model name {model!r} has a space, '/', '?' or '#'; expected a model id such as gpt-5")
    return PROVIDERS[provider.strip().lower()], model


def api_key(provider: Provider, environ: dict[str, str] | None = None) -> str:
    """The key from the provider's environment variable; raises InputError naming the variable."""
    env = os.environ if environ is None else environ
    for var in provider.key_vars:
        if env.get(var, "").strip():
            return env[var].strip()
    names = " or ".join(provider.key_vars)
    raise InputError(f"no {provider.name} API key: set {names} in the environment "
                     f"(keys are read from the environment only), or use --dry-run to see what would be sent")


def base_url(provider: Provider, override: str | None = None, environ: dict[str, str] | None = None) -> str:
    """The base URL: the option, else the provider's SDK environment variable, else the default."""
    env = os.environ if environ is None else environ
    url = override or env.get(provider.base_url_var) or provider.default_base_url
    if not url.startswith(("http://", "https://")):
        raise InputError(f"base URL {url!r} for {provider.name} is not an http(s) URL")
    return url.rstrip("/")


def error_message(answer: Any) -> str:
    """The provider's own error type and message from an error body (all three nest it in "error")."""
    err = answer.get("error") if isinstance(answer, dict) else None
    if isinstance(err, dict):
        kind = err.get("type") or err.get("status") or err.get("code") or ""
        return f"{kind}: {err.get('message', '')}".strip(": ")
    if isinstance(err, str):
        return err
    return json.dumps(answer)[:200] if answer is not None else ""
