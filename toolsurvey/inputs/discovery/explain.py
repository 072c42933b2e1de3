"""Why a server could not be discovered, in one sentence: where it stopped, what was seen, what to try."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...core.http import redact_url
from ...errors import ToolsurveyError
from ..configs import ServerSpec

_STDERR_TAIL = 600  # characters of a failed server's stderr quoted in its error


class DiscoveryError(ToolsurveyError):
    """One server could not be discovered; the message says where it stopped and why."""


@dataclass
class ConnectionLog:
    """What a connection saw besides the answers: stray stdout lines, HTTP statuses."""

    junk: list[str] = field(default_factory=list)
    http: list[tuple[int, str, str]] = field(default_factory=list)  # (status, reason, content-type)
    reaped: int = 0  # leftover processes killed after the session ended
    refused: list[str] = field(default_factory=list)  # HTTP bodies over the size cap


def leaf(e: BaseException) -> BaseException:
    """The first real error inside nested exception groups."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    return e


def where(spec: ServerSpec) -> str:
    """The server as the user named it: its URL (credentials redacted) or its command line."""
    return redact_url(spec.url) if spec.url else " ".join([spec.command or "", *spec.args]).strip()


def explain(e: BaseException, spec: ServerSpec, step: str, limit: float, log: ConnectionLog, stderr: str) -> str:
    """One sentence: where it stopped, what was seen, and what to try."""
    at = where(spec)
    extra = f"; its stderr ends with: {stderr}" if stderr else ""
    if log.junk:
        extra += f"; it printed non-JSON on stdout: {clip(log.junk[0])}"
    if log.refused:
        return f"{at}: {log.refused[0]}"
    http = _http_problem(log, bool(spec.headers))
    if http:
        return f"{at}: {http}"
    if isinstance(e, TimeoutError):
        what = {"initialize": "no answer to initialize", "tools/list": "tools/list did not finish",
                "connecting": "could not connect"}[step]
        return f"{at}: {what} within {limit:g} s (the timeout){extra}"
    if isinstance(e, FileNotFoundError | PermissionError):
        return f"cannot start {spec.command!r}: {e.strerror or e}"
    text = getattr(e, "message", None) or str(e) or type(e).__name__
    if type(e).__name__ == "MCPError" and text == "Connection closed":
        gone = "the server exited or closed stdout" if not spec.url else "the connection closed"
        return f"{at}: {gone} during {step}{extra}"
    if type(e).__name__ == "MCPError":
        return f"{at}: the server answered {step} with error {e.code}: {clip(text)}{extra}"
    if type(e).__name__ == "ValidationError":
        problems = "; ".join(f"{'.'.join(map(str, err['loc']))}: {err['msg']}" for err in e.errors()[:3])
        return f"{at}: the {step} result is not valid MCP ({problems[:300]})"
    if type(e).__module__.startswith(("httpx", "httpcore")):
        return f"{at}: cannot reach the server ({type(e).__name__}: {clip(text)})"
    return f"{at}: {step} failed: {type(e).__name__}: {clip(text)}{extra}"


def _http_problem(log: ConnectionLog, sent_headers: bool) -> str | None:
    for status, reason, ctype in log.http:
        if status in (401, 403) and sent_headers:
            return f"HTTP {status} {reason}: the server refused the credentials in the headers given"
        if status in (401, 403):
            return (f"HTTP {status} {reason}: the server wants credentials "
                    "(pass them with --header 'Authorization: Bearer …' or the config's headers)")
        if status == 404:
            return f"HTTP 404 {reason}: no MCP endpoint at this URL (Streamable HTTP endpoints often end in /mcp)"
        if status >= 400:
            return f"HTTP {status} {reason}: the server failed to answer"
        base = ctype.split(";")[0].strip().lower()
        if status < 300 and base and base not in ("application/json", "text/event-stream"):
            return (f"answered with {base} (HTTP {status}), not an MCP endpoint "
                    "(expected application/json or text/event-stream)")
    return None


def tail(text: str) -> str:
    """The end of the server's stderr, one line per ' | '."""
    text = text[-4 * _STDERR_TAIL:]
    return " | ".join(line.strip() for line in text.splitlines() if line.strip())[-_STDERR_TAIL:]


def clip(text: str, n: int = 200) -> str:
    """`text` quoted and cut to about `n` characters."""
    return repr(text if len(text) <= n else text[: n - 1] + "…")
