"""The tool names the model sees: a client's namespacing applied, and the names a provider would reject."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from ...core.registry import Registry
from ...errors import InputError
from ...providers.clients import name_templates
from ...providers.limits import tool_name_rule


def name_template(prefix: str) -> str:
    """The name template of a client whose namespacing is documented (providers.toml [clients.*]),
    or `prefix` itself; raises InputError without {tool}."""
    known = name_templates()
    template = known.get(prefix, prefix)
    if "{tool}" not in template:
        raise InputError(f"prefix template {prefix!r} has no {{tool}} field; "
                         f"expected e.g. 'mcp__{{server}}__{{tool}}' or one of: {', '.join(known)}")
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
    """Names a provider would reject: shared by several servers, or outside the tool-name pattern
    OpenAI and Anthropic share (providers.toml [tool_names.shared])."""
    problems = [f"tool name {n!r} is defined by several servers ({', '.join(sorted(set(s)))}); "
                "without a per-server prefix the model cannot tell them apart"
                for n, s in reg.collisions().items()]
    rule = tool_name_rule()
    pattern, most = re.compile(rule["pattern"]), rule["max_length"]
    for t in reg:
        if not pattern.match(t.name):
            why = f"{len(t.name)} characters, over {most}" if len(t.name) > most else "characters outside a-z A-Z 0-9 _ -"
            problems.append(f"{t.key}: name {t.name!r} breaks {rule['pattern']} ({why})")
    return problems
