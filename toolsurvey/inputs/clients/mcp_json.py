"""Clients whose servers are the `mcpServers` object of a JSON file or two: Cursor (~/.cursor/mcp.json
and the project's .cursor/mcp.json), Windsurf (~/.codeium/windsurf/mcp_config.json) and Claude
Desktop (claude_desktop_config.json in the platform's application-data folder)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from .config import ClientConfig, ClientServer, LeftOut
from .entries import Where, by_precedence, editor_variables, entries_of, lines_at, load_object

_STDIO_HTTP = {"type", "command", "args", "env", "cwd", "url", "headers"}
KNOWN = {
    "cursor": frozenset(_STDIO_HTTP | {"envFile", "auth"}),
    "windsurf": frozenset(_STDIO_HTTP | {"serverUrl", "disabled", "disabledTools"}),
    "claude-desktop": frozenset(_STDIO_HTTP),
}
LABELS = {"cursor": "Cursor", "windsurf": "Windsurf", "claude-desktop": "Claude Desktop"}


def app_data(home: Path, environ: Mapping[str, str]) -> Path:
    """The folder applications keep their settings in: Application Support on macOS, %APPDATA% on
    Windows, $XDG_CONFIG_HOME or ~/.config elsewhere."""
    if sys.platform == "darwin":
        return home / "Library" / "Application Support"
    if sys.platform == "win32":
        return Path(environ["APPDATA"]) if environ.get("APPDATA") else home / "AppData" / "Roaming"
    return Path(environ["XDG_CONFIG_HOME"]) if environ.get("XDG_CONFIG_HOME") else home / ".config"


def files(client: str, project: Path, home: Path, environ: Mapping[str, str]) -> list[tuple[Path, str]]:
    """(path, scope) of each file the client reads, the highest precedence first."""
    if client == "cursor":  # the project's entry replaces the global one of the same name (assumed)
        return [(project / ".cursor" / "mcp.json", "project"), (home / ".cursor" / "mcp.json", "user")]
    if client == "windsurf":
        return [(home / ".codeium" / "windsurf" / "mcp_config.json", "user")]
    return [(app_data(home, environ) / "Claude" / "claude_desktop_config.json", "user")]


def read(client: str, project: Path, home: Path, environ: Mapping[str, str], shown) -> ClientConfig:
    """The client's servers for `project`, less those it turns off (Windsurf's `"disabled": true`)."""
    cfg = ClientConfig(client, LABELS[client], str(project))
    fill = None
    if client != "claude-desktop":  # Claude Desktop starts the command as written
        fill = editor_variables({"userHome": str(home), "workspaceFolder": str(project),
                                 "workspaceFolderBasename": project.name, "pathSeparator": "/", "/": "/"},
                                environ, label=cfg.label)
    found = []
    for rank, (path, scope) in enumerate(files(client, project, home, environ)):
        data, lines = load_object(path, cfg, scope, shown)
        servers = data.get("mcpServers")
        if client == "windsurf" and isinstance(servers, dict):  # its remote servers use serverUrl
            servers = {n: _url(e) for n, e in servers.items()}
        where = Where(shown(path), scope, cfg.label, lines_at(lines, "mcpServers"), str(path))
        for r, item in entries_of(servers, where, KNOWN[client], environ, cfg, rank=rank, expand=False, fill=fill):
            found.append((r, _windsurf(item, (servers or {}).get(item.name)) if client == "windsurf" else item))
    kept, replaced = by_precedence(found, cfg.label)
    cfg.servers += [s for s in kept if isinstance(s, ClientServer)]
    cfg.left_out += [s for s in kept if isinstance(s, LeftOut)] + replaced
    return cfg


def _url(entry):
    if isinstance(entry, dict) and "serverUrl" in entry and "url" not in entry:
        return {**{k: v for k, v in entry.items() if k != "serverUrl"}, "url": entry["serverUrl"]}
    return entry


def _windsurf(item, entry):
    """Windsurf turns a server off with `"disabled": true` and hides the tools in `disabledTools`."""
    if isinstance(item, LeftOut) or not isinstance(entry, dict):
        return item
    if entry.get("disabled") is True:
        return LeftOut(item.name, item.scope, item.source, '"disabled": true', disabled=True)
    return replace(item, hidden_tools=tuple(map(str, entry.get("disabledTools") or [])))
