"""Retiring a public name: the old one keeps working for one release and warns, naming the new one
(as pandas and httpx do). CHANGELOG.md lists every retired name under "Deprecated"."""

from __future__ import annotations

import warnings


def deprecated(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn (DeprecationWarning) that `old` is retired in favour of `new`; the warning points at the
    caller's caller (the user's line) by default."""
    warnings.warn(f"{old} is deprecated and will be removed in the next release; use {new}",
                  DeprecationWarning, stacklevel=stacklevel)
