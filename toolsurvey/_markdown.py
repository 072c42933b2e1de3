"""Markdown that third-party text cannot break: escaped cells and simple pipe tables."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

# Characters that end a table cell or start emphasis, a link or code in GitHub-flavoured Markdown
# are backslash-escaped; < > & become entities because GitHub renders inline HTML.
_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_BREAKS = re.compile(r"[\r\n\u2028\u2029\x85\v\f]+")


def escape(value: object) -> str:
    """`value` as text that shows literally inside a Markdown table cell (one line, no markup)."""
    s = "" if value is None else str(value)
    s = _BREAKS.sub(" ", s)
    s = "".join(_ENTITIES.get(c, c) for c in s)
    return _SPECIAL.sub(r"\\\1", s)


def table(headers: Sequence[str], rows: Iterable[Sequence[object]], right: Iterable[int] = ()) -> str:
    """A pipe table; cells are escaped unless they are `Raw`; columns in `right` align right."""
    right = set(right)
    out = ["| " + " | ".join(escape(h) for h in headers) + " |",
           "|" + "|".join("---:" if i in right else "---" for i in range(len(headers))) + "|"]
    for row in rows:
        out.append("| " + " | ".join(c if isinstance(c, Raw) else escape(c) for c in row) + " |")
    return "\n".join(out)


class Raw(str):
    """Markdown written by toolsurvey itself (numbers, bold), put in a table cell unescaped."""
