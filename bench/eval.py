"""`toolsurvey eval`'s speed, cost and memory, each against a baseline in the same run:

1. throughput: N queries over the 63-tool sample against a local stub server (a real HTTP server on
   127.0.0.1) that waits 50 ms per request, at concurrency 8, against 8 bare openai SDK clients in
   threads sending the same bodies. Goal: at least 0.8x their throughput. Prints the harness's
   overhead per request in ms.
2. caching: a 200-query eval over the sample through the anthropic SDK, its tools marked as a cached
   prefix, against the same eval without cache_control; the transport reports usage (tokens counted
   with tiktoken o200k_base on what each request carries, a cache write and then reads when marked).
   Goal: billed cost of the cached run at most 0.25x the uncached one.
3. memory: peak resident memory of a 10,000-query run (in a fresh process, answers from an
   in-process transport). Goal: under 300 MB.

    .venv/bin/python bench/eval.py [--n 1000] [--cost-n 200] [--memory-n 10000] [--only throughput,cost,memory]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import jsonschema  # noqa: E402,F401  (imported before any timing: 2-15 s once, for its format checkers)

import toolsurvey as ts  # noqa: E402

REG = ROOT / "data" / "registries" / "ops_assistant.json"
QUERIES = [json.loads(x) for x in (ROOT / "data" / "queries" / "ops_assistant.jsonl").read_text().splitlines() if x]
ANSWER = json.dumps({"id": "c", "object": "chat.completion", "created": 1, "model": "stub",
                     "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                         "role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
                             "name": "get_owner", "arguments": "{\"service\": \"payments-api\"}"}}]}}],
                     "usage": {"prompt_tokens": 9000, "completion_tokens": 12, "total_tokens": 9012}}).encode()


def queries(n: int) -> list[dict]:
    return [{**QUERIES[i % len(QUERIES)], "id": f"q{i}", "query": f"{QUERIES[i % len(QUERIES)]['query']} ({i})"}
            for i in range(n)]


class Stub(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("content-length", 0)))
        time.sleep(0.05)
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(ANSWER)))
        self.end_headers()
        self.wfile.write(ANSWER)

    def log_message(self, *args):
        pass


def throughput(n: int) -> None:
    import openai

    server = ThreadingHTTPServer(("127.0.0.1", 0), Stub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    reg = ts.load(REG)
    qs = queries(n)
    plan = ts.measuring.selection.run.plan_eval(reg, qs, "stub", base_url=url, cache=False, environ={})
    bodies = [j.body for j in plan.jobs]
    t0 = time.perf_counter()
    parts = [bodies[i::8] for i in range(8)]

    def bare(part):
        client = openai.OpenAI(api_key="none", base_url=url, max_retries=0, timeout=60)
        for b in part:
            client.chat.completions.with_raw_response.create(**b).http_response.json()

    threads = [threading.Thread(target=bare, args=(p,)) for p in parts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    base = time.perf_counter() - t0
    t0 = time.perf_counter()
    ev = ts.selection_eval(reg, qs, "stub", base_url=url, cache=False, environ={}, concurrency=8)
    mine = time.perf_counter() - t0
    server.shutdown()
    assert len(ev.records) == n
    ratio = base / mine
    print(f"throughput: {n} queries at concurrency 8 (stub waits 50 ms): eval {mine:.2f} s ({n / mine:.1f}/s), "
          f"8 bare SDK clients {base:.2f} s ({n / base:.1f}/s) = {ratio:.2f}x their throughput "
          f"({'met' if ratio >= 0.8 else 'NOT met'}: goal >= 0.8x); overhead {(mine - base) * 8 / n * 1000:.1f} ms "
          "per request (worker time)")


def cost(n: int) -> None:
    from fake_llm import FakeLLM, Move

    from toolsurvey.core.tokens import count

    reg = ts.load(REG)
    qs = queries(n)

    def run(cache_tools: bool) -> float:
        fake = FakeLLM(lambda q, names, tools: Move([("get_owner", {"service": "x"})]))
        tools_tokens = {}

        def usage_of(body):  # tokens of what the request carries, counted by the transport
            key = id(body["tools"][0])
            if key not in tools_tokens:
                tools_tokens[key] = count(json.dumps(body["tools"], separators=(",", ":")), "o200k_base")
            return tools_tokens[key], count(body["messages"][-1]["content"], "o200k_base") + 8

        made = fake._messages

        def messages(body):
            answer = made(body)
            tools, own = usage_of(body)
            cached = body["tools"][-1].get("cache_control") is not None
            first = not getattr(fake, "_wrote", False)
            fake._wrote = True
            answer["usage"] = {"input_tokens": own if cached else own + tools, "output_tokens": 20,
                               "cache_creation_input_tokens": tools if cached and first else 0,
                               "cache_read_input_tokens": tools if cached and not first else 0}
            return answer

        fake._messages = messages
        env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://llm.test"}
        ev = ts.selection_eval(reg, qs, "claude-sonnet-4-5", environ=env, cache=False, yes=True, concurrency=1,
                               cache_tools=cache_tools, http_client=fake.client("anthropic"))
        return ev.billed()["cost"]

    cached, plain = run(True), run(False)
    ratio = cached / plain
    print(f"caching: {n} queries, claude-sonnet-4-5 prices, usage as the transport reported it: billed "
          f"${cached:.4f} with the tools cached, ${plain:.4f} without = {ratio:.3f}x "
          f"({'met' if ratio <= 0.25 else 'NOT met'}: goal <= 0.25x)")


def memory_child(n: int) -> None:
    from fake_llm import FakeLLM, Move

    class Forget(list):  # the fake server keeps no log of what it received: only the harness is measured
        def append(self, item):
            pass

    reg = ts.load(REG)
    fake = FakeLLM(lambda q, names, tools: Move([("get_owner", {"service": "x"})]))
    fake.requests = Forget()
    ev = ts.selection_eval(reg, queries(n), "m", base_url="http://llm.test/v1", cache=False, environ={},
                           http_client=fake.client("openai"), concurrency=4)
    log = "".join(json.dumps(r) + "\n" for r in ev.records)
    s = ev.summary
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"records": len(ev.records), "log_mb": len(log) / 2**20, "accuracy": s["accuracy"]["rate"],
                      "peak_mib": peak}))


def memory(n: int) -> None:
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, __file__, "--child-memory", str(n)], capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"memory: {doc['records']:,} queries, peak RSS {doc['peak_mib']:.0f} MiB with the records and a "
          f"{doc['log_mb']:.1f} MB log in memory ({'met' if doc['peak_mib'] < 300 * 1e6 / 2**20 else 'NOT met'}: "
          f"goal < 300 MB), {time.perf_counter() - t0:.0f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--cost-n", type=int, default=200)
    ap.add_argument("--memory-n", type=int, default=10000)
    ap.add_argument("--only", default="throughput,cost,memory")
    ap.add_argument("--child-memory", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child_memory:
        return memory_child(a.child_memory)
    import toolsurvey.measuring.selection.run  # noqa: F401

    only = set(a.only.split(","))
    if "throughput" in only:
        throughput(a.n)
    if "cost" in only:
        cost(a.cost_n)
    if "memory" in only:
        memory(a.memory_n)


if __name__ == "__main__":
    main()
