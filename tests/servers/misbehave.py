"""A stdio MCP server that misbehaves on purpose: `python misbehave.py MODE [N] [TAG]`.

Written with the standard library only (no SDK) so that it can break the protocol exactly.
Modes: ok, banner, junk, silent, exit, hang-list, loop-cursor, endless, paged, many, spawn,
spawn-silent (spawn, then never answer), invalid.
TAG is ignored, but it is on the command line of this process and of the child `spawn` starts,
so a test can find every process a run left behind.
"""

import json
import os
import subprocess
import sys
import time

MODE = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 3


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def tool(i):
    return {"name": f"tool_{i}", "description": f"Tool number {i}.",
            "inputSchema": {"type": "object", "properties": {"x": {"type": "integer"}}}}


def tools_page(cursor):
    """(tools, nextCursor) for the page after `cursor`."""
    if MODE == "loop-cursor":
        return [tool(0)], "same-cursor"
    if MODE == "endless":
        k = int(cursor or 0)
        return [tool(k)], str(k + 1)
    if MODE == "paged":  # N pages of 2 tools each
        k = int(cursor or 0)
        return [tool(2 * k), tool(2 * k + 1)], (str(k + 1) if k + 1 < N else None)
    if MODE == "many":
        return [tool(i) for i in range(N)], None
    if MODE == "invalid":  # the second tool has no inputSchema, which MCP requires
        return [tool(0), {"name": "broken", "description": "No schema."}], None
    return [tool(i) for i in range(N)], None


if MODE == "exit":
    print(f"fatal: missing configuration file (LEAK={os.environ.get('LEAK', '')})", file=sys.stderr)
    sys.exit(3)
if MODE in ("banner", "junk"):
    print("Starting server v1.0 ...", flush=True)  # the bug: a log line on stdout
    if MODE == "junk":
        time.sleep(3600)
if MODE.startswith("spawn"):  # a server whose own child would outlive it if only the parent were killed
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)", *sys.argv[3:]])
    print(f"child pid {child.pid}", file=sys.stderr, flush=True)

for line in sys.stdin:
    msg = json.loads(line)
    method, mid = msg.get("method"), msg.get("id")
    if mid is None:
        continue  # notifications
    if method == "initialize":
        if MODE in ("silent", "spawn-silent"):
            continue
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": f"misbehave-{MODE}", "version": "0.0.1"},
            "instructions": "Use these tools carefully."}})
    elif method == "tools/list":
        if MODE == "hang-list":
            continue
        tools, nxt = tools_page((msg.get("params") or {}).get("cursor"))
        result = {"tools": tools}
        if nxt is not None:
            result["nextCursor"] = nxt
        send({"jsonrpc": "2.0", "id": mid, "result": result})
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "Method not found"}})
os._exit(0)
