"""Chat Completions, Responses and Anthropic Messages as an `httpx.MockTransport`, answering in each
API's documented format (OpenAI API reference: chat.completion and response objects; Anthropic
Messages API: message object and error shapes). A test scripts what the model "does" per query with
`decide(query, tool_names) -> Move`; `fail_next` queues HTTP failures. Requests are recorded, so a
test counts what reached the server."""

from __future__ import annotations

import importlib
import json
import threading
import time
from dataclasses import dataclass, field

import httpx


@dataclass
class Move:
    """What the model answers: calls (name, arguments as text or object), text, or a refusal."""

    calls: list = field(default_factory=list)
    text: str = ""
    refusal: str = ""


@dataclass
class Failure:
    status: int
    body: dict
    headers: dict = field(default_factory=dict)
    delay: float = 0.0


class FakeLLM:
    def __init__(self, decide, url: str = "http://llm.test/v1", prompt_tokens: int = 1000, cached_tokens: int = 0):
        self.decide, self.url = decide, url
        self.prompt_tokens, self.cached_tokens = prompt_tokens, cached_tokens
        self.requests: list[dict] = []
        self._failures: list[Failure] = []
        self._lock = threading.Lock()
        self.transport = httpx.MockTransport(lambda r: self._handle(r, httpx))
        self.batches: dict[str, dict] = {}  # the batch lifecycle: id -> {"kind", "items", "polls", ...}
        self.files: dict[str, bytes] = {}
        self.batch_errors: set[str] = set()  # custom_ids a batch answers with an error

    def client(self, sdk: str):
        """An HTTP client for the SDK `sdk` ("openai", "anthropic") sending to this server: of the httpx
        package the SDK is built on (newer SDKs use httpx2, whose API is httpx's)."""
        lib = http_lib(sdk)
        return lib.Client(transport=lib.MockTransport(lambda r: self._handle(r, lib)))

    def fail_next(self, *failures: Failure) -> None:
        with self._lock:
            self._failures.extend(failures)

    def _handle(self, request, lib):
        raw = request.read()
        path = request.url.path
        if "/batches" in path or "/files" in path:
            with self._lock:
                self.requests.append({"path": path, "method": request.method, "body": None, "headers": {}})
            return lib.Response(200, content=self._batch(request.method, path, raw, str(request.url)),
                                headers={"content-type": "application/json"}, request=request)
        body = json.loads(raw)
        self._tools = body.get("tools", [])
        with self._lock:
            self.requests.append({"path": path, "body": body, "headers": dict(request.headers)})
            fail = self._failures.pop(0) if self._failures else None
        if fail is not None:
            if fail.delay:
                read = (request.extensions.get("timeout") or {}).get("read")
                if read is not None and fail.delay > read:
                    raise lib.ReadTimeout("timed out", request=request)
                time.sleep(fail.delay)
            if fail.status:
                return lib.Response(fail.status, json=fail.body, headers=fail.headers, request=request)
        if path.endswith("/chat/completions"):
            return lib.Response(200, json=self._chat(body), request=request)
        if path.endswith("/responses"):
            return lib.Response(200, json=self._responses(body), request=request)
        if path.endswith("/messages"):
            return lib.Response(200, json=self._messages(body), request=request)
        return lib.Response(404, json={"error": {"message": "no such path", "type": "invalid_request_error"}})

    def _move(self, query: str, names: list[str]) -> Move:
        return self.decide(query, names, self._tools)

    def _chat(self, body: dict) -> dict:
        self._tools = body.get("tools", [])
        return self._chat_answer(body)

    def _responses(self, body: dict) -> dict:
        self._tools = body.get("tools", [])
        return self._responses_answer(body)

    def _messages(self, body: dict) -> dict:
        self._tools = body.get("tools", [])
        return self._messages_answer(body)

    def _chat_answer(self, body: dict) -> dict:
        query = body["messages"][-1]["content"]
        names = [t["function"]["name"] for t in body.get("tools", [])]
        m = self._move(query, names)
        calls = [{"id": f"call_{i}", "type": "function",
                  "function": {"name": n, "arguments": a if isinstance(a, str) else json.dumps(a)}}
                 for i, (n, a) in enumerate(m.calls)]
        msg = {"role": "assistant", "content": m.text or None, "refusal": m.refusal or None, "annotations": []}
        if calls:
            msg["tool_calls"] = calls
        return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1767225600, "model": body["model"],
                "choices": [{"index": 0, "message": msg, "logprobs": None,
                             "finish_reason": "tool_calls" if calls else "stop"}],
                "usage": {"prompt_tokens": self.prompt_tokens, "completion_tokens": 20,
                          "total_tokens": self.prompt_tokens + 20,
                          "prompt_tokens_details": {"cached_tokens": self.cached_tokens, "audio_tokens": 0}}}

    def _responses_answer(self, body: dict) -> dict:
        query = body["input"][-1]["content"]
        m = self._move(query, [t["name"] for t in body.get("tools", [])])
        out = [{"type": "function_call", "id": f"fc_{i}", "call_id": f"call_{i}", "name": n,
                "arguments": a if isinstance(a, str) else json.dumps(a), "status": "completed"}
               for i, (n, a) in enumerate(m.calls)]
        if m.text or m.refusal:
            part = ({"type": "refusal", "refusal": m.refusal} if m.refusal
                    else {"type": "output_text", "text": m.text, "annotations": []})
            out.append({"type": "message", "id": "msg_1", "status": "completed", "role": "assistant", "content": [part]})
        return {"id": "resp_1", "object": "response", "created_at": 1767225600, "status": "completed",
                "model": body["model"], "output": out,
                "usage": {"input_tokens": self.prompt_tokens, "input_tokens_details": {"cached_tokens": self.cached_tokens},
                          "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0},
                          "total_tokens": self.prompt_tokens + 20}}

    def _messages_answer(self, body: dict) -> dict:
        query = body["messages"][-1]["content"]
        m = self._move(query, [t["name"] for t in body.get("tools", [])])
        content = ([{"type": "text", "text": m.text}] if m.text else []) + [
            {"type": "tool_use", "id": f"toolu_{i}", "name": n, "input": a if isinstance(a, dict) else json.loads(a)}
            for i, (n, a) in enumerate(m.calls)]
        stop = "refusal" if m.refusal else ("tool_use" if m.calls else "end_turn")
        cached = bool(body.get("tools")) and body["tools"][-1].get("cache_control") is not None
        first = cached and not any(r["path"].endswith("/messages") for r in self.requests[:-1])
        tools_part = self.prompt_tokens - 50
        return {"id": "msg_1", "type": "message", "role": "assistant", "model": body["model"], "content": content,
                "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": 50 if cached else self.prompt_tokens, "output_tokens": 20,
                          "cache_creation_input_tokens": tools_part if first else 0,
                          "cache_read_input_tokens": tools_part if cached and not first else 0}}


def _batch_object(fake: FakeLLM, bid: str, url: str) -> dict:
    b = fake.batches[bid]
    n = len(b["items"])
    done = b["polls"] >= 2
    if b["kind"] == "anthropic":  # Message Batches: in_progress, then ended, with a results_url
        return {"id": bid, "type": "message_batch", "processing_status": "ended" if done else "in_progress",
                "request_counts": {"processing": 0 if done else n, "succeeded": n if done else 0, "errored": 0,
                                   "canceled": 0, "expired": 0},
                "ended_at": "2026-12-06T01:00:00Z" if done else None, "created_at": "2026-12-06T00:00:00Z",
                "expires_at": "2026-12-07T00:00:00Z", "archived_at": None, "cancel_initiated_at": None,
                "results_url": url.split("/v1/")[0] + f"/v1/messages/batches/{bid}/results" if done else None}
    status = ("validating", "in_progress", "completed")[min(b["polls"], 2)]
    return {"id": bid, "object": "batch", "endpoint": b["endpoint"], "errors": None, "input_file_id": b["file"],
            "completion_window": "24h", "status": status, "output_file_id": f"file-out-{bid}" if done else None,
            "error_file_id": None, "created_at": 1767225600, "in_progress_at": None, "expires_at": 1767312000,
            "completed_at": 1767229200 if done else None, "failed_at": None, "expired_at": None,
            "request_counts": {"total": n, "completed": n if done else 0, "failed": 0}, "metadata": None}


def _batch(self, method: str, path: str, raw: bytes, url: str) -> bytes:
    """Anthropic Message Batches and the OpenAI Batch API (files, batches, output file), as documented."""
    if method == "POST" and path.endswith("/messages/batches"):
        bid = f"msgbatch_{len(self.batches) + 1:02d}"
        items = [(r["custom_id"], r["params"]) for r in json.loads(raw)["requests"]]
        self.batches[bid] = {"kind": "anthropic", "items": items, "polls": 0}
        return json.dumps(_batch_object(self, bid, url)).encode()
    if method == "POST" and path.endswith("/files"):
        fid = f"file-in-{len(self.files) + 1}"
        self.files[fid] = raw
        return json.dumps({"id": fid, "object": "file", "bytes": len(raw), "created_at": 1767225600,
                           "filename": "eval.jsonl", "purpose": "batch", "status": "processed"}).encode()
    if method == "POST" and path.endswith("/batches"):
        req = json.loads(raw)
        lines = [json.loads(x) for x in self.files[req["input_file_id"]].decode().splitlines()
                 if x.startswith('{"custom_id"')]
        bid = f"batch_{len(self.batches) + 1:02d}"
        self.batches[bid] = {"kind": "openai", "endpoint": req["endpoint"], "file": req["input_file_id"],
                             "items": [(x["custom_id"], x["body"]) for x in lines], "polls": 0}
        return json.dumps(_batch_object(self, bid, url)).encode()
    parts = path.rstrip("/").split("/")
    if path.endswith("/results"):  # Anthropic's results: JSON Lines
        out = []
        for cid, params in self.batches[parts[-2]]["items"]:
            res = ({"type": "errored", "error": {"type": "error", "error": {"type": "invalid_request_error",
                                                                           "message": "prompt is too long"}}}
                   if cid in self.batch_errors else {"type": "succeeded", "message": self._messages(params)})
            out.append(json.dumps({"custom_id": cid, "result": res}))
        return ("\n".join(out) + "\n").encode()
    if path.endswith("/content"):  # OpenAI's output file: JSON Lines
        b = self.batches[parts[-2].removeprefix("file-out-")]
        make = self._chat if b["endpoint"].endswith("/chat/completions") else self._responses
        out = [json.dumps({"id": f"batch_req_{i}", "custom_id": cid,
                           "response": {"status_code": 200, "request_id": f"req_{i}", "body": make(body)},
                           "error": None}) for i, (cid, body) in enumerate(b["items"])]
        return ("\n".join(out) + "\n").encode()
    bid = parts[-1]
    self.batches[bid]["polls"] += 1
    return json.dumps(_batch_object(self, bid, url)).encode()


FakeLLM._batch = _batch


def http_lib(sdk: str):
    """The httpx package an SDK's client is built on (httpx, or httpx2 in newer SDKs)."""
    base = importlib.import_module(f"{sdk}._base_client")
    return getattr(base, "httpx2", None) or base.httpx


def route(monkeypatch, fake: FakeLLM) -> None:
    """Every eval client made in the test (the CLI makes its own) sends through `fake`."""
    from toolsurvey.providers import asking

    made = asking.AskingClient.__init__

    def init(self, *args, **kwargs):
        if kwargs.get("http_client") is None:
            kwargs["http_client"] = fake.client(self.sdk_module)
        made(self, *args, **kwargs)

    monkeypatch.setattr(asking.AskingClient, "__init__", init)


def word_match(query: str, tools: list) -> Move:
    """A simple decision for the eval tests: call the first offered tool whose name or description shares
    a word of four letters or more with the query (so more tools in view mean more wrong picks), else
    answer in text with no call."""
    words = {w.strip("?.,").lower() for w in query.split() if len(w) > 3}
    for t in tools:
        fn = t["function"]
        if words & set((fn["name"].replace("_", " ") + " " + (fn.get("description") or "")).lower().split()):
            return Move([(fn["name"], {})])
    return Move(text="no tool fits")


def serve(monkeypatch, tmp_path, decide) -> FakeLLM:
    """A FakeLLM answering with `decide`, routed for every eval client the test makes, with an answer
    cache of the test's own and no OpenAI key in the environment."""
    fake = FakeLLM(decide)
    route(monkeypatch, fake)
    monkeypatch.setenv("TOOLSURVEY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return fake
