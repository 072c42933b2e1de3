"""`read_client`: a client's MCP servers for one project, found where the client itself looks."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ...errors import InputError
from . import claude_code, codex, gemini_cli, mcp_json, vscode
from .config import ClientConfig

CLIENTS = ("claude-code", "codex", "vscode", "cursor", "windsurf", "gemini-cli", "claude-desktop")


def read_client(client: str, project: str | os.PathLike | None = None, *, home: str | os.PathLike | None = None,
                environ: Mapping[str, str] | None = None, servers: list[str] | None = None,
                inputs: Mapping[str, str] | None = None) -> ClientConfig:
    """The servers `client` starts in `project` (default: the current folder), from its user and
    project config files, as the client reads them; `servers` picks some by name; `inputs` gives
    VS Code's `${input:id}` values.

    Raises InputError for an unknown client, no config file found (naming the paths looked in), a
    file that is not valid JSON or TOML (file, line and column), and a server named in `servers`
    that the client does not have or turns off.
    """
    if client not in CLIENTS:
        raise InputError(f"unknown client {client!r}; expected one of: {', '.join(CLIENTS)}")
    environ = os.environ if environ is None else environ
    home_path = Path(home or environ.get("HOME") or Path.home()).expanduser()
    folder = Path(project or os.getcwd()).expanduser().resolve()

    def shown(path: Path) -> str:
        """A path as messages write it: under the home folder as ~/…"""
        try:
            return "~/" + Path(path).relative_to(home_path).as_posix()
        except ValueError:
            return str(path)

    if client == "claude-code":
        cfg = claude_code.read(folder, home_path, environ, shown)
    elif client == "codex":
        cfg = codex.read(folder, home_path, environ, shown)
    elif client == "vscode":
        cfg = vscode.read(folder, home_path, environ, shown, inputs=inputs)
    elif client == "gemini-cli":
        cfg = gemini_cli.read(folder, home_path, environ, shown)
    else:
        cfg = mcp_json.read(client, folder, home_path, environ, shown)
    if not any(f.found for f in cfg.files):
        raise InputError(f"no {cfg.label} config found for {folder}: looked in "
                         + ", ".join(f"{f.path} ({f.scope})" for f in cfg.files))
    return cfg.pick(list(servers or []))
