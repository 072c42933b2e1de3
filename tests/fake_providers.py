"""The three providers' token-counting endpoints as an `httpx.MockTransport` (the client takes a
transport, so no server and no socket): `FakeProviders.transport` answers for the base URL `url`.

It checks every request against the documented shape (headers, path, body keys and types) and
answers with counts it computes itself with tiktoken: Anthropic and Gemini with cl100k_base (so
that they differ from toolsurvey's o200k_base estimates, as the real tokenizers do), OpenAI with
o200k_base. A request with tools also carries a fixed tool-use overhead, as the real ones do.
Tests script failures (status, headers, body, delay) through `fail_next`; a delay longer than the
request's read timeout ends in httpx.ReadTimeout, as a real transport's would.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field

import httpx
import tiktoken
from _oracle import compact

from toolsurvey.core.tokens import shipped_ranks

KEY = "sk-test-Zq8vTOPSECRET-1234567890abcdef"
MODELS = {"anthropic": {"claude-sonnet-4-5", "claude-haiku-4-5"}, "openai": {"gpt-5", "gpt-4o"},
          "gemini": {"gemini-2.5-flash"}}
# The fixed tokens a request with tools carries (the tool-use system prompt or its wrapper).
TOOL_OVERHEAD = {"anthropic": 346, "openai": 9, "gemini": 5}
ENCODING = {"anthropic": "cl100k_base", "openai": "o200k_base", "gemini": "cl100k_base"}
NAME_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def _encoding(name: str) -> tiktoken.Encoding:
    # tiktoken with the official ranks and the regex published in tiktoken_ext/openai_public.py;
    # the ranks come from the files toolsurvey ships (their sha256 is checked on read).
    pats = {
        "cl100k_base": r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
        "o200k_base": "|".join([
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""", r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""", r"""\s*[\r\n]+""", r"""\s+(?!\S)""", r"""\s+""",
        ]),
    }
    return tiktoken.Encoding(f"fake-{name}", pat_str=pats[name], mergeable_ranks=shipped_ranks(name),
                             special_tokens={})


_ENC: dict[str, tiktoken.Encoding] = {}


def tokens(text: str, provider: str) -> int:
    name = ENCODING[provider]
    if name not in _ENC:
        _ENC[name] = _encoding(name)
    return len(_ENC[name].encode_ordinary(text))


def expected_count(provider: str, tools: list | None, system: str | None, message: str = "Hi") -> int:
    """What the fake answers for a request: the oracle tests compare figures against."""
    n = 3 + tokens(message, provider)
    if system:
        n += 2 + tokens(system, provider)
    if tools:
        n += TOOL_OVERHEAD[provider] + tokens(compact(tools), provider)
    return n


class Invalid(Exception):
    pass


def _check(cond: bool, what: str) -> None:
    if not cond:
        raise Invalid(what)


def validate_anthropic(headers, body) -> tuple[list | None, str | None]:
    _check(headers.get("anthropic-version") == "2023-06-01", "anthropic-version header missing or unknown")
    known = {"model", "messages", "system", "tools", "tool_choice", "thinking", "mcp_servers"}
    _check(set(body) <= known, f"unknown body keys {sorted(set(body) - known)}")
    _check(isinstance(body.get("model"), str), "model: expected a string")
    msgs = body.get("messages")
    _check(isinstance(msgs, list) and msgs, "messages: expected a non-empty list")
    for m in msgs:
        _check(isinstance(m, dict) and m.get("role") in ("user", "assistant"), "messages[]: role user/assistant")
        _check(isinstance(m.get("content"), (str, list)) and m["content"], "messages[]: content required")
    system = body.get("system")
    _check(system is None or isinstance(system, str), "system: expected a string")
    tools = body.get("tools")
    if tools is not None:
        _check(isinstance(tools, list) and tools, "tools: expected a non-empty list")
        for t in tools:
            _check(isinstance(t, dict) and set(t) <= {"name", "description", "input_schema", "cache_control", "type"},
                   f"tools[]: unexpected keys in {list(t)}")
            _check(isinstance(t.get("name"), str) and bool(NAME_RE.match(t["name"])), "tools[].name: ^[a-zA-Z0-9_-]{1,64}$")
            _check("description" not in t or isinstance(t["description"], str), "tools[].description: string")
            _check(isinstance(t.get("input_schema"), dict), "tools[].input_schema: required object")
    return tools, system


def validate_openai(headers, body) -> tuple[list | None, str | None]:
    _check(set(body) <= {"model", "input", "instructions", "tools", "tool_choice", "parallel_tool_calls",
                         "reasoning", "text", "truncation", "conversation", "previous_response_id"},
           f"unknown body keys {sorted(body)}")
    _check(isinstance(body.get("model"), str), "model: expected a string")
    _check(isinstance(body.get("input"), (str, list)), "input: expected a string or a list of items")
    system = body.get("instructions")
    _check(system is None or isinstance(system, str), "instructions: expected a string")
    tools = body.get("tools")
    if tools is not None:
        _check(isinstance(tools, list), "tools: expected a list")
        for t in tools:
            _check(isinstance(t, dict) and t.get("type") == "function", "tools[].type: 'function'")
            _check(set(t) <= {"type", "name", "description", "parameters", "strict"}, f"tools[]: keys {list(t)}")
            _check(isinstance(t.get("name"), str) and bool(NAME_RE.match(t["name"])), "tools[].name")
            _check(isinstance(t.get("parameters"), dict), "tools[].parameters: required object")
    return tools, system


def validate_gemini(headers, body, model: str) -> tuple[list | None, str | None]:
    _check(set(body) <= {"contents", "generateContentRequest"} and len(body) == 1,
           "expected exactly one of contents or generateContentRequest")
    req = body.get("generateContentRequest")
    if req is None:
        _check(isinstance(body["contents"], list), "contents: expected a list")
        return None, None
    _check(set(req) <= {"model", "contents", "systemInstruction", "tools", "toolConfig", "generationConfig",
                        "safetySettings", "cachedContent"}, f"generateContentRequest keys {sorted(req)}")
    _check(req.get("model") == f"models/{model}", "generateContentRequest.model must be models/{model}")
    contents = req.get("contents")
    _check(isinstance(contents, list) and contents, "contents: expected a non-empty list")
    for c in contents:
        _check(isinstance(c.get("parts"), list) and all("text" in p for p in c["parts"]), "contents[].parts[].text")
    si = req.get("systemInstruction")
    system = None
    if si is not None:
        _check(isinstance(si.get("parts"), list), "systemInstruction.parts: expected a list")
        system = "".join(p.get("text", "") for p in si["parts"])
    tools = req.get("tools")
    if tools is not None:
        _check(isinstance(tools, list) and all(isinstance(t, dict) for t in tools), "tools: list of Tool objects")
        for t in tools:
            for d in t.get("functionDeclarations", []):
                _check(isinstance(d.get("name"), str) and re.match(r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$", d["name"]),
                       "functionDeclarations[].name")
                _check(not ("parameters" in d and "parametersJsonSchema" in d), "parameters and parametersJsonSchema")
                _check(isinstance(d.get("parametersJsonSchema", d.get("parameters", {})), dict), "parameters object")
    return tools, system


@dataclass
class Reply:
    status: int
    body: bytes | str | dict = b""
    headers: dict = field(default_factory=dict)
    delay: float = 0.0
    content_type: str = "application/json"


class FakeProviders:
    """The endpoints: `transport` for a client, `url` the base URL they answer for, the `requests`
    they received, `fail_next(...)` to script failures. A context manager, as a server would be."""

    def __init__(self, key: str = KEY, max_body_bytes: int | None = None):
        self.key = key
        self.max_body_bytes = max_body_bytes
        self.requests: list[dict] = []
        self.invalid: list[str] = []
        self._script: list[Reply] = []
        self._lock = threading.Lock()
        self.url = "https://providers.test"
        self.transport = httpx.MockTransport(self._handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def fail_next(self, *replies: Reply) -> None:
        with self._lock:
            self._script.extend(replies)

    def count_for(self, provider: str) -> int:
        return sum(1 for r in self.requests if r["provider"] == provider)

    def _next_scripted(self) -> Reply | None:
        with self._lock:
            return self._script.pop(0) if self._script else None

    def _handle(self, request: httpx.Request) -> httpx.Response:
        raw = request.read()
        url = str(request.url)
        path = url[len(self.url):].split("?")[0] if url.startswith(self.url + "/") else "/?"
        provider, model, reply = self._answer(path, {k.lower(): v for k, v in request.headers.items()}, raw)
        with self._lock:
            self.requests.append({"provider": provider, "model": model, "path": path,
                                  "bytes": len(raw), "body": raw.decode("utf-8", "replace")})
        if reply.delay:
            read = (request.extensions.get("timeout") or {}).get("read")
            if read is not None and reply.delay > read:
                time.sleep(read)
                raise httpx.ReadTimeout("timed out", request=request)
            time.sleep(reply.delay)
        data = reply.body if isinstance(reply.body, bytes) else (
            reply.body.encode() if isinstance(reply.body, str) else json.dumps(reply.body).encode())
        return httpx.Response(reply.status, headers={"content-type": reply.content_type, **reply.headers},
                              content=data, request=request)

    def _answer(self, path: str, headers: dict, raw: bytes) -> tuple[str, str, Reply]:
        m_gem = re.fullmatch(r"/v1beta/models/([^/:]+):countTokens", path)
        if path == "/v1/messages/count_tokens":
            provider, key_ok = "anthropic", headers.get("x-api-key") == self.key
        elif path == "/v1/responses/input_tokens":
            provider, key_ok = "openai", headers.get("authorization") == f"Bearer {self.key}"
        elif m_gem:
            provider, key_ok = "gemini", headers.get("x-goog-api-key") == self.key
        else:
            return "?", "", Reply(404, "<!doctype html><title>404 Not Found</title>", content_type="text/html")
        scripted = self._next_scripted()
        if scripted is not None:
            return provider, "", scripted
        if not key_ok and provider == "gemini":  # Gemini answers a bad key with 400, as documented
            return provider, "", Reply(400, {"error": {"code": 400, "status": "INVALID_ARGUMENT",
                                                       "message": "API key not valid. Please pass a valid API key."}})
        if not key_ok:
            return provider, "", _error(provider, 401, "authentication_error",
                                        f"Incorrect API key provided: {headers.get('x-api-key') or headers.get('authorization') or headers.get('x-goog-api-key')}")
        if self.max_body_bytes and len(raw) > self.max_body_bytes:
            return provider, "", _error(provider, 413, "request_too_large", "Request exceeds the maximum allowed size")
        try:
            body = json.loads(raw)
            model = m_gem.group(1) if m_gem else body.get("model")
            if model not in MODELS[provider]:
                return provider, str(model), _error(provider, 404, "not_found_error", f"model: {model}")
            if provider == "anthropic":
                tools, system = validate_anthropic(headers, body)
            elif provider == "openai":
                tools, system = validate_openai(headers, body)
            else:
                tools, system = validate_gemini(headers, body, model)
                if tools:
                    tools = [d for t in tools for d in t.get("functionDeclarations", [])]
        except (Invalid, ValueError, AttributeError, TypeError) as e:
            self.invalid.append(f"{provider}: {e}")
            return provider, "", _error(provider, 400, "invalid_request_error", str(e))
        n = expected_count(provider, tools, system)
        answer = ({"totalTokens": n, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": n}]}
                  if provider == "gemini" else {"input_tokens": n})
        if provider == "openai":
            answer = {"object": "response.input_tokens", **answer}
        return provider, model, Reply(200, answer)


def _error(provider: str, status: int, kind: str, message: str) -> Reply:
    if provider == "anthropic":
        return Reply(status, {"type": "error", "error": {"type": kind, "message": message}})
    if provider == "openai":
        return Reply(status, {"error": {"message": message, "type": "invalid_request_error", "param": None,
                                        "code": "invalid_api_key" if status == 401 else kind}})
    gstatus = {401: "UNAUTHENTICATED", 404: "NOT_FOUND", 413: "INVALID_ARGUMENT", 400: "INVALID_ARGUMENT"}
    return Reply(status, {"error": {"code": status, "message": message, "status": gstatus.get(status, "INTERNAL")}})


def route_clients(monkeypatch, fake: FakeProviders) -> None:
    """Every counting Client made during the test (the CLI makes its own) sends through `fake`."""
    from toolsurvey.measuring.counting import client as module

    made = module.Client.__init__

    def init(self, *args, **kwargs):
        kwargs.setdefault("transport", fake.transport)
        made(self, *args, **kwargs)

    monkeypatch.setattr(module.Client, "__init__", init)
