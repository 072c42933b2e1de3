"""Tool results as the model receives them: a JSON value as compact JSON, text as given, and an MCP
result as its blocks (see MCP_METHOD)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core import jsontree as _jsontree
from ..errors import InputError
from ..providers.images import image_tokens

MCP_KEYS = {"content", "structuredContent", "isError", "_meta"}
_NOT_JSON = object()

MCP_METHOD = (
    "MCP tools/call results: each text block and each text resource counts as its text; images (image "
    "blocks and image blob resources) count by the provider image rule in assumptions/images.toml; "
    "other blob resources count as their base64 text; resource links as the compact JSON of the link; "
    "audio is not counted (warned). structuredContent counts only when the result has no text block, "
    "because the MCP spec asks servers to repeat it as a text block and clients pass the blocks on."
)


@dataclass
class Payload:
    """One tool result: the text blocks the model reads, the parsed JSON if any, and where it came from."""

    tool: str
    blocks: tuple[str, ...]
    value: Any = _NOT_JSON
    kind: str = "json"  # json: a JSON value sent as compact JSON; text: text as given; mcp: an MCP result
    server: str | None = None
    source: str = ""
    timestamp: str | None = None
    image_tokens: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def is_json(self) -> bool:
        return self.value is not _NOT_JSON

    @property
    def text(self) -> str:
        return "\n".join(self.blocks)

    @classmethod
    def from_value(cls, value: Any, tool: str = "(value)", **kw) -> Payload:
        """A structured result, sent to the model as compact JSON; raises InputError for non-JSON values."""
        try:
            text = _jsontree.compact(value)
        except (TypeError, ValueError) as e:
            raise InputError(f"expected a JSON value for tool {tool!r}, found {type(value).__name__} ({e})") from None
        return cls(tool=tool, blocks=(text,), value=value, kind="json", **kw)

    @classmethod
    def from_text(cls, text: str, tool: str = "(text)", **kw) -> Payload:
        """A text result, counted as given; if it is JSON its fields can still be attributed."""
        return cls(tool=tool, blocks=(text,), value=_parse_or_not(text), kind="text", **kw)


def _parse_or_not(text: str) -> Any:
    head = text.lstrip()[:1]
    if head not in ("{", "["):
        return _NOT_JSON
    try:
        return _jsontree.loads(text)
    except ValueError:
        return _NOT_JSON


def is_mcp_result(value: Any) -> bool:
    """True for an MCP CallToolResult: an object of content blocks, optionally structuredContent and isError."""
    return (isinstance(value, dict) and isinstance(value.get("content"), list) and set(value) <= MCP_KEYS
            and all(isinstance(b, dict) and isinstance(b.get("type"), str) for b in value["content"]))


def from_mcp(result: dict, tool: str, **kw) -> Payload:
    """The model's view of an MCP tools/call result (see MCP_METHOD)."""
    blocks, images, notes = [], 0, []
    for i, b in enumerate(result["content"]):
        kind = b["type"]
        if kind == "text":
            blocks.append(str(b.get("text", "")))
        elif kind == "image":
            n, note = image_tokens(b.get("data", ""), b.get("mimeType"))
            images += n
            notes += [f"content[{i}]: {note}"] if note else []
        elif kind == "resource":
            res = b.get("resource") or {}
            if "text" in res:
                blocks.append(str(res["text"]))
            elif str(res.get("mimeType", "")).startswith("image/"):
                n, note = image_tokens(res.get("blob", ""), res.get("mimeType"))
                images += n
                notes += [f"content[{i}]: {note}"] if note else []
            else:
                blocks.append(str(res.get("blob", "")))
        elif kind == "resource_link":
            blocks.append(_jsontree.compact({k: v for k, v in b.items() if k != "type"}))
        elif kind == "audio":
            notes.append(f"content[{i}]: audio block not counted (no provider rule for audio in tool results)")
        else:
            blocks.append(_jsontree.compact(b))
            notes.append(f"content[{i}]: unknown block type {kind!r}, counted as its compact JSON")
    if "structuredContent" in result and not any(b["type"] == "text" for b in result["content"]):
        blocks.append(_jsontree.compact(result["structuredContent"]))
    value = _parse_or_not(blocks[0]) if len(blocks) == 1 else _NOT_JSON
    return Payload(tool=tool, blocks=tuple(blocks), value=value, kind="mcp", image_tokens=images,
                   notes=notes, **kw)


def decode(data: bytes, source: str) -> tuple[str, list[str]]:
    """UTF-8 text of `data`; invalid bytes become U+FFFD with a warning naming the first bad offset."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as e:
        return data.decode("utf-8", errors="replace"), [
            f"{source}: not valid UTF-8 (first bad byte at offset {e.start}); invalid bytes replaced by U+FFFD"]


def payload_from_text(text: str, tool: str, source: str, strict_json: bool, **kw) -> tuple[Payload, list[str]]:
    """A file's or response's text as a Payload: JSON when it parses, MCP when shaped so, else text."""
    value = _NOT_JSON
    warnings = []
    stripped = text.lstrip()
    if stripped[:1] in ("{", "[") or strict_json:
        try:
            value = _jsontree.loads(text)
        except ValueError as e:
            if strict_json:
                warnings.append(f"{source}: not JSON ({e}); measured as text")
    if value is _NOT_JSON:
        return Payload(tool=tool, blocks=(text,), kind="text", source=source, **kw), warnings
    return payload_from_value(value, tool, source, **kw), warnings


def payload_from_value(value: Any, tool: str, source: str, **kw) -> Payload:
    if isinstance(value, dict) and "jsonrpc" in value and isinstance(value.get("result"), dict):
        value = value["result"]  # a whole JSON-RPC response: the result is what the client sees
    if is_mcp_result(value):
        p = from_mcp(value, tool, source=source, **kw)
    else:
        p = Payload.from_value(value, tool, source=source, **kw)
    return p
