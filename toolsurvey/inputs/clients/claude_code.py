"""Claude Code's MCP servers for one project: local scope (`projects.<path>.mcpServers` in
~/.claude.json), project scope (.mcp.json), user scope (`mcpServers` in ~/.claude.json), in that
order of precedence, less the servers it turns off; and the settings that change what it sends."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...core.jsonc import read_jsonc
from ...providers.clients import deny_matcher
from .config import ClientConfig, LeftOut
from .entries import Where, by_precedence, entries_of, lines_at, load_object

KNOWN = frozenset({"type", "command", "args", "env", "cwd", "url", "headers", "headersHelper", "oauth",
                   "alwaysLoad", "timeout", "request_timeout_ms"})


def config_dir(home: Path, environ: Mapping[str, str]) -> tuple[Path, Path]:
    """(the .claude.json file, the folder of the user settings): `$CLAUDE_CONFIG_DIR` when set."""
    if environ.get("CLAUDE_CONFIG_DIR"):
        base = Path(environ["CLAUDE_CONFIG_DIR"]).expanduser()
        return base / ".claude.json", base
    return home / ".claude.json", home / ".claude"


def project_key(project: Path) -> str:
    """The key of `project` under `projects` in .claude.json: the root of the git repository it is in
    (a worktree's main repository), else the folder itself, as Claude Code's getProjectPathForConfig."""
    for folder in (project, *project.parents):
        git = folder / ".git"
        if git.is_dir():
            return str(folder)
        if git.is_file():
            text = git.read_text(encoding="utf-8", errors="replace").strip()
            target = Path(text.removeprefix("gitdir:").strip()) if text.startswith("gitdir:") else None
            if target is not None and target.parent.name == "worktrees":  # <main>/.git/worktrees/<name>
                return str((folder / target).resolve().parent.parent.parent)
            return str(folder)
    return str(project)


def read(project: Path, home: Path, environ: Mapping[str, str], shown) -> ClientConfig:
    """Claude Code's servers for `project`; `shown(path)` is how a path is written in messages."""
    cfg = ClientConfig("claude-code", "Claude Code", str(project))
    state_path, settings_dir = config_dir(home, environ)
    state, state_lines = load_object(state_path, cfg, "user and local", shown)
    settings = _settings([settings_dir / "settings.json", project / ".claude" / "settings.json",
                          project / ".claude" / "settings.local.json"], cfg)
    key = project_key(project)
    local = (state.get("projects") or {}).get(key)
    local = local if isinstance(local, dict) else {}
    env = {**environ, **cfg.env}
    at_project = ("projects", key, "mcpServers")
    found = [*entries_of(state.get("mcpServers"), Where(shown(state_path), "user", cfg.label, lines_at(state_lines, "mcpServers"), str(state_path)),
                         KNOWN, env, cfg, rank=2, source=f"{shown(state_path)} mcpServers"),
             *entries_of(local.get("mcpServers"), Where(shown(state_path), "local", cfg.label, lines_at(state_lines, *at_project), str(state_path)),
                         KNOWN, env, cfg, rank=0, source=f"{shown(state_path)} projects[{key!r}].mcpServers"),
             *_mcp_json_entries(project, cfg, env, shown)]
    kept, replaced = by_precedence(found, cfg.label)
    for item in kept:
        _switch(cfg, item, local, settings, shown(state_path))
    cfg.left_out += replaced
    model = cfg.env.get("ANTHROPIC_MODEL") or environ.get("ANTHROPIC_MODEL")
    if model:
        cfg.model, cfg.model_source = model, "ANTHROPIC_MODEL"
    elif settings.get("model"):
        cfg.model, cfg.model_source = str(settings["model"]), "the model of Claude Code's settings"
    return cfg


def _mcp_json_entries(project: Path, cfg: ClientConfig, env: Mapping[str, str], shown) -> list:
    """The project-scope servers: the .mcp.json of the folder and of each folder above it (not the
    filesystem's root), a closer file's entry winning, as Claude Code's getMcpConfigsByScope reads them.
    A folder above that has no .mcp.json is not listed in the notes."""
    found = []
    for depth, folder in enumerate([project, *project.parents]):
        path = folder / ".mcp.json"
        if folder == Path(folder.anchor) or (depth and not path.exists()):
            continue
        data, lines = load_object(path, cfg, "project", shown)
        found += entries_of(data.get("mcpServers"), Where(shown(path), "project", cfg.label,
                                                          lines_at(lines, "mcpServers"), str(path)),
                            KNOWN, env, cfg, rank=1 + depth / 1000)
    return found


def _settings(paths: list[Path], cfg: ClientConfig) -> dict[str, Any]:
    """The settings files merged in order (user, project, local): `env` joined key by key, the MCP
    approval lists joined, other keys from the last file that sets them."""
    out: dict[str, Any] = {"enabledMcpjsonServers": set(), "disabledMcpjsonServers": set(), "deny": []}
    for p in paths:
        if not p.exists():
            continue
        data, _ = read_jsonc(p, comments=False)
        if not isinstance(data, dict):
            continue
        env = data.get("env")
        cfg.env.update({str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {})
        for key in ("enabledMcpjsonServers", "disabledMcpjsonServers"):
            out[key] |= {str(n) for n in data.get(key) or []}
        permissions = data.get("permissions") if isinstance(data.get("permissions"), dict) else {}
        deny = permissions.get("deny")
        out["deny"] += [str(r) for r in deny] if isinstance(deny, list) else []
        out.update({k: v for k, v in data.items() if k not in ("env", "enabledMcpjsonServers", "disabledMcpjsonServers",
                                                               "permissions")})
    return out


def _switch(cfg: ClientConfig, item, local: dict, settings: dict, state: str) -> None:
    """Keep a server, or leave it out as Claude Code does: toggled off in /mcp (the project's
    `disabledMcpServers` in ~/.claude.json), or a .mcp.json server rejected (`disabledMcpjsonServers`).
    A .mcp.json server not yet approved is kept with a note. A kept server's tools that a
    `permissions.deny` rule names are not sent to the model."""
    if isinstance(item, LeftOut):
        cfg.left_out.append(item)
        return
    item = replace(item, denied=deny_matcher(cfg.client, item.name, settings["deny"]))
    if item.name in {str(n) for n in local.get("disabledMcpServers") or []}:
        cfg.left_out.append(LeftOut(item.name, item.scope, item.source, "turned off in /mcp "
                                    f"(disabledMcpServers of this project in {state})", disabled=True))
        return
    if item.scope != "project":
        cfg.servers.append(item)
        return
    rejected = {str(n) for n in local.get("disabledMcpjsonServers") or []} | settings["disabledMcpjsonServers"]
    approved = {str(n) for n in local.get("enabledMcpjsonServers") or []} | settings["enabledMcpjsonServers"]
    if item.name in rejected:
        if item.name in approved:
            cfg.warnings.append(f"server {item.name!r} is both approved (enabledMcpjsonServers) and rejected "
                                "(disabledMcpjsonServers); Claude Code rejects it")
        cfg.left_out.append(LeftOut(item.name, item.scope, item.source, "rejected (disabledMcpjsonServers)",
                                    disabled=True))
        return
    if not (local.get("enableAllProjectMcpServers") or settings.get("enableAllProjectMcpServers")) \
            and item.name not in approved:
        item = replace(item, notes=(*item.notes, "not yet approved: an interactive session asks before "
                                                 "starting it (claude -p starts it without asking)"))
    cfg.servers.append(item)
