"""OpenAI: the `openai` rendering (the OpenAI Cookbook's function counting and its constants), the
Chat Completions and Responses APIs (their `tools`, usage and tool calls, as answers and the traces'
provider logs hold them) and the token-counting endpoint. Its facts (default model, key, base URL,
caching, limits, search, schema facts) are providers.toml's [providers.openai], [openai],
[caching.openai], [limits.openai], [search.openai] and [schemas.openai]."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..core.registry import Tool
from .constants import model_family, provider_constants, provider_table
from .endpoints import PROBE, CountingEndpoint, Provider, ToolApi, ToolResult, Usage, count, probe_body
from .render import Overhead, Rendered, Rendering
from .typescript import resolve_ref, type_segments

NAME = "openai"


def family(model: str) -> tuple[str, dict]:
    """The cookbook constants that apply to `model`; raises InputError for an unknown model."""
    return model_family(NAME, model, "OpenAI")


class OpenAIRendering(Rendering):
    """The cookbook's count of a function definition, with its per-function, per-property and
    per-request constants ([openai] in providers.toml)."""

    def default_model(self) -> str:
        return str(provider_table(NAME)["default_model"])

    def renderer(self, model: str | None) -> Callable[[Tool], Rendered]:
        consts = family(model or self.default_model())[1]
        return lambda tool: render_openai(tool, consts)

    def encoding(self, model: str | None) -> str:
        return str(family(model or self.default_model())[1]["encoding"])

    def overhead(self, model: str | None, tool_choice: str = "auto") -> Overhead:
        if not model:
            return Overhead()
        fam, spec = family(model)
        return Overhead(int(spec["func_end"]), f"OpenAI's per-request function constant ({spec['func_end']} tokens, {fam})")

    def method(self, model: str | None, tool_choice: str = "auto") -> str:
        fam = family(model or self.default_model())[0]
        return f"{self.description}; constants of the {fam} family ({provider_constants()[NAME]['source']})"


RENDERING = OpenAIRendering(
    NAME, "OpenAI's function-definition token count (cookbook method and constants)", provider=NAME,
    tool_method="OpenAI's function-definition count (cookbook method and constants)", json=False)


def _strip_period(s: str) -> str:
    return s[:-1] if s.endswith(".") else s


def render_openai(tool: Tool, c: dict[str, int]) -> Rendered:
    """The cookbook's count: `name:description`, one `key:type:description` line per property,
    enum items, and per-function/per-property constants. A property with nested structure (an
    object with properties, an array of such, a `$ref` or an `anyOf`), which the cookbook leaves
    out, has as its type the TypeScript text openai-chat-tokens documents (toolsurvey.providers.typescript)."""
    r = Rendered(constants={"structure": c["func_init"]})
    desc = _strip_period(tool.description or "")
    r.chunks.append([(f"{tool.name}:", "name"), (desc, "description")])
    _openai_properties(tool.input_schema, c, r)
    return r


def _nested(prop: dict, root: Any) -> bool:
    """Whether a property's type needs more than the cookbook's one-word type."""
    if "$ref" in prop or isinstance(prop.get("anyOf"), list):
        return True
    if prop.get("type") == "object" and isinstance(prop.get("properties"), dict) and prop["properties"]:
        return True
    items = prop.get("items") if prop.get("type") == "array" else None
    return isinstance(items, dict) and (_nested(items, root) or resolve_ref(items, root)[0] is not items)


def _openai_properties(schema: Any, c: dict[str, int], r: Rendered) -> None:
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict) or not props:
        return
    r.constants["structure"] += c["prop_init"]
    for key, prop in props.items():
        r.constants["structure"] += c["prop_key"]
        prop = prop if isinstance(prop, dict) else {}
        pdesc = prop.get("description")
        pdesc = _strip_period(pdesc) if isinstance(pdesc, str) else ""
        if _nested(prop, schema):
            r.chunks.append([(f"{key}:", "schema"), *type_segments(prop, 0, schema), (":", "schema"),
                             (pdesc, "param_descriptions")])
            continue
        ptype = prop.get("type", "")
        ptype = "|".join(map(str, ptype)) if isinstance(ptype, list) else str(ptype)
        enum = prop.get("enum")
        if isinstance(enum, list):
            r.constants["structure"] += c["enum_init"] + c["enum_item"] * len(enum)
            r.chunks.extend([[(str(item), "schema")] for item in enum])
        r.chunks.append([(f"{key}:{ptype}:", "schema"), (pdesc, "param_descriptions")])


# --- Chat Completions: POST /chat/completions ----------------------------------------------------

def chat_usage(u: dict) -> Usage:
    """A Chat Completions usage in USAGE_FIELDS order: cached tokens are inside prompt_tokens."""
    read = count((u.get("prompt_tokens_details") or {}).get("cached_tokens"))
    return max(count(u["prompt_tokens"]) - read, 0), 0, 0, read, count(u.get("completion_tokens"))


def chat_tool_calls(answer: dict) -> Iterator[tuple[Any, Any, Any]]:
    """(id, name, arguments) of each tool call in a Chat Completions answer's choices."""
    for ch in answer.get("choices") or []:
        for tc in ((ch or {}).get("message") or {}).get("tool_calls") or []:
            fn = tc.get("function") or {}
            yield tc.get("id"), fn.get("name", ""), fn.get("arguments")


def chat_tool_results(request: dict) -> Iterator[ToolResult]:
    """(tool_call_id, content, False) of each `tool` message a Chat Completions request sends back."""
    for m in request.get("messages") or []:
        if isinstance(m, dict) and m.get("role") == "tool" and m.get("tool_call_id"):
            yield str(m["tool_call_id"]), m.get("content"), False


CHAT = ToolApi("chat-completions", NAME, "/chat/completions", "openai-chat", lambda u: "prompt_tokens" in u,
               chat_usage, chat_tool_calls, chat_tool_results)


# --- Responses: POST /responses ---------------------------------------------------------------

def responses_usage(u: dict) -> Usage:
    """A Responses usage in USAGE_FIELDS order: cached tokens are inside input_tokens."""
    read = count((u.get("input_tokens_details") or {}).get("cached_tokens"))
    return max(count(u.get("input_tokens")) - read, 0), 0, 0, read, count(u.get("output_tokens"))


def responses_tool_calls(answer: dict) -> Iterator[tuple[Any, Any, Any]]:
    """(call_id, name, arguments) of each function_call item of a Responses answer's output."""
    for item in answer.get("output") or []:
        if isinstance(item, dict) and item.get("type") == "function_call":
            yield item.get("call_id") or item.get("id"), item.get("name", ""), item.get("arguments")


def responses_tool_results(request: dict) -> Iterator[ToolResult]:
    """(call_id, output, False) of each function_call_output item of a Responses request's input."""
    for item in request.get("input") if isinstance(request.get("input"), list) else []:
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            yield str(item.get("call_id")), item.get("output"), False


RESPONSES = ToolApi("responses", NAME, "/responses", "openai-responses",
                    lambda u: "prompt_tokens" not in u and "input_tokens_details" in u,
                    responses_usage, responses_tool_calls, responses_tool_results)


# --- the token-counting endpoint: POST /responses/input_tokens, and the key's headers ----------

def _count_body(model: str, tools: Any, system: str | None) -> dict:
    return probe_body(model, tools, system, probe=("input", PROBE), system_key="instructions")


def _headers(key: str) -> dict[str, str]:
    return {"authorization": f"Bearer {key}"}


PROVIDER = Provider(NAME, _headers, (RENDERING,), (CHAT, RESPONSES), CountingEndpoint(NAME, _count_body))
