"""OpenAI's eval clients: Chat Completions (also any OpenAI-compatible server through a base URL:
vLLM, Ollama, llama.cpp's server, LM Studio, a LiteLLM proxy) and Responses, through the official
`openai` SDK. Each sends one query with the tools, temperature 0 where the model takes it and
tool_choice auto, and reads the answer's calls, text, refusal and usage."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from . import openai
from .asking import Answer, AskingClient

# Models that reject a temperature other than the default (OpenAI's reasoning models).
NO_TEMPERATURE = ("o1", "o3", "o4", "gpt-5")
LOCAL_MAX_TOKENS = 1024  # a cap sent to other servers, whose argument generation may not stop (notes)


def _takes_temperature(model: str) -> bool:
    return not model.lower().startswith(NO_TEMPERATURE)


class _OpenAIClient(AskingClient):
    provider = openai.PROVIDER
    sdk_module = "openai"
    key_optional = True

    def _client(self):
        import openai as sdk

        return sdk.OpenAI(api_key=self._key, base_url=self.base_url, http_client=self._http,
                          timeout=self.timeout, max_retries=self.max_retries)

    @property
    def label(self) -> str:
        return f"the server's {self.api.name}" if self.custom_url else super().label

    # The Batch API: upload a JSON Lines file, POST /batches, GET /batches/{id}, read the output file
    def batch_submit(self, items: list[tuple[str, dict]]) -> str:
        endpoint = "/v1" + self.api.path
        lines = "".join(json.dumps({"custom_id": cid, "method": "POST", "url": endpoint, "body": body},
                                   ensure_ascii=False) + "\n" for cid, body in items).encode("utf-8")
        upload = self.call(lambda sdk: sdk.files.create(file=("eval.jsonl", lines), purpose="batch"))
        made = self.call(lambda sdk: sdk.batches.create(input_file_id=upload.id, endpoint=endpoint,
                                                        completion_window="24h"))
        return str(made.id)

    def batch_state(self, batch_id: str) -> tuple[bool, str]:
        status = str(self.call(lambda sdk: sdk.batches.retrieve(batch_id)).status)
        return status in ("completed", "failed", "expired", "cancelled"), status

    def batch_results(self, batch_id: str) -> Iterator[tuple[str, dict | None, str]]:
        batch = self.call(lambda sdk: sdk.batches.retrieve(batch_id))
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            text = self.call(lambda sdk, f=file_id: sdk.files.content(f).text)
            for line in text.splitlines():
                doc = json.loads(line) if line.strip() else {}
                resp = doc.get("response") or {}
                if resp.get("status_code") == 200 and isinstance(resp.get("body"), dict):
                    yield str(doc.get("custom_id")), resp["body"], ""
                elif doc:
                    err = doc.get("error") or (resp.get("body") or {}).get("error") or {}
                    yield str(doc.get("custom_id")), None, str(err.get("message") if isinstance(err, dict) else err)


class ChatClient(_OpenAIClient):
    """POST /chat/completions."""

    api = openai.CHAT

    def body(self, query: str, tools: list, system: str | None) -> dict:
        messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": query}]
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if tools:
            body["tools"], body["tool_choice"] = tools, "auto"
        if _takes_temperature(self.model):
            body["temperature"] = 0
        if self.custom_url:
            body["max_tokens"] = LOCAL_MAX_TOKENS
        return body

    def _create(self, sdk, body: dict):
        return sdk.chat.completions.with_raw_response.create(**body)

    def follow_up(self, body: dict, answer: dict, results: list[tuple[str, str]], tools: list) -> dict:
        """The next request of a conversation: `body`'s messages, the answer's assistant message (its
        text and tool calls), then one `tool` message per (tool_call_id, content) of `results`, with
        `tools` as the tools offered now (Chat Completions: a tool result is a `tool` message)."""
        choices = answer.get("choices") or [{}]
        msg = (choices[0] if isinstance(choices[0], dict) else {}).get("message") or {}
        # content "" rather than null: OpenAI takes either with tool calls, and some compatible servers
        # (llama-cpp-python's) refuse null
        said: dict[str, Any] = {"role": "assistant", "content": msg.get("content") or ""}
        if msg.get("tool_calls"):
            said["tool_calls"] = [{"id": c.get("id"), "type": "function",
                                   "function": {"name": (c.get("function") or {}).get("name", ""),
                                                "arguments": (c.get("function") or {}).get("arguments") or ""}}
                                  for c in msg["tool_calls"] if isinstance(c, dict)]
        replies = [{"role": "tool", "tool_call_id": cid, "content": text} for cid, text in results]
        out = {**body, "messages": [*body["messages"], said, *replies]}
        if tools:
            out["tools"], out["tool_choice"] = tools, "auto"
        return out

    def call_ids(self, answer: dict) -> list[tuple[str, Any, Any]]:
        """(id, name, arguments) of each tool call of an answer, in order."""
        return [(str(i), n, a) for i, n, a in openai.chat_tool_calls(answer)]

    def read(self, answer: dict) -> Answer:
        choices = answer.get("choices") or [{}]
        first = choices[0] if isinstance(choices[0], dict) else {}
        msg = first.get("message") or {}
        calls = [(name, args) for _, name, args in openai.chat_tool_calls({"choices": [first]})]
        usage = answer.get("usage")
        return Answer(calls, msg.get("content") or "", openai.chat_usage(usage) if isinstance(usage, dict)
                      and "prompt_tokens" in usage else (0, 0, 0, 0, 0),
                      str(first.get("finish_reason") or ""), msg.get("refusal") or "")


class ResponsesClient(_OpenAIClient):
    """POST /responses."""

    api = openai.RESPONSES

    def body(self, query: str, tools: list, system: str | None) -> dict:
        body: dict[str, Any] = {"model": self.model, "input": [{"role": "user", "content": query}]}
        if system:
            body["instructions"] = system
        if tools:
            body["tools"], body["tool_choice"] = tools, "auto"
        if _takes_temperature(self.model):
            body["temperature"] = 0
        return body

    def _create(self, sdk, body: dict):
        return sdk.responses.with_raw_response.create(**body)

    def read(self, answer: dict) -> Answer:
        calls = [(name, args) for _, name, args in openai.responses_tool_calls(answer)]
        text, refusal = [], []
        for item in answer.get("output") or []:
            if isinstance(item, dict) and item.get("type") == "message":
                for part in item.get("content") or []:
                    if isinstance(part, dict) and part.get("type") == "output_text":
                        text.append(str(part.get("text") or ""))
                    elif isinstance(part, dict) and part.get("type") == "refusal":
                        refusal.append(str(part.get("refusal") or ""))
        usage = answer.get("usage")
        return Answer(calls, "".join(text), openai.responses_usage(usage) if isinstance(usage, dict) else
                      (0, 0, 0, 0, 0), str(answer.get("status") or ""), "".join(refusal))
