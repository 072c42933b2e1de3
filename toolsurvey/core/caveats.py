"""What a result rests on and what it warns about: `Assumptions` (what it assumed, by name) and
`Warnings` (one line each). They are a plain dict and a plain list for code (JSON, `==`, `[...]`),
and show in Jupyter as a short table and a list (`present.views`)."""

from __future__ import annotations

import copy

from .viewable import Viewable


class Assumptions(Viewable, dict):
    """What a result assumed, name -> value (prices and curves with their source and date)."""

    view_name = "assumptions"

    def to_dict(self) -> dict:
        """Every assumption as a plain dict (a deep copy), for code and JSON."""
        return copy.deepcopy(dict(self))


class Warnings(Viewable, list):
    """What a result warns about, one line each."""

    view_name = "warnings"

    def to_list(self) -> list[str]:
        """The warnings as a plain list."""
        return list(self)
