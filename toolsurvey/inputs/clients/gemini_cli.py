"""Gemini CLI's MCP servers: `mcpServers` of ~/.gemini/settings.json and of the project's
.gemini/settings.json (JSON with comments; the project's entry wins), less those `mcp.excluded`
names or `mcp.allowed` does not; `includeTools` and `excludeTools` filter each server's tools."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from .config import ClientConfig, ClientServer, LeftOut
from .entries import Where, by_precedence, entries_of, lines_at, load_object

KNOWN = frozenset({"type", "command", "args", "env", "cwd", "url", "httpUrl", "headers", "timeout", "trust",
                   "includeTools", "excludeTools", "description", "oauth", "authProviderType", "targetAudience",
                   "targetServiceAccount", "extensionName"})


def read(project: Path, home: Path, environ: Mapping[str, str], shown) -> ClientConfig:
    """Gemini CLI's servers for `project`."""
    cfg = ClientConfig("gemini-cli", "Gemini CLI", str(project))
    docs, found = [], []
    for rank, (path, scope) in enumerate([(project / ".gemini" / "settings.json", "project"),
                                          (home / ".gemini" / "settings.json", "user")]):
        data, lines = load_object(path, cfg, scope, shown, comments=True)
        docs.append(data)
        where = Where(shown(path), scope, cfg.label, lines_at(lines, "mcpServers"), str(path))
        servers = data.get("mcpServers")
        for r, item in entries_of(servers, where, KNOWN, environ, cfg, rank=rank, fill=_transport):
            found.append((r, _tool_filters(item, (servers or {}).get(item.name))))
    allowed, excluded = _lists(docs)
    kept, replaced = by_precedence(found, cfg.label)
    for item in kept:
        if isinstance(item, ClientServer) and item.name in excluded:
            item = LeftOut(item.name, item.scope, item.source, "excluded (mcp.excluded)", disabled=True)
        elif isinstance(item, ClientServer) and allowed is not None and item.name not in allowed:
            item = LeftOut(item.name, item.scope, item.source, "not in mcp.allowed", disabled=True)
        (cfg.servers if isinstance(item, ClientServer) else cfg.left_out).append(item)
    cfg.left_out += replaced
    model = next((_model(d) for d in docs if _model(d)), None)
    if model:
        cfg.model, cfg.model_source = model, "model.name of Gemini CLI's settings"
    return cfg


def _transport(entry: dict) -> dict:
    """`httpUrl` is Streamable HTTP; `url` without a type is the deprecated SSE transport."""
    if "httpUrl" in entry:
        return {**{k: v for k, v in entry.items() if k != "httpUrl"}, "url": entry["httpUrl"], "type": "http"}
    if "url" in entry and "type" not in entry:
        return {**entry, "type": "sse"}
    return entry


def _tool_filters(item, entry: Any):
    if isinstance(item, LeftOut) or not isinstance(entry, dict):
        return item
    include = entry.get("includeTools")
    return replace(item, only_tools=tuple(map(str, include)) if isinstance(include, list) else None,
                   hidden_tools=tuple(map(str, entry.get("excludeTools") or [])))


def _lists(docs: list[dict]) -> tuple[set[str] | None, set[str]]:
    """(mcp.allowed, or None when no file sets it; mcp.excluded and the older excludeMCPServers)."""
    allowed: set[str] | None = None
    excluded: set[str] = set()
    for d in docs:
        mcp = d.get("mcp") if isinstance(d.get("mcp"), dict) else {}
        allow = mcp.get("allowed", d.get("allowMCPServers"))
        if isinstance(allow, list) and allowed is None:  # the project's list, else the user's
            allowed = set(map(str, allow))
        excluded |= set(map(str, mcp.get("excluded", d.get("excludeMCPServers")) or []))
    return allowed, excluded


def _model(doc: dict) -> str | None:
    m = doc.get("model")
    m = m.get("name") if isinstance(m, dict) else m
    return m if isinstance(m, str) and m else None
