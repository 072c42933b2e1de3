"""Glob matching for phases and core sets: every pattern compiled once, into one regex per set.

A report on 1,000 tools with a few phases otherwise makes millions of `fnmatchcase` calls.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from functools import lru_cache


@lru_cache(maxsize=4096)
def _compiled(patterns: tuple[str, ...]) -> re.Pattern | None:
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in patterns))


def any_glob(patterns: Iterable[str]):
    """A function telling whether any of the strings it is given matches any of `patterns`
    (case-sensitive, like `fnmatch.fnmatchcase`)."""
    rx = _compiled(tuple(patterns))
    if rx is None:
        return lambda *texts: False
    match = rx.match
    return lambda *texts: any(match(t) is not None for t in texts)


def tags_match(tool_tags: dict, wanted: dict) -> bool:
    """Every tag in `wanted` is on the tool with a value matching its glob (False when `wanted` is empty)."""
    return bool(wanted) and all(k in tool_tags and any_glob((str(v),))(str(tool_tags[k])) for k, v in wanted.items())
