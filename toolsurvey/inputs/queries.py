"""Retrieval queries and external rankings: a queries file (JSON Lines of `{"id", "query", "gold"}`)
whose gold tools are resolved against a registry, and a rankings file (JSON Lines of
`{"id", "ranked"}`) naming each query's tools, best first."""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.files import parse_json, read_text
from ..core.registry import Registry
from ..errors import InputError


@dataclass(frozen=True)
class Query:
    """A task in a user's words and the registry tools (keys `server/name`) it needs."""

    id: str
    query: str
    gold: tuple[str, ...]  # empty: no tool should be called (selection evals only)
    source: str = ""
    # expected argument values, matched as a subset of the call's arguments (selection evals only)
    args: dict[str, Any] | None = field(default=None, compare=False, hash=False)


class ToolNames:
    """A registry's tool keys, and the lookup of a name a user wrote (`server/tool` or `tool`)."""

    def __init__(self, reg: Registry):
        self.keys = [t.key for t in reg]
        self.by_name: dict[str, list[str]] = {}
        for t in reg:
            self.by_name.setdefault(t.name, []).append(t.key)
        self._keys = set(self.keys)

    def resolve(self, name: str, where: str) -> str:
        """The key `name` means; raises InputError for a name that is unknown (with the closest
        names) or that several servers share."""
        if name in self._keys:
            return name
        keys = self.by_name.get(name, [])
        if len(keys) == 1:
            return keys[0]
        if len(keys) > 1:
            raise InputError(f"{where}: tool {name!r} is on several servers ({', '.join(keys[:5])}); "
                             "write it as server/tool")
        near = difflib.get_close_matches(name, self.keys + list(self.by_name), n=3, cutoff=0.5)
        hint = f"; closest: {', '.join(near)}" if near else ""
        raise InputError(f"{where}: tool {name!r} is not in the registry{hint}")


def _lines(path: str | os.PathLike, what: str) -> Iterable[tuple[int, dict]]:
    """(line number, object) of a small JSON Lines file; raises InputError for a line that is not a
    JSON object (blank lines are allowed)."""
    text = read_text(path, what, f"a JSON Lines {what}")
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        doc = parse_json(line, f"{os.fspath(path)} line {n}")
        if not isinstance(doc, dict):
            raise InputError(f"{os.fspath(path)} line {n}: expected a JSON object, found {type(doc).__name__}")
        yield n, doc


def make_queries(rows: Iterable[Mapping], reg: Registry, where: str = "queries", *,
                 no_tool: bool = False) -> list[Query]:
    """Queries from mappings with id, query and gold, gold names resolved against `reg`; raises
    InputError for an empty set, a duplicate id, a missing field or a gold tool not in `reg`. With
    `no_tool`, `"gold": []` (no tool should be called) is accepted, and so is `"args"`, an object of
    expected argument values."""
    names, out, seen = ToolNames(reg), [], {}
    for i, row in enumerate(rows, 1):
        at = f"{where} {row.get('_line', i)}" if isinstance(row, Mapping) else f"{where} {i}"
        if not isinstance(row, Mapping):
            raise InputError(f"{at}: expected an object with id, query and gold, found {type(row).__name__}")
        qid, text, gold = row.get("id"), row.get("query"), row.get("gold")
        if not isinstance(qid, (str, int)) or isinstance(qid, bool) or str(qid) == "":
            raise InputError(f"{at}: expected an id (a string or number), found {qid!r}")
        qid = str(qid)
        if qid in seen:
            raise InputError(f"{at}: query id {qid!r} repeats the one at {seen[qid]}; ids must be unique")
        seen[qid] = at
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"{at} ({qid}): expected a non-empty query string, found {text!r}")
        if isinstance(gold, str):
            gold = [gold]
        if isinstance(gold, tuple):
            gold = list(gold)
        if not isinstance(gold, list) or not (gold or no_tool) or not all(isinstance(g, str) for g in gold):
            kind = "a list of tool names ([] when no tool should be called)" if no_tool else \
                "a non-empty list of tool names"
            raise InputError(f"{at} ({qid}): expected gold, {kind}, found {gold!r}")
        keys = tuple(dict.fromkeys(names.resolve(g, f"{at} ({qid})") for g in gold))
        args = row.get("args") if no_tool else None
        if args is not None and not (isinstance(args, dict) and keys):
            raise InputError(f"{at} ({qid}): expected args, an object of expected argument values for a "
                             f"query with a gold tool, found {args!r}")
        out.append(Query(qid, text, keys, str(row.get("source", "")), args))
    if not out:
        raise InputError(f"{where.removesuffix(' line')}: no queries; expected JSON Lines of {{\"id\", \"query\", \"gold\": [...]}}")
    return out


def load_queries(source, reg: Registry, *, no_tool: bool = False) -> list[Query]:
    """Queries from a JSON Lines file (or a list of mappings or Query values), resolved against
    `reg`; raises InputError as make_queries does, or for a bad line."""
    if isinstance(source, (str, os.PathLike)):
        rows = [{**doc, "_line": n} for n, doc in _lines(source, "queries file")]
        return make_queries(rows, reg, f"{os.fspath(source)} line", no_tool=no_tool)
    rows = [q.__dict__ if isinstance(q, Query) else q for q in source]
    return make_queries(rows, reg, no_tool=no_tool)


def load_rankings(source, queries: list[Query], reg: Registry) -> dict[str, list[str]]:
    """Each query's ranked tool keys, best first, from a JSON Lines file of {"id", "ranked"} (or a
    mapping of id -> list); raises InputError for an unknown query id, a query with no ranking,
    an unknown tool, or a tool ranked twice."""
    if isinstance(source, (str, os.PathLike)):
        where = os.fspath(source)
        rows = {}
        for n, doc in _lines(source, "rankings file"):
            qid = str(doc.get("id"))
            if qid in rows:
                raise InputError(f"{where} line {n}: query {qid!r} is ranked twice")
            rows[qid] = (doc.get("ranked"), f"{where} line {n}")
    else:
        where = "rankings"
        rows = {str(k): (v, f"rankings[{k!r}]") for k, v in dict(source).items()}
    ids = {q.id for q in queries}
    extra = sorted(set(rows) - ids)
    if extra:
        raise InputError(f"{where}: ranking for unknown query id(s) {', '.join(extra[:5])}; "
                         "each id must be one of the queries file's")
    missing = [q.id for q in queries if q.id not in rows]
    if missing:
        raise InputError(f"{where}: no ranking for {len(missing)} of {len(queries)} queries "
                         f"(e.g. {', '.join(missing[:5])}); every query needs one")
    names, out = ToolNames(reg), {}
    for qid, (ranked, at) in rows.items():
        if not isinstance(ranked, list) or not all(isinstance(r, str) for r in ranked):
            raise InputError(f"{at}: expected ranked, a list of tool names best first, found {ranked!r}")
        keys = [names.resolve(r, at) for r in ranked]
        if len(set(keys)) != len(keys):
            dup = next(k for k in keys if keys.count(k) > 1)
            raise InputError(f"{at}: tool {dup!r} is ranked twice for query {qid!r}")
        out[qid] = keys
    return out
