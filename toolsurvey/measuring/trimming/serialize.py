"""Serializations of a trimmed value: compact or pretty JSON, CSV or a Markdown table of records."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from ...core import jsontree as _jsontree
from ...core.choices import SERIALIZATIONS
from ...errors import InputError
from .steps import Omitted


def check_serialization(how: str) -> None:
    """Raises InputError for a serialization toolsurvey does not know."""
    if how not in SERIALIZATIONS:
        raise InputError(f"unknown serialization {how!r}; expected one of: {', '.join(SERIALIZATIONS)}")


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
    check_serialization(how)
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
