"""Anthropic's eval client: the Messages API through the official `anthropic` SDK. It sends one
query with the tools (the last one marked `cache_control` when caching, so the tool definitions are
a cached prefix), temperature 0 (when the installed SDK still takes it: anthropic 2.x dropped it) and
tool_choice auto, and reads the answer's tool_use blocks, text,
refusal (stop_reason "refusal") and usage."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from . import anthropic
from .asking import Answer, AskingClient, sdk_takes

MAX_TOKENS = 1024  # Messages requires max_tokens; a tool call fits well within it


class MessagesClient(AskingClient):
    """POST /v1/messages."""

    api = anthropic.MESSAGES
    provider = anthropic.PROVIDER
    sdk_module = "anthropic"

    def __init__(self, model: str, **kwargs):
        super().__init__(model, **kwargs)
        self._marked: tuple[Any, list] | None = None  # (tools given, the same with cache_control): one copy per run

    def _client(self):
        import anthropic as sdk

        return sdk.Anthropic(api_key=self._key, base_url=self.base_url, http_client=self._http,
                             timeout=self.timeout, max_retries=self.max_retries)

    def body(self, query: str, tools: list, system: str | None) -> dict:
        body: dict[str, Any] = {"model": self.model, "max_tokens": MAX_TOKENS,
                                "messages": [{"role": "user", "content": query}]}
        if sdk_takes("anthropic.resources.messages:Messages", "temperature"):
            body["temperature"] = 0
        if system:
            body["system"] = system
        if tools:
            if self.cache_tools:
                if self._marked is None or self._marked[0] is not tools:
                    self._marked = (tools, [*tools[:-1], {**tools[-1], "cache_control": {"type": "ephemeral"}}])
                tools = self._marked[1]
            body["tools"], body["tool_choice"] = tools, {"type": "auto"}
        return body

    def _create(self, sdk, body: dict):
        return sdk.messages.with_raw_response.create(**body)

    def deferred_body(self, query: str, tools: list, system: str | None, rules) -> dict:
        """A request with Anthropic's server-side tool search (`rules`, a SearchRules of providers.toml):
        the search tool first ({"type": its tool_type, "name": its tool_name}, the one tool not
        deferred), then every tool of `tools` with `defer_loading: true`, as the Tool search tool
        documentation shows. No cache_control is set: deferred tools are not part of the cached prefix."""
        body = self.body(query, [], system)
        deferred = [{**t, "defer_loading": True} for t in tools]
        body["tools"] = [{"type": rules.tool_type, "name": rules.tool_name}, *deferred]
        body["tool_choice"] = {"type": "auto"}
        return body

    def read(self, answer: dict) -> Answer:
        calls = [(name, args) for _, name, args in anthropic.tool_calls(answer)]
        text = "".join(str(b.get("text") or "") for b in answer.get("content") or []
                       if isinstance(b, dict) and b.get("type") == "text")
        stop = str(answer.get("stop_reason") or "")
        usage = answer.get("usage")
        return Answer(calls, text, anthropic.usage(usage) if isinstance(usage, dict) else (0, 0, 0, 0, 0),
                      stop, (text or "refused") if stop == "refusal" else "")

    def tool_searches(self, answer: dict) -> list[dict]:
        """The server-side tool searches of an answer (anthropic.tool_searches)."""
        return anthropic.tool_searches(answer)

    def search_requests(self, answer: dict) -> int | None:
        """usage.server_tool_use.tool_search_requests of an answer, None when absent."""
        return anthropic.search_requests(answer.get("usage"))

    # Message Batches: POST /v1/messages/batches, GET .../{id}, then its results (JSON Lines)
    def batch_submit(self, items: list[tuple[str, dict]]) -> str:
        reqs = [{"custom_id": cid, "params": body} for cid, body in items]
        return str(self.call(lambda sdk: sdk.messages.batches.create(requests=reqs)).id)

    def batch_state(self, batch_id: str) -> tuple[bool, str]:
        status = str(self.call(lambda sdk: sdk.messages.batches.retrieve(batch_id)).processing_status)
        return status == "ended", status

    def batch_results(self, batch_id: str) -> Iterator[tuple[str, dict | None, str]]:
        for item in self.call(lambda sdk: list(sdk.messages.batches.results(batch_id))):
            doc = item.model_dump(mode="json")
            result = doc.get("result") or {}
            if result.get("type") == "succeeded" and isinstance(result.get("message"), dict):
                yield str(doc.get("custom_id")), result["message"], ""
            else:
                err = result.get("error") or {}
                detail = (err.get("error") or err) if isinstance(err, dict) else {}
                yield str(doc.get("custom_id")), None, f"{result.get('type', 'failed')}: {detail.get('message', '')}".strip(": ")
