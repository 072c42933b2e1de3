"""One verdict per answer: what a model's answer to one query did, against the tools the query needs.

Each answer ends in exactly one outcome:
- `right`: every call is to a gold tool;
- `wrong`: a call to an offered tool that is not gold;
- `skip`: no call, when the query needs one;
- `false_call`: a call, when the query needs none (`"gold": []`);
- `invalid`: a call naming a tool that was not offered, arguments that are not a JSON object, or no
  call but text that looks like one. An invalid call is never counted as "no call";
- `no_call`: no call, rightly.

Several calls in one answer (parallel tool calls): the answer is invalid if any call is; right only
when every call is to a gold tool; otherwise wrong (or a false call when no tool should fire), and
the confusion matrix's column is the first call that is not gold. The log keeps every call.

A right answer's arguments are also checked against each called tool's input schema (`args_valid`),
and against the query's expected `args`, matched as a subset (`args_match`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

OUTCOMES = ("right", "wrong", "skip", "false_call", "invalid", "no_call")
NONE = "none"  # the confusion matrix's row and column for "no tool"
INVALID = "invalid"  # the column of an invalid call

# Text that looks like a tool call written out instead of made: a chat template's call tags, a JSON
# object naming a function, or a call written as code. Matched on the answer's text when it has no call.
_CALL_TEXT = re.compile(r"<\s*/?\s*(tool_call|function_call|functioncall|tool_use)\b|<function[=\s>]"
                        r"|\"(name|function|tool|tool_name)\"\s*:\s*\"[^\"]+\"\s*,\s*\"(arguments|parameters|input|args)\"",
                        re.IGNORECASE)


@dataclass(frozen=True)
class Call:
    """One call in an answer: the name the model wrote, the registry key it maps to (None when no
    offered tool has that name), its arguments (a dict when they parsed, else the text as sent)."""

    name: str
    tool: str | None
    arguments: Any
    parsed: bool

    def to_json(self) -> dict:
        return {"name": self.name, "tool": self.tool, "arguments": self.arguments, "arguments_parsed": self.parsed}


@dataclass(frozen=True)
class Verdict:
    outcome: str
    expected: str  # the confusion row: the gold tool called when right, else the first gold tool, or "none"
    called: str  # the confusion column: a tool key, "none" or "invalid"
    args_valid: bool | None  # whether every call's arguments validate against its tool's schema; None: no call
    args_match: bool | None  # whether the expected args are a subset of the call's; None: none expected
    reason: str = ""


def parse_arguments(raw: Any) -> tuple[Any, bool]:
    """A call's arguments as a dict when they are a JSON object (or its text), else the raw value and
    False. Empty text is an empty object (servers send it for a tool without parameters)."""
    if isinstance(raw, dict):
        return raw, True
    if raw is None:
        return {}, True
    if isinstance(raw, str):
        if not raw.strip():
            return {}, True
        try:
            value = json.loads(raw)
        except ValueError:
            return raw, False
        return (value, True) if isinstance(value, dict) else (raw, False)
    return raw, False


def make_call(name: Any, raw_arguments: Any, offered: Mapping[str, str]) -> Call:
    """A Call from an answer's name and arguments; `offered` maps each name sent to its registry key."""
    name = name if isinstance(name, str) else json.dumps(name)
    args, ok = parse_arguments(raw_arguments)
    return Call(name, offered.get(name), args, ok)


def looks_like_call(text: str, names: Sequence[str] = ()) -> bool:
    """Whether answer text looks like a tool call that was written rather than made: call tags, a JSON
    object naming a function, or an offered tool's name followed by "(" or '", "arguments'."""
    if not text:
        return False
    if _CALL_TEXT.search(text):
        return True
    return any(re.search(rf"(?<![\w-]){re.escape(n)}\s*\(", text) for n in names if n)


def subset(expected: Any, got: Any) -> bool:
    """Whether `expected` is contained in `got`: every key of an expected object present with a
    contained value (objects recursively), every other value equal (1 == 1.0; True is not 1)."""
    if isinstance(expected, dict):
        return isinstance(got, dict) and all(k in got and subset(v, got[k]) for k, v in expected.items())
    if isinstance(expected, bool) or isinstance(got, bool):
        return expected is got
    return expected == got


_VALIDATORS: dict[int, tuple[Any, Any]] = {}  # id(schema) -> (schema, its validator or None); the schema
# is kept so that its id is not reused while the entry lives


def _validator(schema: dict):
    from jsonschema import exceptions, validators

    hit = _VALIDATORS.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    try:
        cls = validators.validator_for(schema)
        cls.check_schema(schema)
        v = cls(schema)
    except exceptions.SchemaError:
        v = None
    except Exception:  # a schema jsonschema cannot read
        v = None
    if len(_VALIDATORS) > 10_000:
        _VALIDATORS.clear()
    _VALIDATORS[id(schema)] = (schema, v)
    return v


def schema_valid(arguments: dict, schema: Any) -> bool | None:
    """Whether `arguments` validate against `schema` (jsonschema, the schema's own draft); None when
    the schema itself is not valid, so nothing can be said."""
    if not isinstance(schema, dict):
        return None
    v = _validator(schema)
    if v is None:
        return None
    try:
        return bool(v.is_valid(arguments))
    except Exception:  # a schema jsonschema cannot evaluate (an unresolvable $ref, a bad pattern)
        return None


def _args_valid(calls: Sequence[Call], schemas: Mapping[str, Any]) -> bool | None:
    checks = [schema_valid(c.arguments, schemas.get(c.tool)) for c in calls if c.tool and c.parsed]
    known = [v for v in checks if v is not None]
    return all(known) if known else None


def classify(gold: Sequence[str], calls: Sequence[Call], text: str, schemas: Mapping[str, Any],
             expected_args: Mapping | None = None, names: Sequence[str] = ()) -> Verdict:
    """The verdict on one answer: its `calls` (in order), its `text`, against the query's `gold`
    keys. `schemas` maps each offered key to its input schema; `names` are the names sent, for
    spotting a call written as text."""
    first_gold = gold[0] if gold else NONE
    bad = next((c for c in calls if c.tool is None or not c.parsed), None)
    if bad is not None:
        why = (f"tool {bad.name!r} was not offered" if bad.tool is None
               else f"arguments of {bad.name!r} are not a JSON object")
        return Verdict("invalid", first_gold, INVALID, False if not bad.parsed else None, None, why)
    if not calls:
        if looks_like_call(text, names):
            return Verdict("invalid", first_gold, INVALID, None, None, "text that looks like a call, but no call")
        return Verdict("skip" if gold else "no_call", first_gold, NONE, None, None)
    valid = _args_valid(calls, schemas)
    if not gold:
        return Verdict("false_call", NONE, calls[0].tool, valid, None)
    off = next((c for c in calls if c.tool not in gold), None)
    if off is not None:
        return Verdict("wrong", first_gold, off.tool, valid, None)
    match = None
    if expected_args is not None:
        match = any(subset(dict(expected_args), c.arguments) for c in calls)
    return Verdict("right", calls[0].tool, calls[0].tool, valid, match)
