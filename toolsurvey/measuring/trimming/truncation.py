"""Cutting long strings so that no cut costs more tokens than it saves, and a lower limit never costs more.

A cut string ends in a marker (` …+K chars`) that costs tokens too: cut a string just over the limit
and the result can grow. So every possible cut is priced exactly before one is made:

- The result's text (compact JSON, or a text result as given) is encoded once. tiktoken encodes each
  piece of its pre-split on its own, so the tokens before a piece's end do not depend on what follows.
- A string is cut where a piece ends (or at a token boundary inside a long piece, priced by encoding
  that part alone). The marker starts with a space, which ends the piece before it; with the JSON
  punctuation after the string it makes pieces of its own, priced once. So each cut's cost is exact,
  and the cuts of different strings do not interact.
- The marker states the string's full size, so its price is the same wherever that string is cut.
- Of a string's cuts, only those cheaper than every longer cut and than the whole string are offered;
  the limit picks the longest offered cut that fits (if none fits, the shortest offered one). Cuts
  where a piece ends cost more the later they are (each piece holds a token), so all of them are
  offered and only the last one that fits is priced; inside a long piece, only the piece the limit
  falls in. The pre-split is run only there, from a point where a piece certainly starts.

Hence truncation never adds tokens, and the tokens after it never increase as the limit decreases.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from functools import cache, lru_cache
from json.encoder import encode_basestring
from typing import Any

import numpy as np

from ...core.tokens import DEFAULT_ENCODING, get_encoding, splitter, token_widths
from .steps import Omitted, check_truncate

INNER_CUTS = 16  # token boundaries tried inside one long piece (a long word, a CJK run), evenly spaced


def marker(total: int, unit: str) -> str:
    """What stands in for the cut end of a string, with the string's full size: ` …[1234 chars total]`.
    Its leading space ends the piece before it, and its price is the same wherever the string is cut."""
    return f" …[{total} {unit} total]"


@dataclass
class _Slot:
    """A string value and where its content sits in the result's text (quotes excluded)."""

    path: str
    raw: str
    start: int
    end: int


def _layout(value: Any, json_text: bool) -> tuple[str, list[_Slot]]:
    """The text the model receives (compact JSON exactly as `jsontree.compact` writes it, or the text
    result itself) and where each string of `_strings(value)` sits in it."""
    if not json_text:
        return value, [_Slot("(text)", value, 0, len(value))]
    parts: list[str] = []
    slots: list[_Slot] = []
    size = 0

    def emit(s: str) -> None:
        nonlocal size
        parts.append(s)
        size += len(s)

    def walk(v: Any, path: str) -> None:
        if isinstance(v, str):
            text = encode_basestring(v)
            if not isinstance(v, Omitted):
                slots.append(_Slot(path or "(text)", v, size + 1, size + len(text) - 1))
            emit(text)
        elif isinstance(v, dict):
            emit("{")
            for i, (k, x) in enumerate(v.items()):
                emit(("," if i else "") + encode_basestring(k if isinstance(k, str) else json.dumps(k)) + ":")
                walk(x, f"{path}.{k}" if path else str(k))
            emit("}")
        elif isinstance(v, list | tuple):
            emit("[")
            for i, x in enumerate(v):
                if i:
                    emit(",")
                walk(x, path + "[]")
            emit("]")
        else:
            emit(json.dumps(v))

    walk(value, "")
    return "".join(parts), slots


def _replace(value: Any, new: dict[int, str]) -> Any:
    """`value` with the n-th string of `_strings(value)` replaced by `new[n]`."""
    n = -1

    def walk(v: Any) -> Any:
        nonlocal n
        if isinstance(v, str):
            if isinstance(v, Omitted):
                return v
            n += 1
            return new.get(n, v)
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return [walk(x) for x in v]
        return v

    return walk(value)


class _Text:
    """The encoded text: where each token starts, for pricing cuts (kept for the next limit tried)."""

    def __init__(self, text: str, encoding: str) -> None:
        if not text.isascii() and not _utf8_ok(text):  # a lone surrogate counts as U+FFFD, as in tiktoken
            text = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
        self.text, self.encoding, self.enc = text, encoding, get_encoding(encoding)
        tokens = self.enc.encode_to_numpy(text, allowed_special=set(), disallowed_special=())
        chars, inside = token_widths(encoding)
        before = np.concatenate([[0], np.cumsum(chars[tokens])[:-1]]).astype(np.int64)
        self.token_starts = np.maximum(before - inside[tokens], 0) if len(tokens) else np.zeros(0, np.int64)

    def before(self, x: int) -> int:
        """Tokens that start before character `x` (exact where a piece ends)."""
        return int(np.searchsorted(self.token_starts, x))

    def count(self, s: str) -> int:
        return len(self.enc.encode_ordinary(s))


@lru_cache(maxsize=32)
def _encoded(text: str, encoding: str) -> _Text:
    return _Text(text, encoding)


def _utf8_ok(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@cache
def _patterns(encoding: str):
    """The pre-split, and the classes of characters the positions of its pieces depend on."""
    import regex

    return {"split": splitter(encoding), "space": regex.compile(r"\s"), "mark": regex.compile(r"\p{M}"),
            "word": regex.compile(r"[\p{L}\p{N}]"), "run_before": regex.compile(r"(?r)[^\s\p{L}\p{N}]*"),
            "run_after": regex.compile(r"[^\s\p{L}\p{N}]*")}


def _piece_start_before(text: str, rs: int, rx: dict) -> int:
    """A position at or before `rs` where a piece of the pre-split certainly starts: where the run of
    punctuation holding the opening quote starts (after a letter or digit, or with the space before it)."""
    i = rx["run_before"].match(text, 0, rs).start()
    if i == 0:
        return 0
    c = text[i - 1]
    if c == " ":
        return i - 1  # the run takes one space before it
    if rx["space"].match(c) or (rx["word"].match(c) and not rx["mark"].match(text, i)):
        return i  # a whitespace, letter or digit piece ends where punctuation starts
    return 0  # a combining mark or another rare case: from the start, which is always right


def _sync(text: str, lo: int, x: int, rx: dict) -> int:
    """The last position in (lo, x] where a piece certainly starts (a space after a non-space), else lo."""
    i = text.rfind(" ", lo + 1, x + 1)
    while i > lo:
        if not rx["space"].match(text, i - 1):
            return i
        i = text.rfind(" ", lo + 1, i)
    return lo


def _raw_positions(slot: _Slot) -> tuple[np.ndarray, np.ndarray]:
    """For each position in the slot's text the index in the raw string (-1 inside an escape), and
    for each raw index its position in the slot's text."""
    width = slot.end - slot.start
    if width == len(slot.raw):
        return np.arange(width + 1), np.arange(width + 1)
    codes = np.frombuffer(slot.raw.encode("utf-32-le", "surrogatepass"), np.uint32)
    widths = np.where(codes < 0x20, 6, 1)  # encode_basestring: \uXXXX, or \n \r \t \b \f ...
    widths[np.isin(codes, [0x8, 0x9, 0xA, 0xC, 0xD, 0x22, 0x5C])] = 2  # ... and \" \\
    at = np.concatenate([[0], np.cumsum(widths)])
    raw = np.full(width + 1, -1)
    raw[at] = np.arange(len(slot.raw) + 1)
    return raw, at


@lru_cache(maxsize=4096)
def _marker_tokens(total: int, unit: str, tail: str, encoding: str) -> int:
    """Tokens of the marker with the JSON punctuation after the string, as the pieces they make."""
    return len(get_encoding(encoding).encode_ordinary(marker(total, unit) + tail))


class _Cuts:
    """The cuts of one string in the text, priced: `change` is the tokens kept before the cut plus
    `base` (the marker, less the tokens up to the end of the string): negative is a saving."""

    def __init__(self, slot: _Slot, t: _Text, unit: str, json_text: bool) -> None:
        self.slot, self.t, self.unit, self.rx = slot, t, unit, _patterns(t.encoding)
        rs, re_, text = slot.start, slot.end, t.text
        self.ws = _piece_start_before(text, rs, self.rx) if json_text else 0
        pe = self.rx["run_after"].match(text, re_).end() if json_text else re_
        self.raw_at, self.text_at = _raw_positions(slot)
        self.first = t.before(rs)
        self.content = t.before(re_) - self.first
        self.total = len(slot.raw) if unit == "chars" else self.content
        self.base = _marker_tokens(self.total, unit, text[re_:pe], t.encoding) - t.before(pe)

    def valid(self, x: int) -> bool:
        """A cut may end at x: inside the string, not inside an escape, not after whitespace."""
        rs = self.slot.start
        return rs <= x < self.slot.end and self.raw_at[x - rs] >= 0 and not (
            x > 0 and self.rx["space"].match(self.t.text, x - 1))

    def measure(self, x: int, tokens: int) -> int:
        """What the limit is compared with for a cut at x keeping `tokens` tokens: characters or tokens kept."""
        return int(self.raw_at[x - self.slot.start]) if self.unit == "chars" else tokens - self.first

    def inner(self, a: int, b: int) -> list[tuple[int, int, int]]:
        """The offered cuts inside the piece [a, b): (position, measure, change), each cheaper than the
        piece's end and than every later cut inside it. None unless the piece is inside the string and
        its end is a cut (or the string's end)."""
        t, end = self.t, self.slot.end
        ta, tb = t.before(a), t.before(b)
        if a < self.slot.start or b > end or tb - ta < 2 or not (b == end or self.valid(b)):
            return []
        js = np.unique(t.token_starts[ta + 1:tb])
        js = js[(js > a) & (js < b)]
        if len(js) > INNER_CUTS:
            js = js[np.linspace(0, len(js) - 1, INNER_CUTS).astype(int)]
        best, out = (0 if b == end else tb + self.base), []
        for j in reversed(js.tolist()):
            if self.valid(j):
                kept = ta + t.count(t.text[a:j])
                if kept + self.base < best:
                    best = kept + self.base
                    out.append((j, self.measure(j, kept), best))
        return out[::-1]

    def choose(self, limit: int) -> int | None:
        """Raw characters to keep: the last cut that fits the limit, where a piece ends or (offered)
        inside the piece the limit falls in; if none fits, the first cut; None to keep it whole."""
        t, text, rs = self.t, self.t.text, self.slot.start
        last = rs + int(self.text_at[limit]) if self.unit == "chars" else int(t.token_starts[self.first + limit])
        pieces = self._pieces(_sync(text, self.ws, last, self.rx), lambda a, b: b > last)
        ends = [pieces[0][0]] + [b for _, b in pieces]
        fit = next((x for x in reversed(ends) if x <= last and self.valid(x)), None)
        inside = self.inner(*pieces[-1])
        cut = next((c for c in reversed(inside) if c[1] <= limit), None)
        if cut is None and fit is not None:
            cut = (fit, self.measure(fit, t.before(fit)), t.before(fit) + self.base)
        if cut is None:  # nothing fits: the first cut after the limit
            cut = inside[0] if inside else self._first_after(pieces[-1][1])
        if cut is None or cut[2] >= 0:
            return None
        return int(self.raw_at[cut[0] - rs])

    def _pieces(self, start: int, stop) -> list[tuple[int, int]]:
        out = []
        for m in self.rx["split"].finditer(self.t.text, start):
            out.append(m.span())
            if stop(*out[-1]) or m.end() >= self.slot.end:
                break
        return out

    def _first_after(self, x: int) -> tuple[int, int, int] | None:
        """The first cut at or after x (a piece end): x itself, else inside or at the end of a later piece."""
        t = self.t
        if self.valid(x):
            return x, self.measure(x, t.before(x)), t.before(x) + self.base
        for a, b in self._pieces(x, lambda a, b: b == self.slot.end or self.valid(b)):
            inside = self.inner(a, b)
            if inside:
                return inside[0]
            if self.valid(b):
                return b, self.measure(b, t.before(b)), t.before(b) + self.base
        return None


def truncate_strings(value: Any, limit: int, unit: str = "chars", encoding: str = DEFAULT_ENCODING, *,
                     json_text: bool = True) -> tuple[Any, Counter, Counter]:
    """Strings longer than `limit` chars (or tokens) cut, with a marker of their full size, where the
    cut saves tokens net of its marker; keys are kept. `json_text`: the value is sent as compact JSON
    (else it is a text result). Returns (value, truncated path -> count, path -> strings over the
    limit kept whole because no cut saves tokens). Raises InputError for a bad limit or unit."""
    check_truncate(limit, unit)
    text, slots = _layout(value, json_text)
    over = [(n, s) for n, s in enumerate(slots)
            if len(s.raw) > limit and (unit == "chars" or len(s.raw.encode()) > limit)]
    cut, whole, new = Counter(), Counter(), {}
    t = _encoded(text, encoding) if over else None
    for n, s in over:
        cuts = _Cuts(s, t, unit, json_text)
        if unit == "tokens" and cuts.content <= limit:
            continue
        kept = cuts.choose(limit)
        if kept is None:
            whole[s.path] += 1
        else:
            cut[s.path] += 1
            new[n] = s.raw[:kept] + marker(cuts.total, unit)
    if not new:
        return value, cut, whole
    return (_replace(value, new) if json_text else new[0]), cut, whole
