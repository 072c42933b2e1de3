"""The tool names the model sees: a client's namespacing applied, and the names a provider would reject."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from ...core.registry import Registry
from ...errors import InputError

NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # what OpenAI and Anthropic accept as a tool name
PREFIXES = {"claude-code": "mcp__{server}__{tool}"}  # clients whose namespacing is documented


def name_template(prefix: str) -> str:
    """The name template of a client in PREFIXES, or `prefix` itself; raises InputError without {tool}."""
    template = PREFIXES.get(prefix, prefix)
    if "{tool}" not in template:
        raise InputError(f"prefix template {prefix!r} has no {{tool}} field; "
                         f"expected e.g. 'mcp__{{server}}__{{tool}}' or one of: {', '.join(PREFIXES)}")
    return template


def apply_prefix(reg: Registry, template: str, shorten: Callable[[str], str] | None = None) -> Registry:
    """Each tool renamed as a client shows it to the model, e.g. `mcp__{server}__{tool}`, then passed
    through `shorten` when the client rewrites the names it makes.

    Raises InputError for a template without a {tool} field.
    """
    template = name_template(template)

    def made(server: str, tool: str) -> str:
        new = template.replace("{server}", server).replace("{tool}", tool)
        return shorten(new) if shorten else new

    out = rename_tools(reg, made)
    for name, s in out.servers.items():
        out.servers[name] = replace(s, info={**s.info, "name_template": template})
    return out


def rename_tools(reg: Registry, name_of: Callable[[str, str], str]) -> Registry:
    """Each tool under `name_of(server, tool)`, in its definition as sent too."""

    def rename(t):
        new = name_of(t.server, t.name)
        raw = {k: (new if k == "name" else v) for k, v in t.raw.items()} if t.raw is not None else None
        return replace(t, name=new, raw=raw)

    return reg.map(rename)


def name_problems(reg: Registry) -> list[str]:
    """Names a provider would reject: shared by several servers, or outside ^[a-zA-Z0-9_-]{1,64}$."""
    problems = [f"tool name {n!r} is defined by several servers ({', '.join(sorted(set(s)))}); "
                "without a per-server prefix the model cannot tell them apart"
                for n, s in reg.collisions().items()]
    for t in reg:
        if not NAME_PATTERN.match(t.name):
            why = f"{len(t.name)} characters, over 64" if len(t.name) > 64 else "characters outside a-z A-Z 0-9 _ -"
            problems.append(f"{t.key}: name {t.name!r} breaks ^[a-zA-Z0-9_-]{{1,64}}$ ({why})")
    return problems
