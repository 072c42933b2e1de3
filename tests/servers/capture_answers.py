"""Capture real answers of the local test model for tests/data/model_answers/ (run by hand).

    .venv/bin/python tests/servers/capture_answers.py tests/data/model_answers/gemma3-270m.jsonl

Needs the local model (scripts/install-system.sh) and the `openai` SDK (toolsurvey's [eval] extra).
It sends sample queries with the sample registry's tools through the raw `openai` SDK, as
`toolsurvey eval --base-url` builds them (toolsurvey's own conversion to Chat Completions tools),
to two chat handlers of llama-cpp-python 0.3.36's server:
- `toolsurvey-test` (tests/servers/llm_server.py), all 63 tools, temperature 0;
- the stock `chatml-function-calling`, the catalog server's 9 tools, a system message (without one
  that handler shows no tool), a 120 s client timeout, one server per request (a request the client
  gave up on keeps the server busy).
Each line: where it came from, the request without its tools (their count and sha256 instead), the
HTTP status and the server's body as it came (or the client's error), and the seconds it took.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import openai  # noqa: E402
from _local_model import serve  # noqa: E402

import toolsurvey as ts  # noqa: E402
from toolsurvey.measuring.selection.request import offered  # noqa: E402

TEST_IDS = ["ops-01", "ops-14", "ops-25", "ops-29", "ops-40", "none-01", "none-04", "near-01"]
STOCK_IDS = ["ops-01", "ops-04"]
SYSTEM = "You are an operations assistant. Use the tools when they help."


def queries() -> dict[str, dict]:
    out = {}
    for name in ("ops_assistant.jsonl", "ops_assistant_selection.jsonl"):
        for line in (ROOT / "data" / "queries" / name).read_text("utf-8").splitlines():
            if line.strip():
                q = json.loads(line)
                out[q["id"]] = q
    return out


def tools_of(path: Path, server: str | None = None) -> list:
    if server is not None:
        one = Path(tempfile.mkdtemp()) / f"{server}.json"
        one.write_text(json.dumps({"servers": {server: json.loads(path.read_text("utf-8"))["servers"][server]}}))
        path = one
    return offered(ts.load(path), "openai-chat").tools


def ask(model, body: dict, timeout: float) -> tuple[int | None, object, float]:
    c = openai.OpenAI(base_url=model.base_url, api_key="unused", timeout=timeout, max_retries=0)
    t0 = time.monotonic()
    try:
        raw = c.chat.completions.with_raw_response.create(**body)
        return raw.http_response.status_code, json.loads(raw.http_response.text), time.monotonic() - t0
    except openai.APIStatusError as e:
        try:
            payload = e.response.json()
        except ValueError:
            payload = e.response.text
        return e.status_code, payload, time.monotonic() - t0
    except openai.APITimeoutError:
        return None, f"client timeout after {timeout:g} s", time.monotonic() - t0


def record(handler, visible, q, body, status, answer, seconds) -> dict:
    tools = body.get("tools", [])
    req = {k: v for k, v in body.items() if k != "tools"}
    req["tools_count"] = len(tools)
    req["tools_sha256"] = hashlib.sha256(json.dumps(tools, sort_keys=True).encode()).hexdigest()
    return {"handler": handler, "visible": visible, "id": q["id"], "query": q["query"], "gold": q["gold"],
            "request": req, "status": status, "response": answer, "seconds": round(seconds, 2)}


def main(out: Path) -> None:
    qs = queries()
    sample = ROOT / "data" / "registries" / "ops_assistant.json"
    lines = []
    every, catalog = tools_of(sample), tools_of(sample, "catalog")
    with serve(Path("/tmp/capture-test.log")) as m:
        for i in TEST_IDS:
            body = {"model": m.model, "messages": [{"role": "user", "content": qs[i]["query"]}], "tools": every,
                    "tool_choice": "auto", "temperature": 0, "max_tokens": 1024}
            lines.append(record("toolsurvey-test", "ops_assistant.json, 63 tools", qs[i], body, *ask(m, body, 600)))
            print(json.dumps(lines[-1])[:300], flush=True)
    stock = [(i, "auto") for i in STOCK_IDS] + [(STOCK_IDS[0], "required")]
    for i, choice in stock:
        with serve(Path("/tmp/capture-stock.log"), chat_format="chatml-function-calling") as m:
            body = {"model": m.model, "messages": [{"role": "system", "content": SYSTEM},
                                                   {"role": "user", "content": qs[i]["query"]}],
                    "tools": catalog, "tool_choice": choice, "temperature": 0, "max_tokens": 64}
            lines.append(record("chatml-function-calling", "ops_assistant.json catalog server, 9 tools", qs[i],
                                body, *ask(m, body, 120)))
            print(json.dumps(lines[-1])[:300], flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), "utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
