"""How engine objects show in Jupyter and in repr() without the engine importing presentation.

As pandas hands `DataFrame.__repr__` to `pandas.io.formats`, a Viewable looks its view up in
`toolsurvey.present.views` by name when it is shown: no layer below `present` imports it, and the
views can change without touching the engine."""

from __future__ import annotations

from importlib import import_module

VIEWS = "toolsurvey.present.views"


class Viewable:
    """Mix-in: `repr()` and Jupyter's HTML view come from the view `present.views` keeps under
    `view_name`. A dataclass using it says `repr=False`, or the dataclass's own repr would win."""

    view_name = ""

    def __repr__(self) -> str:
        return import_module(VIEWS).text_view(self)

    def _repr_html_(self) -> str:
        return import_module(VIEWS).html_view(self)
