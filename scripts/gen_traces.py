"""Write made-up agent traces (no personal data) in the three formats toolsurvey reads.

    python scripts/gen_traces.py claude-code OUT_DIR [--sessions N] [--steps N] [--seed N] [--mb SIZE]
    python scripts/gen_traces.py otel OUT_DIR ...
    python scripts/gen_traces.py provider-log OUT_DIR ...

Every request of a Claude Code session is streamed as several lines sharing one requestId whose
usage grows (as Claude Code writes them); a third of the sessions start a subagent. Tools are MCP
tools named `mcp__<server>__<tool>` plus the built-in Bash; about 1 call in 12 fails and 1 in 10
repeats an earlier call with identical arguments. `--mb` keeps writing sessions until the output
reaches that many megabytes (for bench/traces.py).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

TOOLS = [("github", "search_issues", 700), ("github", "get_issue", 1400), ("github", "list_pull_requests", 2600),
         ("linear", "list_issues", 1800), ("linear", "get_issue", 900), ("fs", "read_file", 3000),
         (None, "Bash", 400)]
DEFINITIONS = [{"name": (f"mcp__{s}__{t}" if s else t), "description": f"{t.replace('_', ' ')} ({s or 'built-in'}). "
                "Returns JSON.", "input_schema": {"type": "object", "properties": {
                    "query": {"type": "string", "description": "What to look for"},
                    "limit": {"type": "integer", "description": "Most results to return"}}, "required": ["query"]}}
               for s, t, _ in TOOLS]
MODELS = ["claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001"]
WORDS = ("issue bug fix release login timeout token cache retry server client schema build deploy test "
         "review merge branch commit label owner status open closed priority").split()
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
PREFIX = 14_000  # system prompt + tool definitions, as a Claude Code session writes it to the cache


def _payload(rng: random.Random, approx_chars: int) -> str:
    items = []
    while sum(len(json.dumps(i)) for i in items) < approx_chars:
        items.append({"id": rng.randint(1, 99999), "title": " ".join(rng.choices(WORDS, k=8)),
                      "state": rng.choice(["open", "closed"]), "labels": rng.sample(WORDS, 2),
                      "body": " ".join(rng.choices(WORDS, k=rng.randint(10, 40))), "url": None})
    return json.dumps({"items": items, "total": len(items)})


def _steps(rng: random.Random, steps: int):
    """(tool name, server, tool, arguments, result text, is_error) for one task's calls."""
    made = []
    for _ in range(steps):
        if made and rng.random() < 0.1:
            made.append(made[rng.randrange(len(made))])  # the same call again, identical arguments
            continue
        server, tool, size = rng.choice(TOOLS)
        args = {"query": " ".join(rng.choices(WORDS, k=3)), "limit": rng.choice([5, 10, 20])}
        err = rng.random() < 1 / 12
        result = (f"Error: {tool} failed: rate limited, retry later" if err
                  else _payload(rng, int(size * rng.uniform(0.5, 1.5))))
        made.append((f"mcp__{server}__{tool}" if server else tool, args, result, err))
    return made


def _open(path: Path, gz: bool):
    path.parent.mkdir(parents=True, exist_ok=True)
    return gzip.open(str(path) + ".gz", "wt", encoding="utf-8") if gz else open(path, "w", encoding="utf-8")


def claude_code(out: Path, i: int, rng: random.Random, steps: int, gz: bool = False) -> None:
    sid = f"00000000-0000-4000-8000-{i:012d}"
    model = MODELS[i % len(MODELS)]
    t = START + timedelta(hours=i * 3)
    with _open(out / f"{sid}.jsonl", gz) as f:  # written as Claude Code names session files
        _claude_session(f, sid, model, t, rng, steps, agent=None)
    if i % 3 == 0:  # a subagent, in <session>/subagents/agent-<id>.jsonl
        with _open(out / sid / "subagents" / f"agent-a{i:06d}.jsonl", gz) as f:
            _claude_session(f, sid, MODELS[1], t + timedelta(minutes=5), rng, max(2, steps // 3), agent=f"a{i:06d}")


def _claude_session(f, sid, model, t, rng, steps, agent):
    base = {"sessionId": sid, "isSidechain": agent is not None, "userType": "external", "cwd": "/workspace/demo",
            "version": "2.0.0", **({"agentId": agent} if agent else {})}

    def line(kind, message, **extra):
        nonlocal t
        t += timedelta(seconds=rng.randint(1, 20))
        f.write(json.dumps({**base, "type": kind, "uuid": f"u{rng.getrandbits(48):x}",
                            "timestamp": t.isoformat().replace("+00:00", "Z"), "message": message, **extra}) + "\n")

    line("user", {"role": "user", "content": "Find the open login bugs and summarise them."})
    f.write(json.dumps({"type": "summary", "summary": "Login bugs", "leafUuid": "x"}) + "\n")
    cached, pending = 0, PREFIX + 40
    calls = _steps(rng, steps - 1)
    for k in range(steps):
        rid = f"req_{rng.getrandbits(64):016x}"
        final = k == steps - 1
        out_tokens = rng.randint(40, 400)
        usage = {"input_tokens": rng.randint(1, 6), "cache_creation_input_tokens": pending,
                 "cache_read_input_tokens": cached,
                 "cache_creation": {"ephemeral_5m_input_tokens": pending, "ephemeral_1h_input_tokens": 0}}
        blocks = [{"type": "text", "text": "Let me look."}]
        if not final:
            name, args, result, err = calls[k]
            tid = f"toolu_{rng.getrandbits(64):016x}"
            blocks.append({"type": "tool_use", "id": tid, "name": name, "input": args})
        # one request, streamed as one line per content block; usage grows until the last
        for j, b in enumerate(blocks):
            u = {**usage, "output_tokens": out_tokens if j == len(blocks) - 1 else rng.randint(1, 5)}
            line("assistant", {"id": f"msg_{rid}", "type": "message", "role": "assistant", "model": model,
                               "content": [b], "stop_reason": None, "usage": u}, requestId=rid)
        if final:
            break
        line("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": result,
                                                   **({"is_error": True} if err else {})}]})
        cached += pending
        pending = out_tokens + len(result) // 4


def otel(out: Path, i: int, rng: random.Random, steps: int, gz: bool = False) -> None:
    trace = f"{rng.getrandbits(128):032x}"
    t = int((START + timedelta(hours=i * 3)).timestamp() * 1e9)
    spans = []

    def attr(k, v):
        return {"key": k, "value": {"intValue": str(v)} if isinstance(v, int) else {"stringValue": v}}

    def span(name, attrs, error=False):
        nonlocal t
        t += rng.randint(1, 20) * 1_000_000_000
        spans.append({"traceId": trace, "spanId": f"{rng.getrandbits(64):016x}", "name": name, "kind": 3,
                      "startTimeUnixNano": str(t), "endTimeUnixNano": str(t + 900_000_000),
                      "attributes": [attr(k, v) for k, v in attrs.items()],
                      "status": {"code": 2, "message": "tool failed"} if error else {}})

    cached, history = 0, 0
    calls = _steps(rng, steps - 1)
    defs = json.dumps(DEFINITIONS)
    for k in range(steps):
        inp = PREFIX + history + 40
        span(f"chat {MODELS[0]}", {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "anthropic",
                                   "gen_ai.request.model": MODELS[0], "gen_ai.response.model": MODELS[0],
                                   "gen_ai.conversation.id": f"conv-{i:06d}", "gen_ai.usage.input_tokens": inp,
                                   "gen_ai.usage.cache_read.input_tokens": cached,
                                   "gen_ai.usage.cache_creation.input_tokens": inp - cached,
                                   "gen_ai.usage.output_tokens": rng.randint(40, 400),
                                   "gen_ai.tool.definitions": defs})
        cached = inp
        if k == steps - 1:
            break
        name, args, result, err = calls[k]
        span(f"execute_tool {name}", {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
                                      "gen_ai.tool.call.id": f"call_{rng.getrandbits(48):x}",
                                      "gen_ai.conversation.id": f"conv-{i:06d}",
                                      "gen_ai.tool.call.arguments": json.dumps(args),
                                      "gen_ai.tool.call.result": result}, error=err)
        history += 60 + len(result) // 4
    doc = {"resourceSpans": [{"resource": {"attributes": [attr("service.name", "demo-agent")]},
                              "scopeSpans": [{"scope": {"name": "demo.genai"}, "spans": spans}]}]}
    with open(out / f"otel-{i // 50:04d}.jsonl", "a", encoding="utf-8") as f:  # 50 traces a file
        f.write(json.dumps(doc) + "\n")


def provider_log(out: Path, i: int, rng: random.Random, steps: int, gz: bool = False) -> None:
    model = "claude-sonnet-4-5"
    messages = [{"role": "user", "content": "Find the open login bugs and summarise them."}]
    calls = _steps(rng, steps - 1)
    t = START + timedelta(hours=i * 3)
    cached = 0
    with _open(out / f"requests-{i:06d}.jsonl", gz) as f:
        for k in range(steps):
            t += timedelta(seconds=rng.randint(2, 30))
            request = {"model": model, "max_tokens": 1024, "system": "You are a helpful triage agent.",
                       "tools": DEFINITIONS, "messages": list(messages)}
            size = (len(json.dumps(DEFINITIONS)) + len(json.dumps(messages))) // 4
            content = [{"type": "text", "text": "Looking."}]
            if k < steps - 1:
                name, args, result, err = calls[k]
                tid = f"toolu_{rng.getrandbits(64):016x}"
                content.append({"type": "tool_use", "id": tid, "name": name, "input": args})
            response = {"id": f"msg_{rng.getrandbits(64):016x}", "type": "message", "role": "assistant",
                        "model": model, "content": content, "usage": {
                            "input_tokens": 5, "cache_read_input_tokens": cached,
                            "cache_creation_input_tokens": max(size - cached, 0),
                            "output_tokens": rng.randint(40, 300)}}
            f.write(json.dumps({"timestamp": t.isoformat(), "session": f"task-{i:06d}", "request": request,
                                "response": response}) + "\n")
            cached = max(size, cached)
            if k < steps - 1:
                messages += [{"role": "assistant", "content": content},
                             {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid,
                                                           "content": result, **({"is_error": True} if err else {})}]}]


def use_registry(path: str) -> None:
    """Call two thirds of a registry's tools (the rest stay unused) and send all its definitions."""
    import toolsurvey as ts

    global TOOLS, DEFINITIONS
    tools = list(ts.load(path))
    TOOLS = [(t.server, t.name, random.Random(t.name).choice([300, 900, 2500])) for i, t in enumerate(tools)
             if i % 3 != 2]
    DEFINITIONS = [{"name": f"mcp__{t.server}__{t.name}", "description": t.description or "",
                    "input_schema": t.input_schema} for t in tools]


WRITERS = {"claude-code": claude_code, "otel": otel, "provider-log": provider_log}


def _size(out: Path) -> int:
    return sum(p.stat().st_size for p in out.rglob("*") if p.is_file())


def generate(fmt: str, out: Path, *, sessions: int = 6, steps: int = 8, seed: int = 0, mb: float = 0,
             gz: bool = False) -> int:
    """Write traces to `out`; returns the number of sessions written."""
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    i = 0
    while i < sessions or (mb and (i % 50 or _size(out) < mb * 1e6)):
        WRITERS[fmt](out, i, rng, steps, gz)
        i += 1
    return i


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("format", choices=sorted(WRITERS))
    ap.add_argument("out", type=Path)
    ap.add_argument("--sessions", type=int, default=6)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mb", type=float, default=0, help="keep writing sessions until the output has this many MB")
    ap.add_argument("--gzip", action="store_true", help="gzip Claude Code and provider-log files")
    ap.add_argument("--registry", help="call tools of this registry (two thirds of them) instead of the demo set")
    a = ap.parse_args()
    if a.registry:
        use_registry(a.registry)
    n = generate(a.format, a.out, sessions=a.sessions, steps=a.steps, seed=a.seed, mb=a.mb, gz=a.gzip)
    print(f"wrote {n} session(s) of {a.format} traces to {a.out} ({_size(a.out) / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
