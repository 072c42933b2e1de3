"""An eval read back from a file, for the commands and notebooks that take `--eval FILE`: what
`toolsurvey eval --format json` wrote (a plain eval or a `--visible` sweep), or its `--log` JSON
Lines (one record per answer). Every figure is counted again from the records, so a stored eval and
the run that wrote it print the same numbers."""

from __future__ import annotations

import os
from typing import Any

from ...core.files import parse_json, read_text
from ...errors import InputError
from .descriptions import DescriptionEval
from .descriptions import parse_variants as _variants
from .request import Estimate
from .result import SelectionEval
from .sweep import SweepEval

# The fields every figure is counted from (metrics.summary, confusion, per_tool, the sweep's sizes).
NEEDED = ("id", "gold", "outcome", "expected", "called", "args_valid", "args_match", "tools_offered")
EXPECTED = ("the JSON of `toolsurvey eval --format json`, or the JSON Lines of its --log "
            "(one record per answer, each with " + ", ".join(NEEDED) + ")")


def _records(rows: Any, where: str) -> list[dict]:
    if not isinstance(rows, list) or not rows:
        raise InputError(f"{where}: expected {EXPECTED}, found no answer records")
    for i, r in enumerate(rows, 1):
        missing = [k for k in NEEDED if not isinstance(r, dict) or k not in r]
        if missing:
            raise InputError(f"{where}: record {i} has no {', '.join(missing)}; expected {EXPECTED}")
    return rows


def _order(records: list[dict]) -> list[str]:
    """The registry's tool keys in order: the widest set any request offered (the whole registry in a
    plain eval), then any other tool offered, as first seen."""
    widest = max((r["tools_offered"] for r in records), key=len)
    return list(dict.fromkeys([*widest, *(k for r in records for k in r["tools_offered"])]))


def _estimate(doc: dict | None, records: list[dict]) -> Estimate:
    d = doc if isinstance(doc, dict) else {}
    n = len(records)
    get = lambda k, default=0: d.get(k, default) if isinstance(d.get(k, default), (int, float)) else default  # noqa: E731
    return Estimate(total=int(get("total", n)), requests=int(get("requests", 0)), tools_tokens=int(get("tools_tokens")),
                    input_tokens=int(get("input_tokens")), output_tokens=int(get("output_tokens")),
                    cost=d.get("cost"), cost_cached=d.get("cost_cached"), price=None,
                    method=str(d.get("method", "not recorded in the file")))


def read_eval(path: str | os.PathLike) -> SelectionEval | SweepEval | DescriptionEval:
    """The eval stored at `path`: a SweepEval when the file is a `--visible` sweep (its records carry
    `visible`), a DescriptionEval when it is a `--description-tokens` sweep (they carry
    `description_tokens`), else a SelectionEval. Raises InputError, naming what was expected and what
    was found."""
    where = os.fspath(path)
    text = read_text(path, "eval file", EXPECTED)
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    doc: Any = parse_json(text, where) if len(lines) == 1 or (lines and lines[0][1].strip() == "{") else None
    if isinstance(doc, dict) and "queries" in doc:
        records = _records(doc["queries"], where)
    elif doc is not None and not (isinstance(doc, dict) and "id" in doc):
        what = "a JSON document without \"queries\"" if isinstance(doc, dict) else f"JSON of type {type(doc).__name__}"
        raise InputError(f"{where}: expected {EXPECTED}, found {what}")
    else:
        doc, records = {}, _records([parse_json(line, f"{where} line {n}") for n, line in lines], where)
    models = list(dict.fromkeys(r["model"] for r in records if isinstance(r.get("model"), str)))
    model = doc.get("model") if isinstance(doc.get("model"), str) else (
        models[0] if len(models) == 1 else "a model the file does not name")
    ev = SelectionEval(model=model, api=str(doc.get("api") or "not recorded"), base_url=doc.get("base_url"),
                       records=records, estimate=_estimate(doc.get("estimate"), records),
                       warnings=[w for w in doc.get("warnings") or [] if isinstance(w, str)],
                       order=_order(records), failed=list(doc.get("failed") or []))
    described = [r for r in records if "description_tokens" in r]
    if described:
        return _descriptions(ev, doc, records, described, where)
    sized = [r for r in records if "visible" in r]
    if not sized:
        return ev
    if len(sized) != len(records):
        raise InputError(f"{where}: {len(sized)} of {len(records)} records carry \"visible\"; "
                         "expected one sweep (every record sized) or one plain eval (none)")
    sizes = sorted({r["visible"] for r in records}, key=lambda s: (s == "all", s if s != "all" else 0))
    size = doc.get("registry_size")
    return SweepEval(ev, sizes, str(doc.get("distractors") or "not recorded"), int(doc.get("seed") or 0),
                     int(size) if isinstance(size, int) else len(ev.order))


def as_eval(value: Any) -> SelectionEval | SweepEval | DescriptionEval | None:
    """What the commands and functions that take `eval=` accept, read once: None, an eval already
    read (SelectionEval, SweepEval or DescriptionEval), or the path of an eval file (`read_eval`)."""
    if value is None or isinstance(value, (SelectionEval, SweepEval, DescriptionEval)):
        return value
    if isinstance(value, (str, os.PathLike)):
        return read_eval(value)
    raise InputError(f"expected an eval file's path or an eval (toolsurvey.eval's result), found {type(value).__name__}")


def largest(ev: SelectionEval | SweepEval | DescriptionEval) -> SelectionEval:
    """The plain eval whose picks the audit, the plan and the report show: a catalog-size sweep's
    largest visible set (`all` when it has it: the registry as deployed), a description sweep's
    descriptions as they are (`full`, else its longest variant), each query counted once; else the
    eval itself."""
    if isinstance(ev, SweepEval):
        return ev.at(ev.sizes[-1])
    return ev.at(_as_deployed(ev)) if isinstance(ev, DescriptionEval) else ev


def _as_deployed(ev: DescriptionEval):
    return "full" if "full" in ev.variants else ev.variants[-1]


def picked_from(ev: SelectionEval | SweepEval | DescriptionEval) -> str:
    """How `largest` read the eval, for the outputs that cite it."""
    if isinstance(ev, SweepEval):
        return (f"a catalog-size sweep read at its largest visible set ({ev.sizes[-1]}), "
                f"each query's first answer")
    if isinstance(ev, DescriptionEval):
        return f"a description-length sweep read at {_as_deployed(ev)}, each query's first answer"
    return "each query's first answer"


def _descriptions(ev: SelectionEval, doc: dict, records: list[dict], described: list[dict], where: str) -> DescriptionEval:
    """A description sweep read back: every record carries its variant and the mean tokens it showed."""
    if len(described) != len(records):
        raise InputError(f"{where}: {len(described)} of {len(records)} records carry \"description_tokens\"; "
                         "expected one description sweep (every record) or one plain eval (none)")
    bad = next((i for i, r in enumerate(records, 1)
                if not isinstance(r.get("description_mean_tokens"), (int, float))), None)
    if bad is not None:
        raise InputError(f"{where}: record {bad} has no numeric \"description_mean_tokens\"; expected the "
                         "records of `toolsurvey eval --description-tokens`")
    labels = {r["description_tokens"] for r in records}
    variants = _variants(list(labels))
    if set(variants) != labels:
        raise InputError(f"{where}: description_tokens {sorted(map(str, labels - set(variants)))} found; expected "
                         "whole numbers of at least 1, \"full\" or \"none\"")
    rows = [row for row in doc.get("by_description") or [] if isinstance(row, dict)]
    cuts = {str(row.get("description_tokens")): {"cut": row.get("descriptions_cut"),
                                                 "kept_over": row.get("kept_whole_over_limit")} for row in rows}
    size = doc.get("registry_size")
    return DescriptionEval(ev, variants, str(doc.get("encoding") or "not recorded"),
                           int(size) if isinstance(size, int) else len(ev.order), cuts)
