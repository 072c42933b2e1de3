"""A request-counting HTTP proxy (standard library only) for the local model server.

It sits between a client under test and an OpenAI-compatible server, forwards every request as it
came, and records what reached the server: method, path, body, status and time. Tests read those
records to assert "a re-run sends no request" and "at most N requests were in flight at once".

It also bounds each request: when the server has not answered within `timeout` seconds, the client
gets 504 and the record says so (the server may still be working on it: llama.cpp can't be
interrupted mid-prompt, so the next request waits behind it).

`with CountingProxy("http://127.0.0.1:PORT") as proxy:` serves on 127.0.0.1 in a thread;
`proxy.url` is its base URL (same paths as the server's), `proxy.records` the requests so far.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te",
        "trailer", "proxy-authenticate", "proxy-authorization", "host", "content-length"}


@dataclass
class Record:
    method: str
    path: str
    body: bytes
    status: int = 0  # 0 while in flight; 504 when the proxy gave up waiting; 502 when unreachable
    seconds: float = 0.0
    response: bytes = b""  # the body the server answered (or the proxy's error)
    started: float = field(default_factory=time.monotonic)

    def json(self):
        return json.loads(self.body) if self.body else None

    def answer(self):
        return json.loads(self.response) if self.response else None


class CountingProxy:
    def __init__(self, upstream: str, timeout: float = 120.0):
        parts = urlsplit(upstream)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.timeout = timeout
        self.records: list[Record] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()

    # what tests read
    def requests(self, path: str = "/v1/chat/completions") -> list[Record]:
        """The requests forwarded to `path` (query string ignored), in the order they arrived."""
        with self._lock:
            return [r for r in self.records if r.path.partition("?")[0] == path]

    def count(self, path: str = "/v1/chat/completions") -> int:
        return len(self.requests(path))

    def reset_peak(self) -> None:
        with self._lock:
            self.max_in_flight = self.in_flight

    # serving
    def __enter__(self) -> CountingProxy:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _forward(self):
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                rec = Record(self.command, self.path, body)
                with proxy._lock:
                    proxy.records.append(rec)
                    proxy.in_flight += 1
                    proxy.max_in_flight = max(proxy.max_in_flight, proxy.in_flight)
                try:
                    status, headers, data = proxy._upstream(self.command, self.path, self.headers, body)
                finally:
                    with proxy._lock:
                        proxy.in_flight -= 1
                rec.status, rec.seconds, rec.response = status, time.monotonic() - rec.started, data
                self.send_response(status)
                for k, v in headers:
                    if k.lower() not in _HOP:
                        self.send_header(k, v)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = do_PUT = _forward

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        return self

    def _upstream(self, method, path, headers, body):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            conn.request(method, path, body=body or None,
                         headers={k: v for k, v in headers.items() if k.lower() not in _HOP})
            resp = conn.getresponse()
            return resp.status, resp.getheaders(), resp.read()
        except TimeoutError:
            return 504, [("content-type", "application/json")], json.dumps(
                {"error": {"message": f"the model server did not answer within {self.timeout:g} s "
                                      "(test proxy timeout)", "type": "timeout"}}).encode()
        except OSError as e:
            return 502, [("content-type", "application/json")], json.dumps(
                {"error": {"message": f"the model server is unreachable: {e}", "type": "proxy"}}).encode()
        finally:
            conn.close()

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
