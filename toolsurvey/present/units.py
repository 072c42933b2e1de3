"""Numbers with their units, decided by a column's name: one formatter set for the CLI tables, the report and
the Jupyter views; no pandas needed."""

from __future__ import annotations

import math
import sys
from typing import Any

PERCENT_COLUMNS = {"share", "success", "wrong_rate", "change_share", "cumulative_share", "%",
                   "hit_at_k", "recall_at_k"}  # a retrieval evaluation's shares of queries
MONEY_UNITS = {"USD", "usd", "$"}


def is_missing(v: Any) -> bool:
    """True for None, NaN and pandas' NA: a value with nothing to show."""
    # pd.NA can only exist once pandas is imported; asking for it otherwise would import pandas.
    na = getattr(sys.modules.get("pandas"), "NA", None)
    return v is None or (na is not None and v is na) or (isinstance(v, float) and math.isnan(v))


def money(v: Any, missing: str = "–") -> str:
    """Dollars, the sign before the $: whole dollars from $100 ($1,234), cents from $1 ($12.35), four
    decimals below ($0.2944, -$0.3700), and $0; `missing` for None or NaN."""
    if is_missing(v):
        return missing
    a = abs(float(v))
    if a == 0:
        return "$0"
    digits = 0 if a >= 100 else 2 if a >= 1 else 4
    return f"{'-' if v < 0 else ''}${a:,.{digits}f}"


def percent(v: Any) -> str:
    return "–" if is_missing(v) else f"{float(v):.1%}"


def points(v: Any) -> str:
    """A difference of two shares: `+1.4 points`."""
    return "–" if is_missing(v) else f"{float(v) * 100:+.1f} points"


def whole(v: Any) -> str:
    """`v` rounded to a whole number, with thousands separators: 12,252."""
    return f"{int(round(float(v))):,}"


def number(v: Any) -> str:
    """Whole numbers with separators; decimals to 1 place below 100 (2 below 1), none above."""
    if is_missing(v):
        return "–"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int) or float(v).is_integer():
        return whole(v)
    a = abs(float(v))
    return f"{float(v):,.0f}" if a >= 100 else f"{float(v):,.1f}" if a >= 1 else f"{float(v):.2f}"


def kind_of(column: str) -> str:
    """How a column's numbers are shown: "money", "percent" or "number"."""
    c = str(column).lower()
    if c.startswith("cost") or c.endswith("_usd") or "_cost" in c or c in ("usd", "saving_per_month"):
        return "money"
    if c in PERCENT_COLUMNS or c.endswith("_share") or c.endswith("_rate"):
        return "percent"
    return "number"


FORMATTERS = {"money": money, "percent": percent, "number": number}


def cell(v: Any, column: str) -> str:
    """One value as text, by its column's kind (text is returned as it is)."""
    if isinstance(v, str):
        return v
    if hasattr(v, "item") and not isinstance(v, str):
        v = v.item()
    if is_missing(v):
        return ""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return FORMATTERS[kind_of(column)](v)
    return str(v)
