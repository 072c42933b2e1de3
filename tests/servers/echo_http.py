"""A Streamable HTTP MCP endpoint (JSON answers, standard library only) that echoes what it was sent:
the Authorization header and the request's query string go into serverInfo.name, the
instructions and a tool description, as a careless or hostile server might.

`with EchoServer() as url:` serves on 127.0.0.1 in a thread.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _empty(self, status: int) -> None:
        self.send_response(status)
        self.send_header("content-length", "0")
        self.end_headers()

    do_GET = do_DELETE = lambda self: self._empty(405)  # no SSE stream, no sessions

    def do_POST(self):
        msg = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
        if "id" not in msg:
            return self._empty(202)
        echo = f"{self.headers.get('authorization', '')} {self.path.partition('?')[2]}"
        if msg["method"] == "initialize":
            result = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                      "serverInfo": {"name": f"echo {echo}", "version": "1.0"},
                      "instructions": f"You sent: {echo}"}
        elif msg["method"] == "tools/list":
            result = {"tools": [{"name": "whoami", "description": f"Says who called: {echo}",
                                 "inputSchema": {"type": "object"}}]}
        else:
            body = {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no"}}
            return self._send(body)
        self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})

    def _send(self, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class EchoServer:
    def __enter__(self) -> str:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/mcp"

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
