"""A small MCP server built with the official SDK's own server API, served over Streamable HTTP.

`python sdk_http_server.py PORT [TOKEN]`: listens on 127.0.0.1:PORT at /mcp; with TOKEN, every
request must carry `Authorization: Bearer TOKEN` or gets 401. Also serves /html (an HTML page),
/status/CODE (that HTTP status) and /hang (no answer at all) so the tests can meet broken endpoints over real HTTP.
"""

import sys

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.responses import HTMLResponse, PlainTextResponse

PORT = int(sys.argv[1])
TOKEN = sys.argv[2] if len(sys.argv) > 2 else None

mcp = MCPServer("toolsurvey-test-http", instructions="Weather tools for the toolsurvey tests.", version="1.2.3")


@mcp.tool()
def get_forecast(city: str, days: int = 3) -> str:
    """Get the weather forecast for a city for the next few days."""
    return f"{city}: sunny for {days} days"


@mcp.tool()
def get_alerts(state: str) -> list[str]:
    """List active weather alerts for a US state (two-letter code)."""
    return [f"no alerts in {state}"]


@mcp.tool(name="convert-units", description="Convert a temperature between celsius and fahrenheit.")
def convert(value: float, to: str = "celsius") -> float:
    return (value - 32) * 5 / 9 if to == "celsius" else value * 9 / 5 + 32


inner = mcp.streamable_http_app()


async def app(scope, receive, send):
    if scope["type"] == "http":
        path = scope["path"]
        if path == "/hang":  # accepts the request and never answers
            await anyio.sleep(3600)
        if path == "/html":
            return await HTMLResponse("<!doctype html><html><body>Welcome</body></html>")(scope, receive, send)
        if path.startswith("/status/"):
            code = int(path.rsplit("/", 1)[1])
            return await PlainTextResponse(f"status {code}", status_code=code)(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        if TOKEN and headers.get(b"authorization") != f"Bearer {TOKEN}".encode():
            return await PlainTextResponse("unauthorized", status_code=401)(scope, receive, send)
    await inner(scope, receive, send)


if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=PORT, log_level="warning", lifespan="on")
