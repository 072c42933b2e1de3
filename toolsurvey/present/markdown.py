"""Markdown that third-party text cannot break: escaped cells and simple pipe tables."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

# Characters that end a table cell or start emphasis, a link or code in GitHub-flavoured Markdown
# are backslash-escaped; < > & become entities because GitHub renders inline HTML.
_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_BREAKS = re.compile(r"[\r\n\u2028\u2029\x85\v\f]+")
# Control characters (ESC starts terminal sequences that clear the screen, retitle the window or
# plant links; CR and backspace overwrite what was printed) and invisible or direction-changing
# ones (RLO reverses the text after it; zero-width characters hide words).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\xad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f"
                     "\ufeff\ufff9-\ufffb]")
# A GitHub comment turns @name into a notification and #123 into a link to an issue.
_MENTION = re.compile(r"(?<!&)([@#])(?=\w)")


def visible(value: object) -> str:
    """`value` as text a terminal or Markdown viewer shows exactly: control, invisible and
    direction-changing characters become escapes such as \\x1b or \\u202e."""
    s = "" if value is None else str(value)
    return _UNSAFE.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", s)


def escape(value: object) -> str:
    """`value` as text that shows literally inside a Markdown table cell (one line, no markup,
    no control characters, no @mention or #issue link)."""
    s = "" if value is None else str(value)
    s = visible(_BREAKS.sub(" ", s))
    s = "".join(_ENTITIES.get(c, c) for c in s)
    s = _SPECIAL.sub(r"\\\1", s)
    return _MENTION.sub("\\1&#8203;", s)  # a zero-width space after @ or # breaks the link, not the text


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
