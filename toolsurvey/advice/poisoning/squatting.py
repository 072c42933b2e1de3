"""Names that imitate another server's tool: a version or copy suffix (`search_v1` beside `search`), a
trailing underscore, look-alike letters. A second server that offers such a name can take the calls meant
for the first (tool squatting). The very same name on two servers is the `name-collision` rule's, which
says whether the two are copies, one may squat on the other (same description, other schema), or two
tools that share a name."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...core.registry import Registry, Tool
from .reading import fold

_DECORATION = re.compile(r"(?:[_\-. ]?v\d+|[_\-. ]\d+|[_\-. ](?:new|copy|old|latest|alt|official|real|fixed|beta)|[_\-.]+)$")
_SEPARATORS = re.compile(r"[\W_]+")


def plain(name: str) -> str:
    """The name as a reader takes it in: look-alike letters folded, lower case, no separators."""
    return _SEPARATORS.sub("", fold(name)[0].lower())


def core(name: str) -> str:
    """`plain` of the name without a version or copy suffix: `search_v1`, `compute_`, `check-2` -> its base."""
    base = fold(name)[0].lower()
    for _ in range(2):
        base = _DECORATION.sub("", base) or base
    return _SEPARATORS.sub("", base)


def look_alikes(reg: Registry) -> Iterator[tuple[Tool, Tool, str]]:
    """(tool, the other server's tool it imitates, how) for each imitation; linear in the tools but for
    the tools that share a base name."""
    by_core: dict[str, list[Tool]] = {}
    for t in reg:
        by_core.setdefault(core(t.name), []).append(t)
    for group in by_core.values():
        if len({t.server for t in group}) < 2:
            continue
        for t in group:
            for o in group:
                if o.server != t.server and (how := _imitates(t, o)):
                    yield t, o, how
                    break


def decorated(name: str) -> bool:
    """Whether the name ends in a version or copy suffix, or in a separator."""
    return bool(_DECORATION.search(fold(name)[0].lower()))


def _imitates(t: Tool, o: Tool) -> str:
    if t.name == o.name:
        return ""
    if core(t.name) == plain(o.name) and decorated(t.name) and not decorated(o.name):
        return f"{t.name!r} is {o.name!r} with a suffix"
    if fold(t.name)[0] != t.name and plain(t.name) == plain(o.name):
        return f"{t.name!r} spells {o.name!r} with look-alike letters"
    return ""
