"""Trimming strategies for tool results, composable, each measured before and after."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..core import jsontree as _jsontree
from ..core.choices import SERIALIZATIONS
from ..core.tokens import DEFAULT_ENCODING, get_encoding
from ..errors import InputError
from ..inputs.payloads import Payload

MAX_DEPTH = 200  # the strategies recurse; deeper payloads are measured but not trimmed
_EMPTY = (None, "", [], {})
_END = None  # trie key marking "keep/drop everything beneath"


def _check_serialization(how: str) -> None:
    if how not in SERIALIZATIONS:
        raise InputError(f"unknown serialization {how!r}; expected one of: {', '.join(SERIALIZATIONS)}")


def _check_max_items(max_items: int) -> None:
    if max_items < 0:
        raise InputError(f"max_items must be >= 0, found {max_items}")


def _check_truncate(limit: int, unit: str) -> None:
    if limit < 0 or unit not in ("chars", "tokens"):
        raise InputError(f"truncate needs a limit >= 0 and unit chars or tokens, found {limit} {unit}")


class TooDeep(InputError):
    """A payload nested deeper than the trimming strategies walk."""


class Omitted(str):
    """The marker that stands in for list items left out by `cap_lists`."""


@dataclass
class Trimmed:
    """A trimmed result: the value, the text the model would receive, and one record per step."""

    value: Any
    text: str
    steps: list[dict]
    warnings: list[str] = field(default_factory=list)
    unmatched: dict[str, list[str]] = field(default_factory=dict)  # keep/drop paths that matched nothing

    @property
    def tokens_before(self) -> int:
        return self.steps[0]["tokens"]

    @property
    def tokens_after(self) -> int:
        return self.steps[-1]["tokens"]

    @property
    def ratio(self) -> float:
        """How many times smaller the result became (before / after)."""
        return self.tokens_before / self.tokens_after if self.tokens_after else float("inf")


def parse_paths(paths: str | list[str] | None) -> list[str]:
    """Comma-separated or listed paths, stripped, empties removed."""
    if paths is None:
        return []
    items = paths.split(",") if isinstance(paths, str) else [q for p in paths for q in str(p).split(",")]
    return [p.strip() for p in items if p.strip()]


def _trie(paths: list[str]) -> dict:
    root: dict = {}
    for p in paths:
        parts = _jsontree.path_parts(p)
        if not parts:
            raise InputError(f"path {p!r} names no field; expected e.g. 'title' or 'labels[].name'")
        node = root
        for k in parts:
            if node.get(_END):
                break
            node = node.setdefault(k, {})
        else:
            node.clear()
            node[_END] = p
    return root


def keep_paths(value: Any, paths: str | list[str]) -> tuple[Any, Counter, set[str]]:
    """Only the listed paths (lists walked through); returns (value, dropped path -> count, matched paths)."""
    trie, dropped, matched = _trie(parse_paths(paths)), Counter(), set()

    def walk(v, node, path):
        if isinstance(v, list):
            return [walk(x, node, path + "[]") for x in v]
        if not isinstance(v, dict):
            return v
        out = {}
        for k, x in v.items():
            sub = node.get(k)
            here = f"{path}.{k}" if path else k
            if sub is None:
                dropped[here] += 1
            elif _END in sub:
                matched.add(sub[_END])
                out[k] = x
            else:
                out[k] = walk(x, sub, here)
        return out

    return walk(value, trie, ""), dropped, matched


def drop_paths(value: Any, paths: str | list[str]) -> tuple[Any, Counter, set[str]]:
    """Everything but the listed paths; returns (value, dropped path -> count, matched paths)."""
    trie, dropped, matched = _trie(parse_paths(paths)), Counter(), set()

    def walk(v, node, path):
        if isinstance(v, list):
            return [walk(x, node, path + "[]") for x in v]
        if not isinstance(v, dict):
            return v
        out = {}
        for k, x in v.items():
            sub = node.get(k)
            here = f"{path}.{k}" if path else k
            if sub is not None and _END in sub:
                matched.add(sub[_END])
                dropped[here] += 1
            else:
                out[k] = walk(x, sub, here) if sub else x
        return out

    return walk(value, trie, ""), dropped, matched


def remove_empty(value: Any) -> tuple[Any, Counter]:
    """Object members that are null, "", [] or {} (also once emptied by this step) removed; list items
    keep their positions. Returns (value, dropped path -> count)."""
    dropped = Counter()

    def walk(v, path):
        if isinstance(v, list):
            return [walk(x, path + "[]") for x in v]
        if not isinstance(v, dict):
            return v
        out = {}
        for k, x in v.items():
            here = f"{path}.{k}" if path else k
            x = walk(x, here)
            if any(x == e and type(x) is type(e) for e in _EMPTY):
                dropped[here] += 1
            else:
                out[k] = x
        return out

    return walk(value, ""), dropped


def truncate_strings(value: Any, limit: int, unit: str = "chars", encoding: str = DEFAULT_ENCODING
                     ) -> tuple[Any, Counter]:
    """Strings longer than `limit` chars (or tokens) cut with a marker of how much was cut; keys kept.
    Returns (value, truncated path -> count). Raises InputError for a bad limit or unit."""
    _check_truncate(limit, unit)
    enc = get_encoding(encoding)
    cut = Counter()

    def short(s: str, path: str) -> str:
        if isinstance(s, Omitted) or len(s) <= limit or unit == "tokens" and len(s.encode()) <= limit:
            return s  # (a token is at least one byte, so a string has no more tokens than bytes)
        if unit == "chars":
            cut[path] += 1
            return f"{s[:limit]}…[+{len(s) - limit} chars]"
        ids = enc.encode_ordinary(s)
        if len(ids) <= limit:
            return s
        cut[path] += 1
        return f"{enc.decode(ids[:limit])}…[+{len(ids) - limit} tokens]"

    def walk(v, path):
        if isinstance(v, str):
            return short(v, path or "(text)")
        if isinstance(v, list):
            return [walk(x, path + "[]") for x in v]
        if isinstance(v, dict):
            return {k: walk(x, f"{path}.{k}" if path else k) for k, x in v.items()}
        return v

    return walk(value, ""), cut


def cap_lists(value: Any, max_items: int) -> tuple[Any, Counter]:
    """Lists longer than `max_items` cut to their first items plus an `Omitted` marker saying how many
    were left out. Returns (value, capped list path -> items left out)."""
    _check_max_items(max_items)
    left = Counter()

    def walk(v, path):
        if isinstance(v, list):
            items = [walk(x, path + "[]") for x in v[:max_items]]
            if len(v) > max_items:
                left[path or "(root)"] += len(v) - max_items
                items.append(Omitted(f"[+{len(v) - max_items} more items]"))
            return items
        if isinstance(v, dict):
            return {k: walk(x, f"{path}.{k}" if path else k) for k, x in v.items()}
        return v

    return walk(value, ""), left


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        if all(not isinstance(x, dict | list) for x in v):
            return "; ".join(_cell(x) for x in v)
        if all(isinstance(x, dict) and len(x) == 1 and not isinstance(next(iter(x.values())), dict | list)
               for x in v):
            return "; ".join(_cell(next(iter(x.values()))) for x in v)
    if isinstance(v, dict | list):
        return _jsontree.compact(v)
    return str(v)


def _flatten(rec: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in rec.items():
        if isinstance(v, dict) and v:
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = _cell(v)
    return out


def table_rows(value: Any) -> tuple[list[str], list[dict], str] | None:
    """(columns, flattened rows, omitted marker) when `value` is a list of records, else None."""
    if not isinstance(value, list):
        return None
    marker = value[-1] if value and isinstance(value[-1], Omitted) else ""
    records = value[:-1] if marker else value
    if not records or not all(isinstance(r, dict) for r in records):
        return None
    rows = [_flatten(r) for r in records]
    cols = list(dict.fromkeys(c for r in rows for c in r))
    return cols, rows, marker


def to_text(value: Any, how: str = "json") -> tuple[str, str | None]:
    """Text of `value` as compact JSON, pretty JSON, CSV or a Markdown table; returns (text, warning).
    Tables need a list of records; anything else stays compact JSON with a warning."""
    _check_serialization(how)
    if how == "json":
        return _jsontree.compact(value), None
    if how == "pretty":
        try:
            return json.dumps(value, indent=2, ensure_ascii=False), None
        except RecursionError:
            return _jsontree.compact(value), "too deep to pretty-print; kept compact JSON"
    table = table_rows(value)
    if table is None:
        kind = type(value).__name__ if not isinstance(value, list) else "a list that is not all objects"
        return _jsontree.compact(value), f"{how} needs a list of records (objects), found {kind}; kept compact JSON"
    cols, rows, marker = table
    if how == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(cols)
        w.writerows([r.get(c, "") for c in cols] for r in rows)
        if marker:
            w.writerow([marker])
        return buf.getvalue(), None

    def md(s: str) -> str:
        return s.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")

    lines = ["| " + " | ".join(md(c) for c in cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(md(r.get(c, "")) for c in cols) + " |" for r in rows]
    return "\n".join(lines + ([marker] if marker else [])) + "\n", None


def _missing(paths: list[str], matched: set[str]) -> list[str]:
    """Paths that matched nothing, not counting those inside a matched path ('user.login' under 'user')."""
    hit = [_jsontree.path_parts(m) for m in matched]
    return [p for p in paths if not any(_jsontree.path_parts(p)[:len(h)] == h for h in hit)]


def _summary(counts: Counter, limit: int = 8) -> str:
    items = [f"{p} ({n})" for p, n in counts.most_common(limit)]
    if len(counts) > limit:
        items.append(f"… {len(counts) - limit} more paths")
    return ", ".join(items)


@lru_cache(maxsize=64)
def _block_tokens(text: str, encoding: str) -> int:
    """Tokens of a result as received. An explorer re-trims the same results on every change; their
    text is the same string each time (its hash is cached by Python), so it is encoded once."""
    return len(get_encoding(encoding).encode_ordinary(text)) if text else 0


def trim(payload: Any, *, keep: str | list[str] | None = None, drop: str | list[str] | None = None,
         drop_empty: bool = False, truncate: int | None = None, truncate_unit: str = "chars",
         max_items: int | None = None, serialize: str = "json", encoding: str | None = None) -> Trimmed:
    """Apply the chosen strategies in order (keep, drop, drop empties, cap lists, truncate, serialize),
    counting tokens after each. `payload` is a Payload, a JSON value, or text. Steps measure compact
    JSON except the first (the result as received) and the last serialization.
    Raises InputError for bad options or a payload nested deeper than MAX_DEPTH with JSON strategies.
    """
    encoding = encoding or DEFAULT_ENCODING
    enc = get_encoding(encoding)
    # bad options fail here, before any work
    _check_serialization(serialize)
    if max_items is not None:
        _check_max_items(max_items)
    if truncate is not None:
        _check_truncate(truncate, truncate_unit)
    _trie(parse_paths(keep)), _trie(parse_paths(drop))

    def count(text: str) -> int:
        if not text:
            return 0
        try:
            return len(enc.encode_to_numpy(text, allowed_special=set(), disallowed_special=()))
        except UnicodeEncodeError:  # a lone surrogate: encode_ordinary counts it as U+FFFD, as tiktoken does
            return len(enc.encode_ordinary(text))

    if not isinstance(payload, Payload):
        payload = Payload.from_text(payload) if isinstance(payload, str) else Payload.from_value(payload)
    before = sum(_block_tokens(b, encoding) for b in payload.blocks) + payload.image_tokens
    steps = [{"step": "as received", "tokens": before, "saved": 0, "dropped": ""}]
    warnings: list[str] = []
    unmatched: dict[str, list[str]] = {}
    structural = keep or drop or drop_empty or max_items is not None
    if payload.is_json:
        value = payload.value
        if (structural or truncate is not None or serialize != "json") and _jsontree.depth(value) > MAX_DEPTH:
            raise TooDeep(f"{payload.source or 'payload'} nests {_jsontree.depth(value):,} levels deep; "
                          f"trimming walks at most {MAX_DEPTH} (measuring works at any depth)")
    else:
        value = payload.text
        if structural:
            warnings.append(f"{payload.source or 'payload'}: text, not JSON; only truncation applies")
    if payload.image_tokens and (structural or truncate is not None):
        warnings.append(f"{payload.source or 'payload'}: {payload.image_tokens} image tokens kept as they are")

    def step(name: str, new: Any, dropped: str) -> None:
        nonlocal value
        value = new
        text = _jsontree.compact(new) if payload.is_json else new
        n = count(text) + payload.image_tokens
        steps.append({"step": name, "tokens": n, "saved": steps[-1]["tokens"] - n, "dropped": dropped})

    if payload.is_json:
        if keep:
            new, dropped, matched = keep_paths(value, keep)
            unmatched["keep"] = _missing(parse_paths(keep), matched)
            step("keep " + ",".join(parse_paths(keep)), new, _summary(dropped))
        if drop:
            new, dropped, matched = drop_paths(value, drop)
            unmatched["drop"] = _missing(parse_paths(drop), matched)
            step("drop " + ",".join(parse_paths(drop)), new, _summary(dropped))
        if drop_empty:
            new, dropped = remove_empty(value)
            step("drop empty", new, _summary(dropped))
        if max_items is not None:
            new, left = cap_lists(value, max_items)
            step(f"max {max_items} items", new, _summary(left))
    if truncate is not None:
        new, cut = truncate_strings(value, truncate, truncate_unit, encoding)
        step(f"truncate {truncate} {truncate_unit}", new, _summary(cut))
    text, warning = to_text(value, serialize) if payload.is_json else (value, None)
    if warning:
        warnings.append(f"{payload.source or 'payload'}: {warning}")
    n = count(text) + payload.image_tokens
    steps.append({"step": f"serialize {serialize}", "tokens": n, "saved": steps[-1]["tokens"] - n,
                  "dropped": ""})
    for kind, missing in unmatched.items():
        if missing:
            warnings.append(f"{payload.source or 'payload'}: {kind} path(s) matched nothing: {', '.join(missing)}")
    return Trimmed(value=value, text=text, steps=steps, warnings=warnings, unmatched=unmatched)


def trim_many(payloads: list[Payload], encoding: str | None = None, **options: Any
              ) -> tuple[list[int], list[dict], list[str]]:
    """Trim each payload; returns (tokens after, per step summed over payloads, warnings). A payload that
    cannot be trimmed keeps its size, with a warning; a keep or drop path that matches nothing in
    any result is warned once (not per result, since a trace mixes tools with different fields)."""
    unknown = set(options) - {"keep", "drop", "drop_empty", "truncate", "truncate_unit", "max_items", "serialize"}
    if unknown:
        raise InputError(f"unknown trimming option(s): {', '.join(sorted(unknown))}; expected keep, drop, "
                         "drop_empty, truncate, truncate_unit, max_items or serialize")
    after, totals, warnings = [], {}, []
    never = {k: set(parse_paths(options.get(k))) for k in ("keep", "drop")}
    for p in payloads:
        try:
            t = trim(p, encoding=encoding, **options)
        except TooDeep as e:
            after.append(trim(p, encoding=encoding).tokens_before)  # no strategy: measures at any depth
            warnings.append(f"not trimmed: {e}")
            continue
        after.append(t.tokens_after)
        for i, s in enumerate(t.steps):
            tot = totals.setdefault((i, s["step"]), {"step": s["step"], "tokens": 0, "saved": 0})
            tot["tokens"] += s["tokens"]
            tot["saved"] += s["saved"]
        for kind, missing in t.unmatched.items():
            never[kind] &= set(missing)
        warnings += [w for w in t.warnings if "matched nothing" not in w]
    for kind, paths in never.items():
        if paths:
            warnings.append(f"{kind} path(s) matched nothing in any result: {', '.join(sorted(paths))}")
    return after, list(totals.values()), warnings
