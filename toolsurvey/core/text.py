"""Text as a reader takes it in: characters a reader cannot see in third-party text (control, format
(zero-width, bidirectional) and private-use characters; newlines and tabs are ordinary), and counts
written out in words."""

from __future__ import annotations

import unicodedata

INVISIBLE = ("Cc", "Cf", "Co")  # Unicode general categories


def is_invisible(c: str) -> bool:
    return c not in "\n\t" and unicodedata.category(c) in INVISIBLE


def plural(n: int, word: str, many: str | None = None) -> str:
    """`1 server`, `2 servers`, with separators (`many` when the plural is not `word` + s)."""
    return f"{n:,} {word if n == 1 else many or word + 's'}"


def quoted(text: str, n: int) -> str:
    """`text` in double quotes, cut to `n` characters, each invisible character shown as \\uXXXX."""
    text = text if len(text) <= n else text[: n - 1] + "…"
    return '"' + "".join(f"\\u{ord(c):04x}" if is_invisible(c) else c for c in text) + '"'


def invisible_in(text: str | None, most: int = 5) -> list[str]:
    """The distinct invisible characters of `text` as U+XXXX, the `most` lowest first."""
    if not text or text.isprintable():  # printable text has none; most text is
        return []
    return [f"U+{ord(c):04X}" for c in sorted({c for c in text if is_invisible(c)})[:most]]
