"""Tool names as words, and words folded to canonical forms (stems, verb classes, noun synonyms):
what the near-duplicate search compares."""

from __future__ import annotations

import re
from functools import lru_cache

from ...core.registry import Tool


def name_words(name: str) -> list[str]:
    """The words of a tool name: split at `_`, `-`, `.`, `/`, spaces and camelCase humps, lowercased."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", name)
    return [w.lower() for w in re.split(r"[\s_\-./:]+", spaced) if w]


def first_sentence(text: str) -> str:
    """Up to the first `.`, `!` or `?` followed by a space: what the tool does."""
    return re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0]


@lru_cache(maxsize=1 << 16)  # vocabularies repeat: caching makes folding 2,000 tools several times faster
def stem(word: str) -> str:
    """Fold plural and verb endings (gets -> get, queries -> query, records -> record)."""
    w = word.lower()
    if len(w) > 5 and w.endswith("ing"):
        return w[:-3]
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("ches", "shes", "sses", "xes", "zes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


class Folder:
    """Folds words to canonical forms (verb classes, noun synonyms) and names to (action, object)."""

    def __init__(self, cfg: dict):
        self.verb = {w: g[0] for g in cfg.get("verb_classes", []) for w in g}
        self.classes = set(self.verb.values())
        self.noun = {w: g[0] for g in cfg.get("noun_synonyms", []) for w in g}
        self.qualifiers = set(cfg.get("qualifiers", []))
        self.collections = set(cfg.get("collection_words", []))
        self.reads = set(cfg.get("read_actions", []))
        self.wildcards = set(cfg.get("wildcard_actions", []))
        self.batch = set(cfg.get("batch_words", []))

    def word(self, w: str) -> str:
        s = stem(w)
        return self.verb.get(s, self.noun.get(s, s))

    def text(self, tool: Tool) -> str:
        """Name words plus the description's first sentence, folded: what the model compares."""
        desc = tool.description if isinstance(tool.description, str) else ""
        words = name_words(tool.name) + re.findall(r"[A-Za-z][A-Za-z0-9]*", first_sentence(desc))
        return " ".join(self.word(w) for w in words)

    def _verb_at(self, ws: list[str]) -> int | None:
        """Where the verb stands among a name's words: first or second (`crm_search_contacts`), else last
        (`issue_read`); None when no word is a known verb."""
        if ws and stem(ws[0]) in self.verb:
            return 0
        if len(ws) > 2 and stem(ws[1]) in self.verb:
            return 1
        if len(ws) > 1 and stem(ws[-1]) in self.verb:
            return len(ws) - 1
        return None

    def verb_class(self, name: str) -> str | None:
        """The class of the name's own verb (`get_users` -> get; `action_object` would say list)."""
        ws = name_words(name)
        at = self._verb_at(ws)
        return None if at is None else self.verb[stem(ws[at])]

    def action_object(self, name: str) -> tuple[str | None, str | None]:
        """The name's verb class and the object it acts on (the last word that is not a qualifier)."""
        ws = name_words(name)
        at = self._verb_at(ws)
        if at is None:
            return None, None
        action = self.verb[stem(ws[at])]
        rest = [w for i, w in enumerate(ws) if i > at or (at == len(ws) - 1 and i < at)]
        rest = [w for w in rest if w not in self.qualifiers and not w.isdigit()]
        if not rest:
            return action, None
        raw = rest[-1]
        plural = stem(raw) != raw and ws[-1] == raw  # get_users lists; get_users_id gets one
        if action == "get" and (ws[-1] in self.collections or plural):
            action = self.verb.get("list", action)  # get_active_alerts lists alerts
        return action, self.noun.get(stem(raw), stem(raw))

    def read_write(self, tool: Tool, action: str | None) -> str | None:
        """'read' or 'write': the tool's readOnlyHint annotation when it has one, else its action's class."""
        hint = tool.annotations.get("readOnlyHint") if isinstance(getattr(tool, "annotations", None), dict) else None
        if isinstance(hint, bool):
            return "read" if hint else "write"
        if action is None:
            return None
        return "read" if action in self.reads else "write"
