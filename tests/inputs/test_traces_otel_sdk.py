"""OTel GenAI spans recorded with the real OpenTelemetry SDK and encoded by its OTLP exporter's encoder
(the protobuf JSON mapping that the collector's file exporter writes) read back exactly."""

from __future__ import annotations

import json

import pytest

import toolsurvey as ts
from toolsurvey.core.tokens import get_encoding

pytest.importorskip("opentelemetry.sdk")
pytest.importorskip("opentelemetry.exporter.otlp.proto.common")

RESULT = json.dumps({"incidents": [{"id": i, "title": f"disk full on node {i}"} for i in range(12)]})


def _record(path):
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.trace import Status, StatusCode

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("agent")
    usages = [(2000, 0, 1500, 80), (2600, 1500, 1000, 30)]  # input (cached included), read, write, output
    for k, (inp, read, write, out) in enumerate(usages):
        with tracer.start_as_current_span("chat claude-sonnet-4-5") as s:
            s.set_attributes({"gen_ai.operation.name": "chat", "gen_ai.request.model": "claude-sonnet-4-5",
                              "gen_ai.conversation.id": "conv-1", "gen_ai.usage.input_tokens": inp,
                              "gen_ai.usage.cache_read.input_tokens": read,
                              "gen_ai.usage.cache_creation.input_tokens": write, "gen_ai.usage.output_tokens": out})
        if k == 0:
            with tracer.start_as_current_span("execute_tool list_incidents") as s:
                s.set_attributes({"gen_ai.operation.name": "execute_tool",
                                  "gen_ai.tool.name": "mcp__incidents__list_incidents",
                                  "gen_ai.tool.call.id": "call_1", "gen_ai.conversation.id": "conv-1",
                                  "gen_ai.tool.call.arguments": '{"status": "open"}',
                                  "gen_ai.tool.call.result": RESULT})
                s.set_status(Status(StatusCode.ERROR, "timed out"))
    doc = MessageToDict(encode_spans(exporter.get_finished_spans()))
    path.write_text(json.dumps(doc) + "\n")
    return usages


def test_sdk_spans_read_back_exactly(tmp_path):
    usages = _record(tmp_path / "spans.jsonl")
    tr = ts.load_traces(tmp_path / "spans.jsonl", engine="python")
    assert tr.files == {str(tmp_path / "spans.jsonl"): "otel"}
    r = tr.requests
    assert list(r["cache_read"]) == [u[1] for u in usages]
    assert list(r["cache_write"]) == [u[2] for u in usages]
    assert list(r["input_tokens"]) == [u[0] - u[1] - u[2] for u in usages]  # cached tokens are inside input
    assert list(r["output_tokens"]) == [u[3] for u in usages]
    assert set(r["session"]) == {"conv-1"}
    c = tr.calls.iloc[0]
    assert (c["server"], c["tool"], bool(c["error"])) == ("incidents", "list_incidents", True)
    assert c["result_tokens"] == len(get_encoding("o200k_base").encode_ordinary(RESULT))
