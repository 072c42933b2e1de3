"""An independent reader of a stdio MCP server: a plain JSON-RPC exchange, no SDK, no toolsurvey.

The discovery tests compare toolsurvey's result with what this reads from the same server.
"""

import json
import subprocess


def read_stdio(command: list[str], timeout: float = 30.0) -> dict:
    """{'initialize': result, 'tools': [tool objects exactly as sent, every page]}."""
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, encoding="utf-8")
    try:
        def ask(mid, method, params=None):
            msg = {"jsonrpc": "2.0", "id": mid, "method": method}
            if params is not None:
                msg["params"] = params
            proc.stdin.write(json.dumps(msg) + "\n")
            proc.stdin.flush()
            for line in proc.stdout:
                try:
                    reply = json.loads(line)
                except ValueError:
                    continue  # a log line on stdout
                if reply.get("id") == mid:
                    return reply["result"]
            raise RuntimeError(f"{command[0]} closed stdout before answering {method}")

        init = ask(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                     "clientInfo": {"name": "oracle", "version": "0"}})
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        tools, cursor, mid = [], None, 2
        while True:
            page = ask(mid, "tools/list", {"cursor": cursor} if cursor else None)
            tools += page["tools"]
            cursor, mid = page.get("nextCursor"), mid + 1
            if not cursor:
                return {"initialize": init, "tools": tools}
    finally:
        proc.kill()
        proc.wait(timeout)
