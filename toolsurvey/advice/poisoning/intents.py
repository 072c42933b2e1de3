"""What a sentence asks the model to do. Each intent is a meeting of ingredients (the `[poisoning]`
patterns of assumptions/audit.toml) in one sentence: a secret, an order to read it and a place to put it;
a condition on the user's words and an order that is not this tool's own use; an order about a tool, and
that tool not being one of the server's own. A single phrase is never enough where it could be a
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


class Lexicon:
    """The `[poisoning]` patterns by name, compiled once per configuration."""

    def __init__(self, cfg: dict):
        self.cfg = cfg

    def __getattr__(self, key: str) -> tuple[re.Pattern, ...]:
        return _compiled(tuple(self.cfg[key]))


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
    if m := _take_over(s, lex):
        yield m
    elif m := first(lex.confirm, s):
        yield "suspicious", "instructions", "asks the model to confirm with the user", m
    if m := _trigger(s, own, lex):
        yield "poisoning", "trigger", "an order gated on a condition", m
    if found := _shadowing(s, own, lex):
        yield "poisoning", "shadowing", *found
    if m := _exfiltration(s, lex):
        yield "poisoning", "exfiltration", "carries the conversation or secrets out", m
    if found := _secret(s, lex):
        yield found
    if m := first(lex.preference, s):
        yield "suspicious", "preference", "sells this tool to the model over the others", m


def _take_over(s: str, lex: Lexicon) -> Intent | None:
    for key, what in (("authority", "claims a privileged voice"), ("role", "gives the model a new role or privileges"),
                      ("mode", "switches the model into a mode without its rules"),
                      ("override", "overrides earlier instructions"),
                      ("conceal", "hides what the model does from the user"),
                      ("beyond", "orders an action beyond the call")):
        m = first(getattr(lex, key), s)
        if m and not (key == "override" and first(lex.defensive, s)):
            return "poisoning", "instructions", what, m
    return None


def _trigger(s: str, own: Own, lex: Lexicon) -> re.Match | None:
    """A condition on the user's words or identity, or on a mode flag, gating an order that is not this
    tool's own use: what the model tells the user, leaving its rules, or another server's tool."""
    m = first(lex.condition, s)
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


def _shadowing(s: str, own: Own, lex: Lexicon) -> tuple[str, re.Match] | None:
    for p in lex.shadowing:
        for m in p.finditer(s):
            tool = m.groupdict().get("tool")
            if tool is None:
                return "an order about other tools' calls", m
            if tool not in own:
                return f"an order about {tool!r}, a tool this server does not define", m
    return None


def _exfiltration(s: str, lex: Lexicon) -> re.Match | None:
    if (m := first(lex.exfil_carry, s)) and first(lex.exfil_data, s):
        return m
    return first(lex.exfil_url, s) or first(lex.exfil_self, s) or first(lex.exfil_send, s)


def _secret(s: str, lex: Lexicon) -> Intent | None:
    """A secret in the sentence: `poisoning` when the sentence has it read and passed on (a secret file: read
    or passed on), `suspicious` for a secret file mentioned in a rule or without an order."""
    path = first(lex.secret_paths, s)
    m = path or first(lex.secret_values, s)
    if m is None:
        return None
    near = s[max(0, m.start() - 40):m.end() + 30]
    read, passed = first(lex.read, s) or first(lex.condition, s), first(lex.pass_on, s)  # the user's secret, caught
    if first(lex.negative, near) is None and (passed and (read or path) or (read and path)):
        return "poisoning", "secrets", "reads a secret and passes it on", m
    if path:
        return "suspicious", "secrets", "names a secret file", m
    return None  # a password parameter, GITHUB_TOKEN or a .env file named in passing is configuration
