"""The trimming pipeline: apply the chosen steps in order to a result, counting its tokens after each."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ...core import jsontree as _jsontree
from ...core.tokens import DEFAULT_ENCODING, get_encoding
from ...errors import InputError
from ...inputs.payloads import Payload
from .serialize import check_serialization, to_text
from .steps import (
    cap_lists,
    check_max_items,
    check_truncate,
    drop_paths,
    keep_paths,
    parse_paths,
    path_trie,
    remove_empty,
    unmatched_paths,
)
from .truncation import truncate_strings

MAX_DEPTH = 200  # the strategies recurse; deeper payloads are measured but not trimmed


class TooDeep(InputError):
    """A payload nested deeper than the trimming strategies walk."""


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


def _summary(counts: Counter, limit: int = 8) -> str:
    items = [f"{p} ({n})" for p, n in counts.most_common(limit)]
    if len(counts) > limit:
        items.append(f"… {len(counts) - limit} more paths")
    return ", ".join(items)


def _truncated(cut: Counter, whole: Counter) -> str:
    """What truncation cut, and the strings over the limit it kept whole (no cut of them saves tokens)."""
    kept = f"{sum(whole.values()):,} string(s) over the limit kept whole: no cut saves tokens net of its marker"
    if not cut:
        return "nothing cut" + (f"; {kept}" if whole else "")
    return _summary(cut) + (f"; {kept}" if whole else "")


@lru_cache(maxsize=64)
def _block_tokens(text: str, encoding: str) -> int:
    """Tokens of a result as received. An explorer re-trims the same results on every change; their
    text is the same string each time (its hash is cached by Python), so it is encoded once."""
    return len(get_encoding(encoding).encode_ordinary(text)) if text else 0


def _counter(encoding: str) -> Callable[[str], int]:
    enc = get_encoding(encoding)

    def count(text: str) -> int:
        if not text:
            return 0
        try:
            return len(enc.encode_to_numpy(text, allowed_special=set(), disallowed_special=()))
        except UnicodeEncodeError:  # a lone surrogate: encode_ordinary counts it as U+FFFD, as tiktoken does
            return len(enc.encode_ordinary(text))

    return count


@dataclass
class _Run:
    """One payload going through the pipeline: its current value and the records so far."""

    payload: Payload
    value: Any
    count: Callable[[str], int]
    steps: list[dict]
    warnings: list[str] = field(default_factory=list)
    unmatched: dict[str, list[str]] = field(default_factory=dict)

    @property
    def source(self) -> str:
        return self.payload.source or "payload"

    def record(self, name: str, text: str, dropped: str) -> None:
        """A step's record: the tokens of `text` (plus the images kept as they are) and what it saved."""
        n = self.count(text) + self.payload.image_tokens
        self.steps.append({"step": name, "tokens": n, "saved": self.steps[-1]["tokens"] - n, "dropped": dropped})

    def compact(self) -> None:
        """Record the result as compact JSON when it came otherwise (e.g. pretty-printed), so that
        saving is not counted as the next step's."""
        text = _jsontree.compact(self.value)
        if self.count(text) + self.payload.image_tokens != self.steps[-1]["tokens"]:
            self.record("compact JSON", text, "re-serialized without spaces")

    def step(self, name: str, new: Any, dropped: str) -> None:
        self.value = new
        self.record(name, _jsontree.compact(new) if self.payload.is_json else new, dropped)


def _check_options(keep, drop, truncate: int | None, truncate_unit: str, max_items: int | None,
                   serialize: str) -> None:
    """Bad options fail here, before any work."""
    check_serialization(serialize)
    if max_items is not None:
        check_max_items(max_items)
    if truncate is not None:
        check_truncate(truncate, truncate_unit)
    path_trie(parse_paths(keep)), path_trie(parse_paths(drop))


def _start(payload: Any, encoding: str, structural: bool, reshapes: bool) -> _Run:
    """The run of a Payload, JSON value or text, its first record the result as received.

    Raises TooDeep when a JSON step would walk a payload nested deeper than MAX_DEPTH."""
    if not isinstance(payload, Payload):
        payload = Payload.from_text(payload) if isinstance(payload, str) else Payload.from_value(payload)
    before = sum(_block_tokens(b, encoding) for b in payload.blocks) + payload.image_tokens
    run = _Run(payload, payload.value if payload.is_json else payload.text, _counter(encoding),
               [{"step": "as received", "tokens": before, "saved": 0, "dropped": ""}])
    if payload.is_json:
        if reshapes and _jsontree.depth(run.value) > MAX_DEPTH:
            raise TooDeep(f"{run.source} nests {_jsontree.depth(run.value):,} levels deep; "
                          f"trimming walks at most {MAX_DEPTH} (measuring works at any depth)")
    elif structural:
        run.warnings.append(f"{run.source}: text, not JSON; only truncation applies")
    return run


def _structural_steps(run: _Run, keep, drop, drop_empty: bool, max_items: int | None) -> None:
    """Keep, drop, drop empties and cap lists, in that order, on a JSON result."""
    if keep:
        new, dropped, matched = keep_paths(run.value, keep)
        run.unmatched["keep"] = unmatched_paths(parse_paths(keep), matched)
        run.step("keep " + ",".join(parse_paths(keep)), new, _summary(dropped))
    if drop:
        new, dropped, matched = drop_paths(run.value, drop)
        run.unmatched["drop"] = unmatched_paths(parse_paths(drop), matched)
        run.step("drop " + ",".join(parse_paths(drop)), new, _summary(dropped))
    if drop_empty:
        new, dropped = remove_empty(run.value)
        run.step("drop empty", new, _summary(dropped))
    if max_items is not None:
        new, left = cap_lists(run.value, max_items)
        run.step(f"max {max_items} items", new, _summary(left))


def _finish(run: _Run, serialize: str) -> Trimmed:
    """The last step, the serialization, and the result with its warnings."""
    text, warning = to_text(run.value, serialize) if run.payload.is_json else (run.value, None)
    if warning:
        run.warnings.append(f"{run.source}: {warning}")
    run.record(f"serialize {serialize}", text, "")
    for kind, missing in run.unmatched.items():
        if missing:
            run.warnings.append(f"{run.source}: {kind} path(s) matched nothing: {', '.join(missing)}")
    return Trimmed(value=run.value, text=text, steps=run.steps, warnings=run.warnings, unmatched=run.unmatched)


def trim(payload: Any, *, keep: str | list[str] | None = None, drop: str | list[str] | None = None,
         drop_empty: bool = False, truncate: int | None = None, truncate_unit: str = "chars",
         max_items: int | None = None, serialize: str = "json", encoding: str | None = None) -> Trimmed:
    """Apply the chosen strategies in order (keep, drop, drop empties, cap lists, truncate, serialize),
    counting tokens after each. `payload` is a Payload, a JSON value, or text. Steps measure compact
    JSON except the first (the result as received) and the last serialization; a JSON result that
    did not come compact gets a "compact JSON" step first, so each step shows only its own saving.
    Raises InputError for bad options or a payload nested deeper than MAX_DEPTH with JSON strategies.
    """
    encoding = encoding or DEFAULT_ENCODING
    _check_options(keep, drop, truncate, truncate_unit, max_items, serialize)
    structural = bool(keep or drop or drop_empty or max_items is not None)
    run = _start(payload, encoding, structural, structural or truncate is not None or serialize != "json")
    if run.payload.image_tokens and (structural or truncate is not None):
        run.warnings.append(f"{run.source}: {run.payload.image_tokens} image tokens kept as they are")
    if run.payload.is_json and (structural or truncate is not None):
        run.compact()
        _structural_steps(run, keep, drop, drop_empty, max_items)
    if truncate is not None:
        new, cut, whole = truncate_strings(run.value, truncate, truncate_unit, encoding, json_text=run.payload.is_json)
        run.step(f"truncate {truncate} {truncate_unit}", new, _truncated(cut, whole))
    return _finish(run, serialize)


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
        _add_steps(totals, t.steps)
        for kind, missing in t.unmatched.items():
            never[kind] &= set(missing)
        warnings += [w for w in t.warnings if "matched nothing" not in w]
    for kind, paths in never.items():
        if paths:
            warnings.append(f"{kind} path(s) matched nothing in any result: {', '.join(sorted(paths))}")
    return after, _running(totals), warnings


def _add_steps(totals: dict[str, dict], steps: list[dict]) -> None:
    """Add one result's step records to the totals, by step name (a step only some results take, such
    as "compact JSON", goes where those results take it)."""
    names, previous = list(totals), None
    for s in steps:
        if s["step"] not in totals:
            at = names.index(previous) + 1 if previous is not None else 0
            names.insert(at, s["step"])
            totals[s["step"]] = {"step": s["step"], "tokens": 0, "saved": 0}
        totals[s["step"]]["saved"] += s["saved"]
        if s is steps[0]:
            totals[s["step"]]["tokens"] += s["tokens"]
        previous = s["step"]
    ordered = {n: totals.pop(n) for n in names}
    totals.update(ordered)


def _running(totals: dict[str, dict]) -> list[dict]:
    """The summed steps with each step's tokens as the total after it (what the first step counted,
    less every saving so far), so that the rows read as one recipe applied to all results."""
    rows, tokens = [], 0
    for i, s in enumerate(totals.values()):
        tokens = s["tokens"] if i == 0 else tokens - s["saved"]
        rows.append({**s, "tokens": tokens})
    return rows
