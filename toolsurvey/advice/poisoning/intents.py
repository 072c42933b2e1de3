"""What a sentence asks the model to do. Each intent is a meeting of ingredients (the `[poisoning]`
patterns of assumptions/audit.toml) in one sentence: a secret, an order to read it and a place to put it;
a condition on the user's words and an order that is not this tool's own use; an order about a tool, and
that tool not being one of the server's own; a role given to the model and broad access or a safeguard
switched off; a condition on what the model reads, a call of another server's tool and an order to skip the
user. A single phrase is never enough where it could be a
server's own rule, so the rules keep to what the text asks, however it is worded."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

# (level, kind, what the text does, the match that shows it)
Intent = tuple[str, str, str, re.Match]

_ARTICLES = frozenset({"this", "that", "the", "a", "an", "it", "any", "each", "every", "other", "which"})


@lru_cache(maxsize=256)
def _compiled(patterns: tuple[str, ...]) -> tuple[re.Pattern, ...]:
    return tuple(re.compile(p) for p in patterns)


@lru_cache(maxsize=256)
def _literals(words: tuple[str, ...]) -> re.Pattern:
    return re.compile("|".join(map(re.escape, words)))


class Lexicon:
    """The `[poisoning]` patterns by name, compiled once per configuration."""

    def __init__(self, cfg: dict):
        self.cfg = cfg
        self._cues: dict[str, re.Pattern | None] = {}

    def __getattr__(self, key: str) -> tuple[re.Pattern, ...]:
        value = _compiled(tuple(self.cfg[key]))
        setattr(self, key, value)  # runs only on a miss: each list is hashed once per lexicon, not per sentence
        return value

    def cued(self, key: str, low: str) -> bool:
        """Whether the lower-cased sentence holds a cue of the ingredient (`[poisoning.cues]`), or it has none."""
        if key not in self._cues:
            cues = self.cfg.get("cues", {}).get(key)
            self._cues[key] = None if cues is None else _literals(tuple(cues))
        pattern = self._cues[key]
        return pattern is None or pattern.search(low) is not None

    def find(self, key: str, s: str, low: str) -> re.Match | None:
        """The first match of the ingredient's patterns in `s`, searched only when a cue is there."""
        return first(getattr(self, key), s) if self.cued(key, low) else None


def first(pats: tuple[re.Pattern, ...], text: str) -> re.Match | None:
    for p in pats:
        m = p.search(text)
        if m:
            return m
    return None


def normal(name: str) -> str:
    """A tool name as a reference compares it: lower case, no quotes or separators."""
    return re.sub(r"[\W_]+", "", name.lower())


@dataclass(frozen=True)
class Own:
    """Names a sentence may give orders about without shadowing: this tool, its parameters, its server's tools."""

    names: frozenset[str]
    tools: frozenset[str]  # the server's tools (normalized), for prefixed references (mcp__server__find)

    def __contains__(self, ref: str) -> bool:
        n = normal(ref)
        return ref.lower() in _ARTICLES or n in self.names or any(n.endswith(t) for t in self.tools if len(t) >= 5)


def sentence_intents(s: str, own: Own, lex: Lexicon) -> Iterator[Intent]:
    """Every intent in sentence `s`, strongest first within each kind."""
    low = s.lower()
    if m := _take_over(s, low, lex):
        yield m
    elif m := lex.find("confirm", s, low):
        yield "suspicious", "instructions", "asks the model to confirm with the user", m
    if m := _trigger(s, low, own, lex):
        yield "poisoning", "trigger", "an order gated on a condition", m
    if found := _role(s, low, lex):
        yield "poisoning", "role", *found
    if found := _chain(s, low, own, lex):
        yield "poisoning", "chain", *found
    if found := _shadowing(s, low, own, lex):
        yield "poisoning", "shadowing", *found
    if m := _exfiltration(s, low, lex):
        yield "poisoning", "exfiltration", "carries the conversation or secrets out", m
    if found := _secret(s, low, lex):
        yield found
    if m := lex.find("preference", s, low):
        yield "suspicious", "preference", "sells this tool to the model over the others", m


def _take_over(s: str, low: str, lex: Lexicon) -> Intent | None:
    for key, what in (("authority", "claims a privileged voice"), ("role", "gives the model a new role or privileges"),
                      ("mode", "switches the model into a mode without its rules"),
                      ("override", "overrides earlier instructions"),
                      ("conceal", "hides what the model does from the user"),
                      ("beyond", "orders an action beyond the call")):
        m = lex.find(key, s, low)
        if m and not (key == "override" and first(lex.defensive, s)):
            return "poisoning", "instructions", what, m
    return None


def _trigger(s: str, low: str, own: Own, lex: Lexicon) -> re.Match | None:
    """A condition on the user's words or identity, or on a mode flag, gating an order that is not this
    tool's own use: what the model tells the user, leaving its rules, or another server's tool."""
    m = lex.find("condition", s, low)
    if m is None or first(lex.select_self, s[:m.start()].rsplit(".", 1)[-1]):
        return None  # "Use this tool when the user asks ..." says when to use it
    rest = s[m.end():]
    after = rest.split(",", 1)[-1] if "," in rest[:80] else rest
    consequent = after if after.strip(" .;:") else s[:m.start()]
    if first(lex.select_self, consequent):
        return None
    order = first(lex.order, consequent)
    if order is None or (order.group("tool") and order.group("tool") in own):
        return None
    return m


def _role(s: str, low: str, lex: Lexicon) -> tuple[str, re.Match] | None:
    """A role given to the model ("act as ...", "you are now the ..."), with broad access or a privileged role
    ("the database superuser") or a safeguard switched off ("disable content filtering") in the same sentence."""
    m = lex.find("role_assign", s, low)
    if m is None:
        return None
    if b := first(lex.broad, s) or first(lex.privileged, s[m.end() - 1:m.end() + 40]):
        return f"gives the model a new role with broad access ({_q(b)})", m
    for p in lex.safeguard_off if lex.cued("safeguard_off", low) else ():
        for off in p.finditer(s):
            if not first(lex.keeps, s[max(0, off.start() - 30):off.start()]):
                return f"gives the model a new role with a safeguard switched off ({_q(off)})", m
    return None


def _chain(s: str, low: str, own: Own, lex: Lexicon) -> tuple[str, re.Match] | None:
    """An order triggered by what the model reads ("when you read this result"), calling a tool the server
    does not define, and telling the model to go on without the user ("without asking")."""
    if not lex.cued("calls", low):
        return None
    skip = lex.find("skip_user", s, low)
    when = skip and lex.find("read_trigger", s, low)
    if not when:
        return None
    for p in lex.calls:
        for m in p.finditer(s):
            tool = m.group("tool")
            if tool in own or first(lex.not_a_tool, tool) or first(lex.not_an_order, s[max(0, m.start() - 25):m.start()]):
                continue
            return (f"an order on what the model reads ({_q(when)}) that calls {tool!r}, a tool this server does not "
                    f"define, and skips the user ({_q(skip)})"), m
    return None


def _q(m: re.Match) -> str:
    return '"' + " ".join(m.group(0).split())[:60] + '"'


def _shadowing(s: str, low: str, own: Own, lex: Lexicon) -> tuple[str, re.Match] | None:
    if not lex.cued("shadowing", low):
        return None
    for p in lex.shadowing:
        for m in p.finditer(s):
            tool = m.groupdict().get("tool")
            if tool is None:
                return "an order about other tools' calls", m
            if tool not in own:
                return f"an order about {tool!r}, a tool this server does not define", m
    return None


def _exfiltration(s: str, low: str, lex: Lexicon) -> re.Match | None:
    if (m := lex.find("exfil_carry", s, low)) and first(lex.exfil_data, s):
        return m
    return lex.find("exfil_url", s, low) or lex.find("exfil_self", s, low) or lex.find("exfil_send", s, low)


def _secret(s: str, low: str, lex: Lexicon) -> Intent | None:
    """A secret in the sentence: `poisoning` when the sentence has it read and passed on (a secret file: read
    or passed on), `suspicious` for a secret file mentioned in a rule or without an order."""
    path = lex.find("secret_paths", s, low)
    m = path or lex.find("secret_values", s, low)
    if m is None:
        return None
    near = s[max(0, m.start() - 40):m.end() + 30]
    read, passed = first(lex.read, s) or lex.find("condition", s, low), first(lex.pass_on, s)  # the user's secret, caught
    if first(lex.negative, near) is None and (passed and (read or path) or (read and path)):
        return "poisoning", "secrets", "reads a secret and passes it on", m
    if path:
        return "suspicious", "secrets", "names a secret file", m
    return None  # a password parameter, GITHUB_TOKEN or a .env file named in passing is configuration
