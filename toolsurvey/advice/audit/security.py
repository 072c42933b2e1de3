"""Tool poisoning (security) rules: the scan lives in advice.poisoning; each of its rules becomes one audit rule."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ...core.registry import Registry
from ..poisoning.rules import REGISTRY_KINDS, RULES
from ..poisoning.scan import scan
from ..poisoning.squatting import look_alikes
from .rule import Ctx, Hit, Rule


def security_rules() -> list[Rule]:
    """One audit rule per poisoning rule, in the order of `advice.poisoning.rules.RULES`."""
    return [Rule(rid, level, "security", title, fix,
                 check_squatting if kind in REGISTRY_KINDS else poisoning_check(level, kind),
                 scope="registry" if kind in REGISTRY_KINDS else "tool")
            for rid, level, kind, title, fix in RULES]


def poisoning_check(level: str, kind: str) -> Callable[[Ctx], Iterator[Hit]]:
    """The check of one poisoning rule: the scan's signals of that level and kind (one scan per tool)."""
    def check(ctx: Ctx):
        siblings = ctx.cfg.get("_server_tools", {}).get(ctx.tool.server, frozenset())
        signals = ctx.memo("poisoning", lambda: scan(ctx.tool, ctx.cfg["poisoning"], siblings))
        for s in signals:
            if s.level == level and s.kind == kind:
                yield Hit(f"{s.where}: {s.evidence}")
    return check


def check_squatting(reg: Registry, cfg: dict, encoding: str) -> Iterator[Hit]:
    for tool, other, how in look_alikes(reg):
        yield Hit(f"name: {how} on server {other.server!r}; one of them may be squatting on the other's name",
                  tool=tool, other=other.key)
