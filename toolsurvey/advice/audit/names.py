"""Name rules: the providers' pattern, length, verb_object shape, generic verbs, endpoint-shaped names,
and the same name on several servers."""

from __future__ import annotations

import re

from ...core.registry import Registry, Tool
from .rule import Ctx, Hit, short


def check_name_invalid(ctx: Ctx):
    if not re.fullmatch(ctx.cfg["names"]["pattern"], ctx.tool.name):
        yield Hit(f"{short(ctx.tool.name)} ({len(ctx.tool.name)} characters) does not match "
                  f"{ctx.cfg['names']['pattern']}")


def check_name_long(ctx: Ctx):
    n, hi = len(ctx.tool.name), ctx.cfg["names"]["max_length"]
    if n > hi:
        yield Hit(f"{n} characters (> {hi}); a client prefix such as mcp__{ctx.tool.server}__ "
                  f"makes it {n + len(ctx.tool.server) + 7}")


def _is_generic(ctx: Ctx) -> bool:
    return ctx.tool.name.lower() in set(ctx.cfg["names"]["generic"])


def check_name_generic(ctx: Ctx):
    if _is_generic(ctx):
        yield Hit(f"{ctx.tool.name!r} is a bare verb that says nothing about what it acts on")


def check_name_not_verb_object(ctx: Ctx):
    name = ctx.tool.name
    if (_is_generic(ctx) or not re.fullmatch(ctx.cfg["names"]["pattern"], name)
            or re.fullmatch(ctx.cfg["names"]["endpoint_pattern"], name)):
        return  # reported by the generic-name, invalid-name or endpoint rule
    verbs = set(ctx.cfg["names"]["verbs"])
    parts = name.split("_")
    if not re.fullmatch(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+", name):
        yield Hit(f"{name!r} is not snake_case verb_object")
    elif not (parts[0] in verbs or (len(parts) >= 3 and parts[1] in verbs)):
        yield Hit(f"{name!r} does not start with a verb (optionally after a service prefix)")


def check_name_mirrors_endpoint(ctx: Ctx):
    m = re.fullmatch(ctx.cfg["names"]["endpoint_pattern"], ctx.tool.name)
    if m:
        yield Hit(f"{ctx.tool.name!r} spells an HTTP method and path, as OpenAPI generators do")


def check_name_collision(reg: Registry, cfg: dict, encoding: str):
    by_name: dict[str, list[Tool]] = {}
    for t in reg:
        by_name.setdefault(t.name, []).append(t)
    for name, servers in sorted(reg.collisions().items()):
        for t in by_name[name]:
            others = [o for o in by_name[name] if o.server != t.server]
            where = (f"also defined by {', '.join(sorted({o.server for o in others}))}{_kinship(t, others)}"
                     if others else f"defined {servers.count(t.server)} times in {t.server}")
            yield Hit(f"{name!r} is {where}", tool=t,
                      fix=f"prefix the name with the service it belongs to (e.g. {t.server}_{name})")


def _kinship(t: Tool, others: list[Tool]) -> str:
    """What the same name on other servers means: a copy, a look-alike that may squat, or another tool."""
    if all(o.as_sent() == t.as_sent() for o in others):
        return " with the same definition (the same server twice?)"
    if any(o.description == t.description for o in others):
        return " with the same description and a different schema: one of them may be squatting on the name"
    return "; a client that drops server prefixes may call the wrong one"
