"""The scan of one tool: every string the model reads, sentence by sentence, for the intents of
`intents`, plus hidden text, look-alike letters, encoded payloads and out-of-scope parameters.
The patterns are data: `[poisoning]` in assumptions/audit.toml."""

from __future__ import annotations

import base64
import binascii
import html
import re
import unicodedata

from ...core.registry import Registry, Tool
from ...core.text import quoted
from .intents import Lexicon, Own, normal, sentence_intents
from .parameters import parameter_signals
from .reading import MAX_TEXT, fold, mixed_words, sentences, texts
from .rules import Signal


def _show(text: str, m: re.Match | None = None, n: int = 120) -> str:
    """A quoted excerpt around a match, with invisible characters shown as \\uXXXX."""
    if m is not None:
        text = text[max(0, m.start() - 30):m.end() + 40]
    return quoted(text, n)


def server_tools(reg: Registry) -> dict[str, frozenset[str]]:
    """Per server, its tools' names as references compare them (`intents.normal`), for `scan`."""
    out: dict[str, set[str]] = {}
    for t in reg:
        out.setdefault(t.server, set()).add(normal(t.name))
    return {k: frozenset(v) for k, v in out.items()}


def own_names(tool: Tool, siblings: frozenset[str] = frozenset()) -> Own:
    """This tool, its parameters and its server's tools: the names an order may be about without shadowing."""
    tools = siblings | {normal(tool.name)}
    params = {normal(w.split("/")[-1].removesuffix(" (name)")) for w, _ in texts(tool) if w.endswith(" (name)")}
    return Own(tools | params, tools)


def scan(tool: Tool, cfg: dict, siblings: frozenset[str] = frozenset()) -> list[Signal]:
    """Every poisoning or suspicious signal in the tool, at most one per rule and place.

    `cfg` is the `[poisoning]` section of the audit configuration; `siblings` are the tools of the tool's
    server, as `server_tools` gives them (an order about one of them is guidance, not shadowing).
    """
    lex = _lexicon(cfg)
    own = own_names(tool, siblings)
    out: list[Signal] = []
    for where, text in texts(tool):
        out += _scan_text(own, where, text[:MAX_TEXT], lex, depth=0)
    out += parameter_signals(tool, lex)
    strong = {s.kind for s in out if s.level == "poisoning"}
    seen, kept = set(), []
    for s in out:  # a suspicious signal of a kind the tool is already poisoned by adds nothing
        key = (s.level, s.kind, s.where)
        if key not in seen and not (s.level == "suspicious" and s.kind in strong):
            seen.add(key)
            kept.append(s)
    return kept


_last: tuple[dict | None, Lexicon | None] = (None, None)


def _lexicon(cfg: dict) -> Lexicon:
    """The lexicon of `cfg`, kept while the same configuration comes back: an audit scans every tool with one."""
    global _last
    last = _last  # one read: another thread may replace it meanwhile
    if last[0] is not cfg:
        last = _last = (cfg, Lexicon(cfg))
    return last[1]


def _scan_text(own: Own, where: str, text: str, lex: Lexicon, depth: int) -> list[Signal]:
    out = []
    hidden = [] if text.isascii() and "\x1b" not in text and "<!--" not in text else [  # all else is non-ASCII
        m.group(0) for p in lex.hidden for m in p.finditer(text) if not _emoji_joiner(text, m.start(), m.group(0))]
    if hidden:
        chars = sorted({f"U+{ord(c):04X}" for h in hidden if len(h) == 1 for c in h})
        longer = [_show(h, n=60) for h in hidden if len(h) > 1][:2]
        out.append(Signal("poisoning", "hidden", where, f"hidden text ({len(hidden)}): {', '.join(chars + longer)}"))
    if disguised := mixed_words(text):
        out.append(Signal("poisoning", "hidden", where, f"words spelled with look-alike letters: "
                          f"{', '.join(_show(w, n=40) + ' (' + _scripts(w) + ')' for w in disguised[:3])}"))
    folded, changed = fold(text)
    views = [("", folded, changed)]
    unescaped = html.unescape(folded)
    if unescaped != folded:
        views.append((" (HTML-escaped)", unescaped, [False] * len(unescaped)))
    for note, view, changes in views:
        for offset, sentence in sentences(view):
            for level, kind, what, m in sentence_intents(sentence, own, lex):
                out += _look_alike(text, view, note, changes, offset, m, where)
                out.append(Signal(level, kind, where, f"{what}: {_show(sentence, m)}{note}"))
    if depth == 0:
        out += _encoded(own, where, text, lex)
    return out


def _look_alike(text: str, view: str, note: str, changes: list[bool], offset: int, m: re.Match,
                where: str) -> list[Signal]:
    """A hidden-text signal when the match was spelled with look-alike letters."""
    if not any(changes[m.start() + offset:m.end() + offset]):
        return []
    same = not note and len(view) == len(text)  # NFKC can fold one character into several
    original = text[m.start() + offset:m.end() + offset] if same else m.group(0)
    return [Signal("poisoning", "hidden", where, f"look-alike characters spell {_show(m.group(0))}: "
                   f"{_show(original)} ({_scripts(original)})")]


def _emoji_joiner(text: str, i: int, found: str) -> bool:
    """A zero-width joiner between two emoji (👩‍💻) draws one picture; it hides nothing."""
    if found != "\u200d" or i == 0 or i + 1 >= len(text):
        return False
    before = text[i - 1] if unicodedata.category(text[i - 1]) != "Mn" and text[i - 1] != "\ufe0f" else text[max(0, i - 2)]
    return unicodedata.category(before) == "So" and unicodedata.category(text[i + 1]) == "So"


def _scripts(text: str) -> str:
    names = sorted({unicodedata.name(c, "?").split()[0] for c in text if not c.isascii()})
    return ", ".join(f"{n.title()} letters" for n in names) or "non-ASCII letters"


_BASE64 = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX = re.compile(r"\b(?:[0-9a-fA-F]{2})+\b")


def _encoded(own: Own, where: str, text: str, lex: Lexicon) -> list[Signal]:
    """Base64 or hex runs that decode to readable text carrying instructions (scanned once more)."""
    out = []
    for m in [*_BASE64.finditer(text), *_HEX.finditer(text)]:
        blob = m.group(0)
        decoded = _decode(blob, lex.cfg)
        if decoded is None:
            continue
        inner = _scan_text(own, where, decoded, lex, depth=1)
        words = {w.lower() for p in lex.decoded_words for w in p.findall(decoded)}
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
