"""Tool poisoning: text in a tool definition that gives the model orders, hides them, or asks for secrets.

Two levels. `poisoning` is a strong signal (hidden or look-alike text, orders addressed to the model
beyond the call, orders about other tools, reading secrets to pass them on, exfiltration links,
encoded instructions): treat the server as compromised until reviewed. `suspicious` asks for a
review (a request to confirm with the user; a secret path mentioned in a rule or a schema).
Every string the model reads is scanned: title, description, annotations, and every key and string
value of the input and output schemas (descriptions, enum values, defaults, examples, titles).
The patterns are data: `[poisoning]` in assumptions/audit.toml.
"""

from __future__ import annotations

import base64
import binascii
import html
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..core.registry import Tool
from ..core.text import quoted

_COMPROMISED = "remove it; treat the server as compromised until reviewed"
_REVIEW = "review it; keep it if it is the server's own rule, not an order to the model"

# (rule id, level, kind, title, fix): the audit registers one rule per row.
RULES = [
    ("poisoning-hidden-text", "poisoning", "hidden", "hidden or look-alike text (invisible characters, "
     "HTML comments, homoglyph-disguised tags or paths)", "remove the hidden text and find out who put it "
     "there; treat the server as compromised until reviewed"),
    ("poisoning-instructions", "poisoning", "instructions", "orders addressed to the model beyond the call",
     _COMPROMISED),
    ("poisoning-secrets", "poisoning", "secrets", "asks the model to read secrets and pass them on",
     "remove the request; treat the server as compromised until reviewed"),
    ("poisoning-shadowing", "poisoning", "shadowing", "orders about other tools (shadowing)", _COMPROMISED),
    ("poisoning-exfiltration", "poisoning", "exfiltration", "a link or image that carries conversation "
     "data out", _COMPROMISED),
    ("poisoning-encoded", "poisoning", "encoded", "base64 or hex text that decodes to instructions",
     _COMPROMISED),
    ("suspicious-instructions", "suspicious", "instructions", "asks the model to confirm with the user",
     _REVIEW),
    ("suspicious-secrets", "suspicious", "secrets", "mentions a secret path or key in a rule or a schema",
     _REVIEW),
]
_MAX_DEPTH = 64
_MAX_TEXT = 20_000  # longer strings are scanned in their first 20,000 characters


@dataclass(frozen=True)
class Signal:
    """One finding of the scan: its level, its kind (a rule of RULES), where and what."""

    level: str
    kind: str
    where: str
    evidence: str

    @property
    def rule(self) -> str:
        return next(r[0] for r in RULES if r[1] == self.level and r[2] == self.kind)


# --- what the model reads ---------------------------------------------------------------------


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
    """Every string under `node`, stopping at `_MAX_DEPTH` and at containers met before on the path."""
    if isinstance(node, str):
        yield path, node
    elif isinstance(node, (dict, list)) and depth <= _MAX_DEPTH and id(node) not in seen:
        seen = seen | {id(node)}
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for k, v in items:
            if path.endswith("/properties") and isinstance(k, str):  # a name is read as words
                yield f"{path}/{k} (name)", re.sub(r"[_-]+", " ", k)
            yield from _strings(v, f"{path}/{k}", depth + 1, seen)


# --- look-alike characters --------------------------------------------------------------------


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


# --- the scan ---------------------------------------------------------------------------------


@lru_cache(maxsize=256)
def _compiled(patterns: tuple[str, ...]) -> tuple[re.Pattern, ...]:
    return tuple(re.compile(p) for p in patterns)


class _Patterns:
    def __init__(self, cfg: dict):
        self.cfg = cfg

    def __getattr__(self, key: str) -> tuple[re.Pattern, ...]:
        return _compiled(tuple(self.cfg[key]))


def _show(text: str, m: re.Match | None = None, n: int = 120) -> str:
    """A quoted excerpt around a match, with invisible characters shown as \\uXXXX."""
    if m is not None:
        text = text[max(0, m.start() - 30):m.end() + 40]
    return quoted(text, n)


def _first(pats: tuple[re.Pattern, ...], text: str) -> re.Match | None:
    for p in pats:
        m = p.search(text)
        if m:
            return m
    return None


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z<\[(\"'`*])|\n+")


def scan(tool: Tool, cfg: dict) -> list[Signal]:
    """Every poisoning or suspicious signal in the tool, at most one per rule and place.

    `cfg` is the `[poisoning]` section of the audit configuration.
    """
    pats = _Patterns(cfg)
    # Names that are this tool or its own parameters: an order about them is not about another tool.
    own = {tool.name.lower(), "this", "that", "the", "a"} | {
        w.split("/")[-1].removesuffix(" (name)").lower() for w, _ in texts(tool) if w.endswith(" (name)")}
    out: list[Signal] = []
    for where, text in texts(tool):
        out += _scan_text(own, where, text[:_MAX_TEXT], pats, cfg, depth=0)
    strong = {s.kind for s in out if s.level == "poisoning"}
    seen, kept = set(), []
    for s in out:  # a suspicious signal of a kind the tool is already poisoned by adds nothing
        key = (s.level, s.kind, s.where)
        if key not in seen and not (s.level == "suspicious" and s.kind in strong):
            seen.add(key)
            kept.append(s)
    return kept


def _scan_text(own: set[str], where: str, text: str, pats: _Patterns, cfg: dict, depth: int) -> list[Signal]:
    out = []
    hidden = [m.group(0) for p in pats.hidden for m in p.finditer(text) if not _emoji_joiner(text, m.start(), m.group(0))]
    if hidden:
        chars = sorted({f"U+{ord(c):04X}" for h in hidden if len(h) == 1 for c in h})
        longer = [_show(h, n=60) for h in hidden if len(h) > 1][:2]
        out.append(Signal("poisoning", "hidden", where, f"hidden text ({len(hidden)}): {', '.join(chars + longer)}"))
    folded, changed = fold(text)
    views = [("", folded, changed)]
    unescaped = html.unescape(folded)
    if unescaped != folded:
        views.append((" (HTML-escaped)", unescaped, [False] * len(unescaped)))
    for note, view, changes in views:
        for level, kind, m, sentence in _sentence_signals(own, view, pats):
            disguised = any(changes[m.start() + sentence[0]:m.end() + sentence[0]])
            evidence = f"{_show(sentence[1], m)}{note}"
            if disguised:
                same = not note and len(view) == len(text)  # NFKC can fold one character into several
                original = text[m.start() + sentence[0]:m.end() + sentence[0]] if same else m.group(0)
                out.append(Signal("poisoning", "hidden", where, f"look-alike characters spell {_show(m.group(0))}: "
                                  f"{_show(original)} ({_scripts(original)})"))
            out.append(Signal(level, kind, where, evidence))
    if depth == 0:
        out += _encoded(own, where, text, pats, cfg)
    return out


def _emoji_joiner(text: str, i: int, found: str) -> bool:
    """A zero-width joiner between two emoji (👩‍💻) draws one picture; it hides nothing."""
    if found != "\u200d" or i == 0 or i + 1 >= len(text):
        return False
    before = text[i - 1] if unicodedata.category(text[i - 1]) != "Mn" and text[i - 1] != "\ufe0f" else text[max(0, i - 2)]
    return unicodedata.category(before) == "So" and unicodedata.category(text[i + 1]) == "So"


def _scripts(text: str) -> str:
    names = sorted({unicodedata.name(c, "?").split()[0] for c in text if not c.isascii()})
    return ", ".join(f"{n.title()} letters" for n in names) or "non-ASCII letters"


def _sentence_signals(own: set[str], text: str, pats: _Patterns) -> Iterator[tuple[str, str, re.Match, tuple[int, str]]]:
    """(level, kind, match, (offset, sentence)) of the signals in each sentence of `text`."""
    start = 0
    for piece in [*_SENTENCE.finditer(text), None]:
        end = piece.start() if piece else len(text)
        sentence = (start, text[start:end])
        start = piece.end() if piece else end
        s = sentence[1]
        if not s.strip():
            continue
        m = _first(pats.tags, s) or _first(pats.role, s) or _first(pats.override, s) or _first(pats.conceal, s) \
            or _first(pats.beyond, s)
        if m:
            yield "poisoning", "instructions", m, sentence
        elif m := _first(pats.confirm, s):
            yield "suspicious", "instructions", m, sentence
        if m := _shadowing(own, s, pats):
            yield "poisoning", "shadowing", m, sentence
        if ((m := _first(pats.exfil_carry, s)) and _first(pats.exfil_data, s) or (m := _first(pats.exfil_url, s))
                or (m := _first(pats.exfil_self, s)) or (m := _first(pats.exfil_send, s))):
            yield "poisoning", "exfiltration", m, sentence
        if m := _secret(s, pats):
            yield (*m, sentence)


def _shadowing(own: set[str], s: str, pats: _Patterns) -> re.Match | None:
    for p in pats.shadowing:
        for m in p.finditer(s):
            if (m.groupdict().get("tool") or "").lower() not in own:
                return m
    return None


def _secret(s: str, pats: _Patterns) -> tuple[str, str, re.Match] | None:
    """A secret in the sentence: `poisoning` when the sentence orders it read and passed on (a secret
    file: read or passed on), `suspicious` for a secret file mentioned in a rule or without an order."""
    path = _first(pats.secret_paths, s)
    m = path or _first(pats.secret_values, s)
    if m is None:
        return None
    near = s[max(0, m.start() - 40):m.end() + 30]
    read, passed = _first(pats.read, s), _first(pats.pass_on, s)
    if _first(pats.negative, near) is None and (passed and (read or path) or (read and path)):
        return "poisoning", "secrets", m
    if path:
        return "suspicious", "secrets", m
    return None  # a password parameter, GITHUB_TOKEN or a .env file named in passing is configuration


_BASE64 = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX = re.compile(r"\b(?:[0-9a-fA-F]{2})+\b")


def _encoded(own: set[str], where: str, text: str, pats: _Patterns, cfg: dict) -> list[Signal]:
    """Base64 or hex runs that decode to readable text carrying instructions (scanned once more)."""
    out = []
    for m in [*_BASE64.finditer(text), *_HEX.finditer(text)]:
        blob = m.group(0)
        decoded = _decode(blob, cfg)
        if decoded is None:
            continue
        inner = _scan_text(own, where, decoded, pats, cfg, depth=1)
        words = {w.lower() for p in pats.decoded_words for w in p.findall(decoded)}
        if inner or len(words) >= 2:
            out.append(Signal("poisoning", "encoded", where,
                              f"{_show(blob, n=40)} decodes to {_show(decoded, n=100)}"))
    return out


def _decode(blob: str, cfg: dict) -> str | None:
    """The readable text a base64 or hex run decodes to, or None for binary data and plain words."""
    if re.fullmatch(r"[0-9a-fA-F]+", blob) and len(blob) >= cfg["min_hex"] and len(blob) % 2 == 0:
        raw = bytes.fromhex(blob)
    elif len(blob) >= cfg["min_base64"] and re.search(r"[0-9+/=]|[a-z][A-Z]", blob):
        try:
            alt = b"-_" if ("-" in blob or "_" in blob) else None
            raw = base64.b64decode(blob + "=" * (-len(blob) % 4), altchars=alt, validate=True)
        except (binascii.Error, ValueError):
            return None
    else:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(c.isprintable() or c in "\n\t" for c in text)
    return text if len(text) >= 8 and printable >= 0.95 * len(text) and re.search(r"[A-Za-z]{3,} [A-Za-z]{2,}", text) \
        else None
