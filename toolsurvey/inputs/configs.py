"""Where an MCP server runs: launch specs from a command, a URL or a client's `mcpServers` config."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from ..core.files import read_json
from ..core.http import REDACTED, check_url, is_url, redact_url
from ..errors import InputError

_VAR_START = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(:-|\})")
# Launchers whose first plain argument names the server better than the launcher does.
_RUNNERS = {"npx", "uvx", "node", "python", "python3", "deno", "bunx", "bun", "pipx", "uv", "run",
            "docker", "pnpm", "yarn", "dlx", "exec"}
_HTTP_TYPES = {"http", "streamable-http", "streamablehttp", "streamable_http"}


class MissingValue(InputError):
    """A config value names a variable that is not set (and has no default): the server needs a value."""


@dataclass(frozen=True)
class ServerSpec:
    """How to reach one MCP server: a command (stdio) or a URL (Streamable HTTP)."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    shown: dict[str, Any] | None = None  # the launch as written, before ${VAR} expansion
    secrets: tuple[str, ...] = ()  # values scrubbed from every message and record

    @property
    def transport(self) -> str:
        return "http" if self.url else "stdio"

    def launch(self) -> dict[str, Any]:
        """How the server was started, safe to save: env and header values redacted."""
        shown = self.shown or {}
        if self.url:
            out: dict[str, Any] = {"transport": "streamable-http", "url": redact_url(shown.get("url", self.url))}
            if self.headers:
                out["headers"] = {k: REDACTED for k in self.headers}
        else:
            out = {"transport": "stdio", "command": shown.get("command", self.command),
                   "args": list(shown.get("args", self.args))}
            if self.env:
                out["env"] = {k: REDACTED for k in self.env}
            if self.cwd:
                out["cwd"] = shown.get("cwd", self.cwd)
        return scrub(out, self.secrets)


def scrub(value: Any, secrets: tuple[str, ...]) -> Any:
    """`value` (text or JSON) with every secret string replaced by <redacted>."""
    if isinstance(value, str):
        for s in sorted(secrets, key=len, reverse=True):
            if len(s) >= 4:  # shorter values ("1", "on") would mangle ordinary words
                value = value.replace(s, REDACTED)
        return value
    if isinstance(value, dict):
        return {k: scrub(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(v, secrets) for v in value]
    return value


def secret_values(values, url: str | None = None) -> tuple[str, ...]:
    """Every value a server could echo back that must not be stored: header and env values, the
    token of 'Bearer TOKEN', and a URL's user, password and query values."""
    out = []
    for v in values:
        out.append(v)
        words = str(v).split()
        if len(words) > 1 and len(words[-1]) >= 8:  # 'Bearer sk-…': the token may be echoed alone
            out.append(words[-1])
    if url:
        parts = urlsplit(url)
        out += [s for s in (parts.username, parts.password) if s]
        out += [v for _, v in parse_qsl(parts.query, keep_blank_values=False)]
    return tuple(dict.fromkeys(s for s in out if s))


def name_for(target: str | list[str]) -> str:
    """A short server name for a command line or URL given without one."""
    if isinstance(target, str) and is_url(target):
        parts = urlsplit(target)
        base = parts.hostname or "server"
        base = f"{base}-{parts.port}" if parts.port else base
    else:
        words = shlex.split(target) if isinstance(target, str) else list(target)
        plain = [w for w in words if not w.startswith("-")]
        picked = next((w for w in plain if Path(w).name not in _RUNNERS), plain[0] if plain else "server")
        base = picked.rstrip("/").split("/")[-1]
        base = re.sub(r"@[^@]*$", "", base) if not base.startswith("@") else base  # drop @version
        base = re.sub(r"\.(js|mjs|cjs|py|ts)$", "", base)
    return re.sub(r"[^A-Za-z0-9_-]+", "-", base).strip("-") or "server"


def spec_for(target: str | list[str] | tuple[str, ...], *, name: str | None = None,
             headers: Mapping[str, str] | None = None, env: Mapping[str, str] | None = None,
             cwd: str | None = None) -> ServerSpec:
    """A spec for one URL or command line; raises InputError for an empty command."""
    headers, env = dict(headers or {}), dict(env or {})
    secrets = tuple(headers.values()) + tuple(env.values())
    if not isinstance(target, str) and len(target) == 1 and is_url(str(target[0])):
        target = str(target[0])
    if isinstance(target, str) and is_url(target):
        check_url(target, "the target")
        return ServerSpec(name or name_for(target), url=target, headers=headers,
                          secrets=secret_values(headers.values(), url=target))
    words = shlex.split(target) if isinstance(target, str) else [str(w) for w in target]
    if not words:
        raise InputError("no server to discover: expected a URL (http://…) or a command after '--'")
    return ServerSpec(name or name_for(words), command=words[0], args=tuple(words[1:]), env=env,
                      cwd=cwd, secrets=secret_values(secrets))


def parse_env(text: str) -> tuple[str, str]:
    """`"KEY=value"` -> (key, value); raises InputError naming the expected form."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise InputError(f"--env {key!r}: expected KEY=value")
    return key, value


# --- client config files ------------------------------------------------------------------------


def read_config(path: str | os.PathLike, only: list[str] | None = None,
                environ: Mapping[str, str] | None = None) -> list[ServerSpec]:
    """Specs for the servers in an `mcpServers` config (Claude Desktop, Claude Code, Cursor, VS Code).

    Raises InputError for a file that is not such a config, an unknown `--server` name, a bad
    entry, or a `${VAR}` that is not set and has no default.
    """
    environ = os.environ if environ is None else environ
    data = read_json(path)
    entries = None
    if isinstance(data, dict):
        entries = data.get("mcpServers", data.get("servers"))
    if not isinstance(entries, dict):
        found = f"keys {', '.join(list(data)[:6])}" if isinstance(data, dict) else type(data).__name__
        raise InputError(f"{path}: expected an MCP client config with an 'mcpServers' object, found {found}")
    if only:
        unknown = [n for n in only if n not in entries]
        if unknown:
            raise InputError(f"{path}: no server named {', '.join(map(repr, unknown))}; "
                             f"the config has: {', '.join(entries) or 'none'}")
        entries = {n: entries[n] for n in only}
    specs = []
    for name, entry in entries.items():
        if isinstance(entry, dict) and entry.get("disabled") is True and not only:
            continue
        specs.append(entry_spec(str(name), entry, f"{path}: server {name!r}", environ))
    return specs


def entry_spec(name: str, entry: Any, where: str, environ: Mapping[str, str], expand: bool = True) -> ServerSpec:
    """The spec of one `mcpServers` entry (command, args, env, cwd; or url, type, headers), its
    `${VAR}` and `${VAR:-default}` expanded from `environ` unless `expand` is False (values taken
    as written). Raises InputError for a bad entry, MissingValue for an unset variable."""
    if not isinstance(entry, dict):
        raise InputError(f"{where}: expected an object with 'command' or 'url', found {type(entry).__name__}")
    used: list[str] = []

    def expand(value: Any, key: str) -> str:
        if not isinstance(value, str):
            raise InputError(f"{where}: {key} must be a string, found {type(value).__name__}")
        return _expand(value, f"{where} {key}", environ, used) if expand else value

    kind = str(entry.get("type", "")).lower()
    if "url" in entry:
        if kind == "sse":
            raise InputError(f"{where}: the legacy SSE transport is not supported; "
                             "only stdio and Streamable HTTP ('type': 'http')")
        if kind and kind not in _HTTP_TYPES:
            raise InputError(f"{where}: unknown type {kind!r} for a URL; expected 'http'")
        headers = {expand(k, "header name"): expand(v, f"header {k!r}")
                   for k, v in _mapping(entry, "headers", where).items()}
        url = check_url(expand(entry["url"], "url"), f"{where} url")
        return ServerSpec(name, url=url, headers=headers, shown={"url": entry["url"]},
                          secrets=secret_values([*headers.values(), *used], url=url))
    if "command" not in entry:
        raise InputError(f"{where}: has neither 'command' (stdio) nor 'url' (Streamable HTTP)")
    args = entry.get("args", [])
    if not isinstance(args, list):
        raise InputError(f"{where}: args must be a list of strings, found {type(args).__name__}")
    env = {k: expand(v, f"env {k!r}") for k, v in _mapping(entry, "env", where).items()}
    command = expand(entry["command"], "command")
    args = [expand(a, f"args[{i}]") for i, a in enumerate(args)]
    cwd = expand(entry["cwd"], "cwd") if entry.get("cwd") else None
    shown = {"command": entry["command"], "args": entry.get("args", []), "cwd": entry.get("cwd")}
    return ServerSpec(name, command=command, args=tuple(args), env=env, cwd=cwd, shown=shown,
                      secrets=secret_values([*env.values(), *used]))


def _mapping(entry: dict, key: str, where: str) -> dict:
    value = entry.get(key) or {}
    if not isinstance(value, dict):
        raise InputError(f"{where}: {key} must be an object of strings, found {type(value).__name__}")
    return value


def _expand(text: str, where: str, environ: Mapping[str, str], used: list[str]) -> str:
    """`${VAR}` and `${VAR:-default}` from the environment, defaults nested as in
    `${A:-${B:-x}}`; raises InputError for an unset VAR with no default."""
    def value(parts: list) -> str:
        out = []
        for part in parts:
            if isinstance(part, str):
                out.append(part)
            elif part[0] in environ:
                used.append(environ[part[0]])
                out.append(environ[part[0]])
            elif part[1] is not None:
                out.append(value(part[1]))  # only now: an unset variable in an unused default is fine
            else:
                raise MissingValue(f"{where}: environment variable {part[0]} is not set "
                                 f"(set it, or write ${{{part[0]}:-default}} in the config)")
        return "".join(out)

    return value(_parse_vars(text, 0, nested=False)[0])


def _parse_vars(text: str, i: int, nested: bool) -> tuple[list, int]:
    """Text and (VAR, default parts or None) items from `text[i:]`, up to the `}` closing a default
    when `nested`; returns them and the index after. A `${` that is not a variable stays as text."""
    parts: list = []
    while i < len(text):
        if nested and text[i] == "}":
            return parts, i + 1
        m = _VAR_START.match(text, i)
        if m and m[2] == "}":
            parts.append((m[1], None))
            i = m.end()
        elif m:
            default, end = _parse_vars(text, m.end(), nested=True)
            if end > len(text) or not text[end - 1:end] == "}":  # no closing brace: keep it literal
                parts.append(text[i])
                i += 1
                continue
            parts.append((m[1], default))
            i = end
        else:
            parts.append(text[i])
            i += 1
    if nested:
        return parts, len(text) + 1  # unclosed
    return parts, i
