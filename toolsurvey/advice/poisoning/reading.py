"""What the model reads in a tool: every string, split into sentences, with look-alike letters folded."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from ...core.registry import Tool

MAX_DEPTH = 64
MAX_TEXT = 20_000  # longer strings are scanned in their first 20,000 characters

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z<\[(\"'`*])|\n+")


def texts(tool: Tool) -> Iterator[tuple[str, str]]:
    """(where, text) of every string the model reads: title, description, annotations, schema keys and values."""
    if isinstance(tool.title, str):
        yield "title", tool.title
    if isinstance(tool.description, str):
        yield "description", tool.description
    for root, value in (("annotations", tool.annotations), ("inputSchema", tool.input_schema),
                        ("outputSchema", tool.output_schema)):
        yield from _strings(value, root, 0, frozenset())


def _strings(node: Any, path: str, depth: int, seen: frozenset) -> Iterator[tuple[str, str]]:
    """Every string under `node`, stopping at `MAX_DEPTH` and at containers met before on the path."""
    if isinstance(node, str):
        yield path, node
    elif isinstance(node, (dict, list)) and depth <= MAX_DEPTH and id(node) not in seen:
        seen = seen | {id(node)}
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for k, v in items:
            if path.endswith("/properties") and isinstance(k, str):  # a name is read as words
                yield f"{path}/{k} (name)", name_as_words(k)
            yield from _strings(v, f"{path}/{k}", depth + 1, seen)


def name_as_words(name: str) -> str:
    """`llm_model_name`, `llmModelName` -> "llm model name"."""
    return re.sub(r"[_-]+", " ", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)).strip().lower()


def sentences(text: str) -> Iterator[tuple[int, str]]:
    """(offset, sentence) of each sentence or line of `text` that is not blank."""
    start = 0
    for piece in [*_SENTENCE.finditer(text), None]:
        end = piece.start() if piece else len(text)
        if text[start:end].strip():
            yield start, text[start:end]
        start = piece.end() if piece else end


@lru_cache(maxsize=1)
def _confusables() -> dict[str, str]:
    """Each non-ASCII character that looks like one ASCII character (Unicode TR39 confusables)."""
    import json
    from importlib import resources

    data = json.loads(resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8"))
    out = {}
    for c, glyphs in data.items():
        if len(c) == 1 and not c.isascii():
            ascii_ = [g["c"] for g in glyphs if len(g["c"]) == 1 and g["c"].isascii() and g["c"].isprintable()]
            if ascii_:
                # TR39 folds capital I to small l (alike in sans-serif); a capital folds to I so that
                # "ІMPORTANT" with a Cyrillic І reads as IMPORTANT.
                out[c] = "I" if ascii_[0] == "l" and c.isupper() else ascii_[0]
    return out


_WORD = re.compile(r"[^\W\d_]+")


def mixed_words(text: str) -> list[str]:
    """Words that mix ASCII letters with non-ASCII look-alikes of ASCII letters ("ІMPORTANT" with a Cyrillic
    І): a disguise, as Unicode TR39 calls mixed-script confusables; plain Russian or accented words are not."""
    if text.isascii():
        return []
    table = _confusables()
    return [w for w in (m.group(0) for m in _WORD.finditer(text)) if not w.isascii()
            and any(c.isascii() for c in w) and any(not c.isascii() and table.get(c, "").isalpha() for c in w)]


def fold(text: str) -> tuple[str, list[bool]]:
    """The text with look-alike characters replaced by ASCII, and per output character whether it is a
    look-alike letter or angle bracket (curly quotes and dashes are folded too, but disguise nothing)."""
    if text.isascii():
        return text, [False] * len(text)
    table = _confusables()
    out, changed = [], []
    for c in text:
        f = c if c.isascii() else table.get(c) or unicodedata.normalize("NFKC", c)
        f = f if f.isascii() or c.isascii() else c
        out.append(f)
        changed += [f != c and (unicodedata.category(c).startswith("L") or f in "<>")] * len(f)
    return "".join(out), changed
