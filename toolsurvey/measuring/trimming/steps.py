"""The trimming steps on JSON values: keep or drop paths, drop empties, cap lists (truncating strings,
which must price each cut, is `truncation`).

Each returns the new value and what it removed, per path.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ...core import jsontree as _jsontree
from ...errors import InputError

_EMPTY = (None, "", [], {})
_END = None  # trie key marking "keep/drop everything beneath"


def check_max_items(max_items: int) -> None:
    """Raises InputError for a negative `max_items`."""
    if max_items < 0:
        raise InputError(f"max_items must be >= 0, found {max_items}")


def check_truncate(limit: int, unit: str) -> None:
    """Raises InputError for a negative limit or a unit other than chars or tokens."""
    if limit < 0 or unit not in ("chars", "tokens"):
        raise InputError(f"truncate needs a limit >= 0 and unit chars or tokens, found {limit} {unit}")


class Omitted(str):
    """The marker that stands in for list items left out by `cap_lists`."""


def parse_paths(paths: str | list[str] | None) -> list[str]:
    """Comma-separated or listed paths, stripped, empties removed."""
    if paths is None:
        return []
    items = paths.split(",") if isinstance(paths, str) else [q for p in paths for q in str(p).split(",")]
    return [p.strip() for p in items if p.strip()]


def path_trie(paths: list[str]) -> dict:
    """The paths as a trie of keys (a path inside another one is dropped); raises InputError for a
    path that names no field."""
    root: dict = {}
    for p in paths:
        parts = _jsontree.path_parts(p)
        if not parts:
            raise InputError(f"path {p!r} names no field; expected e.g. 'title' or 'labels[].name'")
        node = root
        for k in parts:
            if node.get(_END):
                break
            node = node.setdefault(k, {})
        else:
            node.clear()
            node[_END] = p
    return root


def keep_paths(value: Any, paths: str | list[str]) -> tuple[Any, Counter, set[str]]:
    """Only the listed paths (lists walked through); returns (value, dropped path -> count, matched paths)."""
    return _select(value, paths, keep=True)


def drop_paths(value: Any, paths: str | list[str]) -> tuple[Any, Counter, set[str]]:
    """Everything but the listed paths; returns (value, dropped path -> count, matched paths)."""
    return _select(value, paths, keep=False)


def _select(value: Any, paths: str | list[str], keep: bool) -> tuple[Any, Counter, set[str]]:
    """The value with the listed paths kept whole and everything else dropped (`keep`), or the reverse."""
    trie, dropped, matched = path_trie(parse_paths(paths)), Counter(), set()

    def walk(v, node, path):
        if isinstance(v, list):
            return [walk(x, node, path + "[]") for x in v]
        if not isinstance(v, dict):
            return v
        out = {}
        for k, x in v.items():
            sub = node.get(k)
            here = f"{path}.{k}" if path else k
            if sub is not None and _END in sub:  # a listed path
                matched.add(sub[_END])
                if keep:
                    out[k] = x
                else:
                    dropped[here] += 1
            elif sub is None and keep:  # off every listed path
                dropped[here] += 1
            else:  # on the way to a listed path, or (dropping) off every one
                out[k] = walk(x, sub, here) if sub else x
        return out

    return walk(value, trie, ""), dropped, matched


def remove_empty(value: Any) -> tuple[Any, Counter]:
    """Object members that are null, "", [] or {} (also once emptied by this step) removed; list items
    keep their positions. Returns (value, dropped path -> count)."""
    dropped = Counter()

    def walk(v, path):
        if isinstance(v, list):
            return [walk(x, path + "[]") for x in v]
        if not isinstance(v, dict):
            return v
        out = {}
        for k, x in v.items():
            here = f"{path}.{k}" if path else k
            x = walk(x, here)
            if any(x == e and type(x) is type(e) for e in _EMPTY):
                dropped[here] += 1
            else:
                out[k] = x
        return out

    return walk(value, ""), dropped


def cap_lists(value: Any, max_items: int) -> tuple[Any, Counter]:
    """Lists longer than `max_items` cut to their first items plus an `Omitted` marker saying how many
    were left out. Returns (value, capped list path -> items left out)."""
    check_max_items(max_items)
    left = Counter()

    def walk(v, path):
        if isinstance(v, list):
            items = [walk(x, path + "[]") for x in v[:max_items]]
            if len(v) > max_items:
                left[path or "(root)"] += len(v) - max_items
                items.append(Omitted(f"[+{len(v) - max_items} more items]"))
            return items
        if isinstance(v, dict):
            return {k: walk(x, f"{path}.{k}" if path else k) for k, x in v.items()}
        return v

    return walk(value, ""), left


def unmatched_paths(paths: list[str], matched: set[str]) -> list[str]:
    """Paths that matched nothing, not counting those inside a matched path ('user.login' under 'user')."""
    hit = [_jsontree.path_parts(m) for m in matched]
    return [p for p in paths if not any(_jsontree.path_parts(p)[:len(h)] == h for h in hit)]
