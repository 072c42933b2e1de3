"""VS Code's MCP servers: the `servers` of the workspace's .vscode/mcp.json and of the user profile's
mcp.json (JSON with comments), their `${input:id}` values prompted for (given here with --input),
`${env:VAR}`, `${workspaceFolder}` and `${userHome}` filled in."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from .config import ClientConfig, ClientServer, LeftOut
from .entries import Where, by_precedence, editor_variables, entries_of, lines_at, load_object
from .mcp_json import app_data

KNOWN = frozenset({"type", "command", "args", "env", "envFile", "cwd", "url", "headers", "dev", "sandboxEnabled",
                   "sandbox", "gallery", "version"})
TOP = frozenset({"servers", "inputs"})


def read(project: Path, home: Path, environ: Mapping[str, str], shown,
         inputs: Mapping[str, str] | None = None) -> ClientConfig:
    """VS Code's servers for the workspace `project` (a workspace entry replaces a user entry of the
    same name); a server whose `${input:…}` has no value given is left out, saying it needs one."""
    cfg = ClientConfig("vscode", "VS Code", str(project))
    found = []
    paths = [(project / ".vscode" / "mcp.json", "project"), (app_data(home, environ) / "Code" / "User" / "mcp.json", "user")]
    for rank, (path, scope) in enumerate(paths):
        data, lines = load_object(path, cfg, scope, shown, comments=True)
        cfg.warnings += [f"{shown(path)} line {lines.get((k,), '?')}: unknown key {k!r}, not one VS Code documents "
                         "(expected servers and inputs" + ("; VS Code reads `servers`, not `mcpServers`)"
                                                          if k == "mcpServers" else ")") for k in data if k not in TOP]
        prompts = {str(i.get("id")): str(i.get("description", "")) for i in data.get("inputs") or []
                   if isinstance(i, dict)}
        fill = editor_variables({"userHome": str(home), "workspaceFolder": str(project),
                                 "workspaceFolderBasename": project.name, "pathSeparator": "/", "/": "/"},
                                environ, inputs=inputs or {}, prompts=prompts, label=cfg.label)
        where = Where(shown(path), scope, cfg.label, lines_at(lines, "servers"), str(path))
        found += entries_of(data.get("servers"), where, KNOWN, environ, cfg, rank=rank, expand=False, fill=fill)
    kept, replaced = by_precedence(found, cfg.label)
    cfg.servers += [s for s in kept if isinstance(s, ClientServer)]
    cfg.left_out += [s for s in kept if isinstance(s, LeftOut)] + replaced
    return cfg
