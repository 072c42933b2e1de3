"""Codex's MCP servers: the `[mcp_servers.<name>]` tables of $CODEX_HOME/config.toml (default
~/.codex/config.toml) and, in a project Codex trusts, of the project's .codex/config.toml."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...core.assumptions import read_toml
from ...core.files import read_text
from ..configs import MissingValue
from .config import ClientConfig, ClientServer, ConfigFile, LeftOut
from .entries import Where, by_precedence, entries_of

KNOWN = frozenset({"command", "args", "env", "env_vars", "cwd", "url", "bearer_token_env_var", "http_headers",
                   "env_http_headers", "enabled", "required", "enabled_tools", "disabled_tools",
                   "startup_timeout_sec", "startup_timeout_ms", "tool_timeout_sec", "oauth", "oauth_resource",
                   "scopes", "tools", "transport"})
_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(?:#.*)?$")
_KEY = re.compile(r'^\s*("(?:[^"\\]|\\.)*"|[A-Za-z0-9_-]+)\s*=')


def read(project: Path, home: Path, environ: Mapping[str, str], shown) -> ClientConfig:
    """Codex's servers for `project` (a project entry replaces a user entry of the same name)."""
    cfg = ClientConfig("codex", "Codex", str(project))
    base = Path(environ["CODEX_HOME"]).expanduser() if environ.get("CODEX_HOME") else home / ".codex"
    user = _load(base / "config.toml", cfg, "user", shown)
    found = _servers(user, base / "config.toml", "user", 1, cfg, environ, shown)
    path = project / ".codex" / "config.toml"
    if path.exists() and not _trusted(user, project):
        cfg.files.append(ConfigFile(shown(path), "project", True))
        cfg.warnings.append(f"{shown(path)}: not read, as Codex reads a project's config only when the project "
                            f"is trusted ([projects.\"{project}\"] trust_level = \"trusted\" in {shown(base / 'config.toml')})")
        proj: dict = {}
    else:
        proj = _load(path, cfg, "project", shown)
        found += _servers(proj, path, "project", 0, cfg, environ, shown)
    kept, replaced = by_precedence(found, cfg.label)
    cfg.servers += [s for s in kept if isinstance(s, ClientServer)]
    cfg.left_out += [s for s in kept if isinstance(s, LeftOut)] + replaced
    model = proj.get("model") or user.get("model")
    if isinstance(model, str):
        cfg.model, cfg.model_source = model, "the model of Codex's config.toml"
    return cfg


def _load(path: Path, cfg: ClientConfig, scope: str, shown) -> dict:
    if not path.exists():
        cfg.files.append(ConfigFile(shown(path), scope, False))
        return {}
    doc = read_toml(path, "Codex config")  # a syntax error is one line naming the file, line and column
    cfg.files.append(ConfigFile(shown(path), scope, True))
    return doc


def _trusted(user: dict, project: Path) -> bool:
    """Whether `[projects."<path>"]` of the user config trusts the project or a folder above it."""
    projects = user.get("projects") if isinstance(user.get("projects"), dict) else {}
    for folder in (project, *project.parents):
        entry = projects.get(str(folder))
        if isinstance(entry, dict) and entry.get("trust_level") == "trusted":
            return True
    return False


def _servers(doc: dict, path: Path, scope: str, rank: int, cfg: ClientConfig, environ, shown) -> list:
    servers = doc.get("mcp_servers")
    if not isinstance(servers, dict):
        return []
    lines = toml_lines(read_text(path))
    where = Where(shown(path), scope, cfg.label, lambda n, k: lines.get(("mcp_servers", n, *((k,) if k else ()))),
                  str(path))
    found = entries_of(servers, where, KNOWN, environ, cfg, rank=rank, expand=False, fill=_generic(environ))
    return [(r, _filters(item, servers.get(item.name))) for r, item in found]


def _generic(environ: Mapping[str, str]):
    """A `fill` turning a Codex entry into the shape entry_spec reads: `env_vars` forwarded from the
    environment, `bearer_token_env_var` and `env_http_headers` turned into headers. An unset bearer
    token variable raises MissingValue (Codex would send no token)."""
    def fill(entry: dict) -> dict:
        out = {k: v for k, v in entry.items() if k not in ("http_headers", "env_http_headers", "bearer_token_env_var")}
        env = entry.get("env") or {}
        if isinstance(env, dict):
            out["env"] = {**env, **{n: environ[n] for n in entry.get("env_vars") or []
                                    if isinstance(n, str) and n in environ}}
        headers = dict(entry.get("http_headers") or {}) if isinstance(entry.get("http_headers"), dict) else {}
        extra = entry.get("env_http_headers") or {}
        headers.update({h: environ[v] for h, v in extra.items() if v in environ} if isinstance(extra, dict) else {})
        if entry.get("bearer_token_env_var"):
            var = str(entry["bearer_token_env_var"])
            if var not in environ:
                raise MissingValue(f"bearer_token_env_var: environment variable {var} is not set")
            headers["Authorization"] = f"Bearer {environ[var]}"
        if headers:
            out["headers"] = headers
        return out

    return fill


def _filters(item, entry: Any):
    """A server turned off (`enabled = false`), or kept with its tool filters: Codex keeps only
    `enabled_tools` when given, then removes `disabled_tools`."""
    if isinstance(item, LeftOut) or not isinstance(entry, dict):
        return item
    if entry.get("enabled") is False:
        return LeftOut(item.name, item.scope, item.source, "enabled = false", disabled=True)
    only = entry.get("enabled_tools")
    return replace(item, only_tools=tuple(map(str, only)) if isinstance(only, list) else None,
                   hidden_tools=tuple(map(str, entry.get("disabled_tools") or [])))


def toml_lines(text: str) -> dict[tuple, int]:
    """The line of each table header and key of a TOML text, by its path, e.g.
    `("mcp_servers", "github", "command")` (for messages; inline tables are not looked into)."""
    out: dict[tuple, int] = {}
    table: tuple = ()
    for n, line in enumerate(text.splitlines(), 1):
        if m := _HEADER.match(line):
            table = tuple(_parts(m[1]))
            out.setdefault(table, n)
        elif m := _KEY.match(line):
            out.setdefault((*table, _parts(m[1])[0]), n)
    return out


def _parts(dotted: str) -> list[str]:
    return [p.strip().strip('"') for p in re.findall(r'"(?:[^"\\]|\\.)*"|[^.]+', dotted)]
