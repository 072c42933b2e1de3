"""A local HTTP server on 127.0.0.1 that misbehaves on purpose, for every method and any path under
(for HTTP discovery, whose MCP SDK takes no transport; tests/_mock_http.py has the same for httpx clients):

/huge-length/…  announces Content-Length 2**31 and then streams zeros;
/endless/…      streams zeros with no length (chunked) forever;
/trickle/…      sends one byte every two seconds, forever.
"""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CHUNK = b"0" * 65536


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet
        pass

    def _any(self):
        length = int(self.headers.get("content-length") or 0)
        if length:
            self.rfile.read(length)
        kind = self.path.strip("/").split("/")[0]
        self.send_response(200)
        self.send_header("content-type", "application/json")
        if kind == "huge-length":
            self.send_header("content-length", str(2**31))
        elif kind == "trickle":
            self.send_header("content-length", str(10**6))
        else:
            self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        try:
            while not self.server.stopping.is_set():
                if kind == "trickle":
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(2)
                elif kind == "endless":
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(CHUNK), CHUNK))
                else:
                    self.wfile.write(CHUNK)
        except OSError:
            pass  # the client gave up, as it should

    do_GET = do_POST = do_DELETE = _any


class HostileServer:
    """`with HostileServer() as url:` gives 'http://127.0.0.1:PORT'."""

    def __enter__(self) -> str:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.daemon_threads = True
        self.httpd.stopping = threading.Event()
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __exit__(self, *exc) -> None:
        self.httpd.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()
