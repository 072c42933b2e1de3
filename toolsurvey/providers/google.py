"""Google (the Gemini API): no rendering of its own (its models are measured with the `json`
rendering), the token-counting endpoint (`--count-with gemini:MODEL`) and the function declarations
its `tools` carry. Its facts (default model, key, base URL, caching, limits, schema facts) are
providers.toml's [providers.google], [caching.google], [limits.google] and [schemas.google]."""

from __future__ import annotations

from typing import Any

from .endpoints import PROBE, CountingEndpoint, Provider

NAME = "google"


def _count_body(model: str, tools: Any, system: str | None) -> dict:
    # `contents` alone cannot carry tools: the whole generateContentRequest is counted instead,
    # for every request, so that all of them are counted the same way.
    req: dict[str, Any] = {"model": f"models/{model}",
                           "contents": [{"role": "user", "parts": [{"text": PROBE}]}]}
    if system:
        req["systemInstruction"] = {"parts": [{"text": system}]}
    if tools and tools.get("functionDeclarations"):
        req["tools"] = [tools]
    return {"generateContentRequest": req}


def _headers(key: str) -> dict[str, str]:
    return {"x-goog-api-key": key}


PROVIDER = Provider(NAME, _headers, counting=CountingEndpoint(NAME, _count_body))
