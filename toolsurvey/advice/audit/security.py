"""Tool poisoning (security) rules: the scan lives in advice.poisoning; each of its rules becomes one audit rule."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .. import poisoning
from .rule import Ctx, Hit


def poisoning_check(level: str, kind: str) -> Callable[[Ctx], Iterator[Hit]]:
    """The check of one poisoning rule: the scan's signals of that level and kind (one scan per tool)."""
    def check(ctx: Ctx):
        signals = ctx.memo("poisoning", lambda: poisoning.scan(ctx.tool, ctx.cfg["poisoning"]))
        for s in signals:
            if s.level == level and s.kind == kind:
                yield Hit(f"{s.where}: {s.evidence}")
    return check
