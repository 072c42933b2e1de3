"""Anthropic: the `anthropic` rendering and its tool-use system prompt, the Messages API (its `tools`,
usage and tool_use blocks, as answers and the traces' provider logs hold them) and the token-counting
endpoint. Its facts (default model, key, base URL, caching, limits, searches, schema facts) are
providers.toml's [providers.anthropic], [anthropic], [caching.anthropic], [limits.anthropic],
[search.anthropic-*] and [schemas.anthropic]."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..core.choices import DEFAULT_ENCODING
from .constants import model_family, provider_constants, provider_table
from .endpoints import PROBE, CountingEndpoint, Provider, ToolApi, ToolResult, Usage, count, probe_body
from .render import Overhead, Rendering

NAME = "anthropic"


def family(model: str) -> tuple[str, dict]:
    """The tool-use system prompt sizes that apply to `model`; raises InputError if unknown."""
    return model_family(NAME, model, "Anthropic")


class AnthropicRendering(Rendering):
    """Anthropic's tool JSON (name, description, input_schema), plus the tool-use system prompt the
    API adds to a request with tools: its size per model family and tool_choice is Anthropic's
    published table ([anthropic] in providers.toml)."""

    def default_model(self) -> str:
        return str(provider_table(NAME)["default_model"])

    def overhead(self, model: str | None, tool_choice: str = "auto") -> Overhead:
        if not model:
            return Overhead()
        self.check_tool_choice(tool_choice)
        fam, spec = family(model)
        key = _prompt_key(tool_choice)
        why = f"the {fam} family's tool-use system prompt ({spec[key]} tokens)"
        if spec.get("assumed"):
            why += f" ({' '.join(spec['assumed'].split())})"
        return Overhead(int(spec[key]), why)

    def method(self, model: str | None, tool_choice: str = "auto") -> str:
        self.check_tool_choice(tool_choice)
        fam, spec = family(model or self.default_model())
        note = f"{self.description}; tool-use system prompt of the {fam} family for tool_choice={tool_choice}"
        if spec.get("assumed"):  # a family Anthropic's table does not list
            note += f" ({' '.join(spec['assumed'].split())})"
        return note


def _prompt_key(tool_choice: str) -> str:
    """The column of Anthropic's table a tool_choice reads: `auto` for auto and none, `any` otherwise."""
    return "auto" if tool_choice in ("auto", "none") else "any"


RENDERING = AnthropicRendering(
    NAME, "Anthropic tool JSON plus the documented tool-use system prompt, estimated with a tiktoken "
          "encoding (Claude's tokenizer is not public)",
    provider=NAME, tool_choices=("auto", "none", "any", "tool"), documents_overhead=True,
    tool_method="Anthropic tool JSON, estimated with a tiktoken encoding (Claude's tokenizer is not public; "
                "`toolsurvey calibrate` measures the gap)",
    estimate_note=f"Claude's tokenizer is not public: per-tool counts are estimates from an {DEFAULT_ENCODING} "
                  "count unless calibrated (toolsurvey calibrate)",
    schema_key="input_schema")


def source() -> str:
    """Where the tool-use system prompt sizes come from."""
    return str(provider_constants()[NAME]["source"])


# --- the Messages API: POST /v1/messages ------------------------------------------------------

def usage(u: dict) -> Usage:
    """The usage of a Messages answer in USAGE_FIELDS order: input, 5-minute and 1-hour cache
    writes, cache reads, output (input_tokens leaves out cache reads and writes)."""
    g = u.get
    inp, writes, read, out = (g("input_tokens"), g("cache_creation_input_tokens"), g("cache_read_input_tokens"),
                              g("output_tokens"))
    if not (inp.__class__ is writes.__class__ is read.__class__ is out.__class__ is int
            and min(inp, writes, read, out) >= 0):  # the usual case, checked at once; else field by field
        inp, writes, read, out = count(inp), count(writes), count(read), count(out)
    split = g("cache_creation")
    if split.__class__ is dict:
        hour = count(split.get("ephemeral_1h_input_tokens"))
        five = max(count(split.get("ephemeral_5m_input_tokens")), writes - hour)
    else:  # without the split, every write is a 5-minute write
        hour, five = 0, writes
    return inp, five, hour, read, out


def _owns_usage(u: dict) -> bool:
    return "prompt_tokens" not in u and "input_tokens_details" not in u  # the OpenAI APIs' marks


def tool_calls(answer: dict) -> Iterator[tuple[Any, Any, Any]]:
    """(id, name, input) of each tool_use block of a Messages answer."""
    for b in answer.get("content") or []:
        if isinstance(b, dict) and b.get("type") == "tool_use":
            yield b.get("id"), b.get("name", ""), b.get("input")


def tool_results(request: dict) -> Iterator[ToolResult]:
    """(tool_use_id, content, is_error) of each tool_result block a Messages request sends back."""
    for m in request.get("messages") or []:
        if isinstance(m, dict) and not (m.get("role") == "tool" and m.get("tool_call_id")) \
                and isinstance(m.get("content"), list):
            for b in m["content"]:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    yield str(b.get("tool_use_id")), b.get("content"), b.get("is_error") is True


MESSAGES = ToolApi("messages", NAME, "/v1/messages", "anthropic", _owns_usage, usage, tool_calls, tool_results)


# --- the token-counting endpoint: POST /v1/messages/count_tokens, and the key's headers ---------

def _count_body(model: str, tools: Any, system: str | None) -> dict:
    return probe_body(model, tools, system, probe=("messages", [{"role": "user", "content": PROBE}]),
                      system_key="system")


def _headers(key: str) -> dict[str, str]:
    return {"x-api-key": key, "anthropic-version": str(provider_table(NAME)["api_version"])}


PROVIDER = Provider(NAME, _headers, (RENDERING,), (MESSAGES,), CountingEndpoint(NAME, _count_body))


def tool_searches(answer: dict) -> list[dict]:
    """The server-side tool searches of a Messages answer, in order: {"id", "name", "input" (the
    query or pattern the model wrote), "found" (the tool names of its tool_reference blocks, None when
    it has no result), "error" (a tool_search_tool_result_error's code, else None)}. Shapes as the
    Tool search tool documentation gives them: a server_tool_use block, then a tool_search_tool_result
    whose content is a tool_search_tool_search_result holding tool_references."""
    out: dict[str, dict] = {}
    for b in answer.get("content") or []:
        if not isinstance(b, dict):
            continue
        if b.get("type") == "server_tool_use" and str(b.get("name", "")).startswith("tool_search_tool"):
            out[str(b.get("id"))] = {"id": str(b.get("id")), "name": b.get("name"), "input": b.get("input"),
                                     "found": None, "error": None}
        elif b.get("type") == "tool_search_tool_result":
            hit = out.setdefault(str(b.get("tool_use_id")), {"id": str(b.get("tool_use_id")), "name": None,
                                                              "input": None, "found": None, "error": None})
            c = b.get("content") if isinstance(b.get("content"), dict) else {}
            if c.get("type") == "tool_search_tool_result_error":
                hit["error"] = str(c.get("error_code") or "error")
            else:
                hit["found"] = [str(r.get("tool_name")) for r in c.get("tool_references") or []
                                if isinstance(r, dict) and r.get("type") == "tool_reference"]
    return list(out.values())


def search_requests(u: Any) -> int | None:
    """usage.server_tool_use.tool_search_requests of a Messages answer; None when the usage has none."""
    server = u.get("server_tool_use") if isinstance(u, dict) else None
    n = server.get("tool_search_requests") if isinstance(server, dict) else None
    return n if isinstance(n, int) and not isinstance(n, bool) and n >= 0 else None
