"""One server entry of a client's config: checked against the keys the client documents, its
variables filled in the client's own syntax, and turned into a server to start or a reason not to."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ...core.jsonc import read_jsonc
from ...errors import InputError
from ..configs import MissingValue, entry_spec
from .config import ClientConfig, ClientServer, ConfigFile, LeftOut

# `${name}` or `${name:argument}` in VS Code's, Cursor's and Windsurf's syntax: env:VAR, input:ID,
# workspaceFolder, userHome, pathSeparator, / ...
_EDITOR_VAR = re.compile(r"\$\{([A-Za-z/][A-Za-z0-9_/]*)(?::([^}]*))?\}")


@dataclass(frozen=True)
class Where:
    """Where a file's server entries are: the file, its scope, and how to find an entry's line."""

    path: str
    scope: str
    label: str  # the client's name, for messages
    line: Callable[[str, str | None], int | None] = lambda name, key: None  # (server, key) -> line
    file: str = ""  # the real path (`path` is as messages show it)

    def at(self, name: str, key: str | None = None) -> str:
        n = self.line(name, key)
        return f"{self.path} line {n}" if n else self.path


def read_entry(name: str, entry: Any, where: Where, known: frozenset[str], environ: Mapping[str, str], *,
               expand: bool = True, fill: Callable[[Any], Any] | None = None,
               source: str | None = None) -> tuple[ClientServer | LeftOut, list[str]]:
    """The server an entry describes, or why it cannot be started; plus one warning per key the
    client does not document and per broken entry (each with its file and line).

    `fill` replaces the client's own variables in every string of the entry first (it raises
    MissingValue for one without a value); `expand` then applies `${VAR}` / `${VAR:-default}`."""
    source = source or where.path
    if not isinstance(entry, dict):
        why = f"expected an object with 'command' or 'url', found {type(entry).__name__}"
        return LeftOut(name, where.scope, source, why), [f"{where.at(name)}: server {name!r}: {why}"]
    warnings = [f"{where.at(name, k)}: server {name!r}: unknown key {k!r}, not one {where.label} documents "
                f"(expected one of: {', '.join(sorted(known))})" for k in entry if k not in known]
    prefix = f"{source}: server {name!r}"
    try:
        filled = fill(entry) if fill else entry
        spec = entry_spec(name, filled, prefix, environ, expand=expand)
    except MissingValue as e:
        why = str(e).removeprefix(prefix).lstrip(": ")
        return LeftOut(name, where.scope, source, f"needs a value: {why}"), warnings
    except InputError as e:
        why = str(e).removeprefix(prefix).lstrip(": ")
        return LeftOut(name, where.scope, source, why), [*warnings, f"{where.at(name)}: server {name!r}: {why}"]
    return ClientServer(spec, where.scope, source, always_load=entry.get("alwaysLoad") is True,
                        file=where.file), warnings


def editor_variables(values: Mapping[str, str], environ: Mapping[str, str],
                     inputs: Mapping[str, str] | None = None, prompts: Mapping[str, str] | None = None,
                     label: str = "the client") -> Callable[[Any], Any]:
    """A `fill` for `${env:VAR}`, `${input:ID}` and the named variables in `values` (workspaceFolder,
    userHome, ...): it raises MissingValue naming a variable that is not set or an input not given."""
    def one(m: re.Match) -> str:
        kind, arg = m[1], m[2]
        if kind == "env" and arg is not None:
            if arg not in environ:
                raise MissingValue(f"environment variable {arg} is not set")
            return environ[arg]
        if kind == "input" and arg is not None:
            if inputs is None or arg not in inputs:
                what = f" ({prompts[arg]})" if prompts and prompts.get(arg) else ""
                raise MissingValue(f"input {arg!r}{what}, which {label} asks for when it starts the server; "
                                   f"give it with --input {arg}=VALUE")
            return inputs[arg]
        if arg is None and kind in values:
            return values[kind]
        return m[0]  # not a variable this client knows: left as written

    def fill(value: Any) -> Any:
        if isinstance(value, str):
            return _EDITOR_VAR.sub(one, value)
        if isinstance(value, dict):
            return {k: fill(v) for k, v in value.items()}
        if isinstance(value, list):
            return [fill(v) for v in value]
        return value

    return fill


def by_precedence(found: list[tuple[float, ClientServer | LeftOut]], label: str) -> tuple[list, list[LeftOut]]:
    """Per server name, the entry of the highest precedence (the lowest number); the others are left
    out as replaced. Returns (servers and left-outs that won, the replaced ones)."""
    best: dict[str, tuple[float, ClientServer | LeftOut]] = {}
    replaced: list[LeftOut] = []
    for rank, item in found:
        held = best.get(item.name)
        if held is None or rank < held[0]:
            if held is not None:
                replaced.append(_replaced(held[1], item, label))
            best[item.name] = (rank, item)
        else:
            replaced.append(_replaced(item, held[1], label))
    return [item for _, item in best.values()], replaced


def _replaced(loser, winner, label: str) -> LeftOut:
    return LeftOut(loser.name, loser.scope, loser.source,
                   f"replaced by the {winner.scope}-scope entry of the same name ({winner.source}), "
                   f"as {label} takes the whole entry from the higher scope")


def load_object(path: Path, cfg: ClientConfig, scope: str, shown, comments: bool = False) -> tuple[dict, dict]:
    """A JSON file's object and key lines, recorded in cfg.files; ({}, {}) when it does not exist."""
    if not path.exists():
        cfg.files.append(ConfigFile(shown(path), scope, False))
        return {}, {}
    data, lines = read_jsonc(path, comments=comments)
    if not isinstance(data, dict):
        cfg.warnings.append(f"{shown(path)}: expected a JSON object, found {type(data).__name__}; ignored")
        data = {}
    cfg.files.append(ConfigFile(shown(path), scope, True))
    return data, lines


def lines_at(lines: dict[tuple, int], *prefix) -> Callable[[str, str | None], int | None]:
    """A Where.line for the server entries found under the keys `prefix` of a JSON file."""
    return lambda name, key: lines.get((*prefix, name, *((key,) if key else ())))


def entries_of(servers: Any, where: Where, known: frozenset[str], environ: Mapping[str, str], cfg: ClientConfig,
               *, rank: float = 0, source: str | None = None, **options) -> list[tuple[float, ClientServer | LeftOut]]:
    """(rank, server or left-out) for each entry of an `mcpServers`-like object (see read_entry, which
    `options` go to); its warnings are added to cfg, and its count to the file's."""
    if servers is None:
        return []
    if not isinstance(servers, dict):
        cfg.warnings.append(f"{where.path}: expected an object of servers, found {type(servers).__name__}; ignored")
        return []
    out = []
    for name, entry in servers.items():
        item, warnings = read_entry(str(name), entry, where, known, environ, source=source, **options)
        cfg.warnings += warnings
        out.append((rank, item))
    cfg.files = [replace(f, servers=f.servers + len(servers)) if f.path == where.path and f.found else f
                 for f in cfg.files]
    return out
