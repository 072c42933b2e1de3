"""The audit's rule model: a `Rule`, the `Hit` its check yields, the `Ctx` of the tool being checked, and
the walks over a schema every rule family uses."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ...core.registry import Tool
from ...core.text import quoted
from ...core.tokens import count
from ...measuring.tool_tokens import tool_tokens
from ..similarity.folding import name_words, stem

MAX_DEPTH = 64  # schemas nested deeper than this are not walked further (and never hang)


@dataclass(frozen=True)
class Rule:
    """A named check: what it finds, how bad it is, what it costs, and how to fix it."""

    id: str
    severity: str
    impact: str
    title: str
    fix: str
    check: Callable[..., Iterable[Hit]] = field(repr=False, compare=False)
    scope: str = "tool"  # "tool": check(ctx); "registry": check(reg, cfg, encoding)


@dataclass
class Hit:
    """One occurrence of a rule: the evidence and, when measurable, the tokens the fix saves."""

    evidence: str
    tokens: int = 0
    tool: Tool | None = None  # registry-scope rules say which tool
    fix: str | None = None  # a fix more specific than the rule's
    group: int | None = None
    other: str | None = None  # the other tool of a pair, as server/tool


def short(text: str, n: int = 80) -> str:
    """A quoted excerpt of at most `n` characters, with invisible characters shown as \\uXXXX."""
    return quoted(text, n)


def walk(schema: Any, path: str = "", depth: int = 0, seen: frozenset = frozenset()) -> Iterator[tuple[str, Any]]:
    """Every (path, node) of a schema tree, stopping at `MAX_DEPTH` and at objects met before."""
    if depth > MAX_DEPTH or id(schema) in seen:
        return
    yield path, schema
    if isinstance(schema, dict):
        inner = seen | {id(schema)}
        for k, v in schema.items():
            if isinstance(v, (dict, list)):
                yield from walk(v, f"{path}/{k}", depth + 1, inner)
    elif isinstance(schema, list):
        inner = seen | {id(schema)}
        for i, v in enumerate(schema):
            if isinstance(v, (dict, list)):
                yield from walk(v, f"{path}/{i}", depth + 1, inner)


def params(schema: Any, prefix: str = "", depth: int = 0) -> Iterator[tuple[str, dict]]:
    """(dotted name, property schema) of every parameter: nested object and array-item properties,
    and the properties of oneOf/anyOf/allOf branches, included."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return
    props = schema.get("properties")
    if isinstance(props, dict):
        for name, prop in props.items():
            if not isinstance(prop, dict):
                continue
            dotted = f"{prefix}{name}"
            yield dotted, prop
            yield from params(prop, f"{dotted}.", depth + 1)
            items = prop.get("items")
            if isinstance(items, dict):
                yield from params(items, f"{dotted}[].", depth + 1)
    for key in ("oneOf", "anyOf", "allOf"):
        branches = schema.get(key)
        if isinstance(branches, list):
            for i, branch in enumerate(branches):
                yield from params(branch, f"{prefix}{key}[{i}].", depth + 1)


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z0-9]+(?:'[a-z]+)?", text)


@dataclass
class Ctx:
    """One tool being audited, with the configuration and memoised measurements."""

    tool: Tool
    cfg: dict
    encoding: str
    _cache: dict = field(default_factory=dict)

    @property
    def desc(self) -> str:
        d = self.tool.description
        return d if isinstance(d, str) else ""

    @property
    def schema(self) -> Any:
        return self.tool.input_schema

    def desc_words(self) -> int:
        return self.memo("words", lambda: len(_words(self.desc)))

    def desc_tokens(self) -> int:
        return self.memo("dtokens", lambda: count(self.desc, self.encoding))

    def tokens(self) -> int:
        return self.memo("tokens", lambda: tool_tokens(self.tool, self.encoding))

    def saving(self, fixed: Tool) -> int:
        """Tokens per request saved by replacing the tool with `fixed` (negative: the fix costs)."""
        return self.tokens() - tool_tokens(fixed, self.encoding)

    def restates(self) -> bool:
        return self.memo("restates", lambda: _restates(self.tool.name, self.desc, self.cfg["description"]))

    def memo(self, key: str, f: Callable[[], Any]) -> Any:
        if key not in self._cache:
            self._cache[key] = f()
        return self._cache[key]


def _restates(name: str, desc: str, cfg: dict) -> bool:
    words = [stem(w) for w in _words(desc)]
    if not words or len(words) >= cfg["min_words"]:
        return False
    synonym = {}
    for group in cfg["restate_synonyms"]:
        for w in group:
            synonym[w] = group[0]
    canon = lambda w: synonym.get(w, w)
    name_set = {canon(stem(w)) for w in name_words(name)}
    stop = set(cfg["restate_stop_words"])
    content = [canon(w) for w in words if w not in stop]
    new = [w for w in content if w not in name_set]
    return bool(set(content) & name_set) and len(new) <= cfg["restate_max_new_words"]
