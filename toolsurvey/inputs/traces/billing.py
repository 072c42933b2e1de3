"""What each traced request cost: its billed tokens at the model's prices."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

import pandas as pd

from ...errors import InputError
from ...providers.prices import PER_MILLION, load_prices, price_for
from .collector import USAGE_FIELDS

_DATED = re.compile(r"^(?P<base>.+?)-(?:\d{8}|\d{4}-\d{2}-\d{2})$")
HOUR_WRITE_FACTOR = 2.0  # Anthropic: a 1-hour cache write costs 2x the base input price


def price_of(model: str, prices: Mapping):
    """The Price of a model id as written in a trace (a dated id falls back to its undated name)."""
    try:
        return price_for(model, prices)
    except InputError:
        m = _DATED.match(model)
        if m is None:
            raise
        return price_for(m["base"], prices)


def bill(req: pd.DataFrame, prices=None) -> tuple[list[float], list[str]]:
    """Cost in dollars of each request (NaN for an unpriced model), and one warning per unpriced model."""
    table = prices if isinstance(prices, Mapping) else load_prices(prices)
    out = pd.Series(math.nan, index=req.index, dtype=float)
    billed = req[list(USAGE_FIELDS)].sum(axis=1) > 0
    unknown = {}
    for model, g in req.groupby("model", sort=False):
        try:
            p = price_of(str(model), table)
        except InputError:
            if billed[g.index].any():
                unknown[model] = int(billed[g.index].sum())
            continue
        hour = getattr(p, "cache_write_1h", None) or HOUR_WRITE_FACTOR * p.input
        out[g.index] = (g["input_tokens"] * p.input + g["cache_write_5m"] * p.cache_write
                        + g["cache_write_1h"] * hour + g["cache_read"] * p.cache_read
                        + g["output_tokens"] * p.output) / PER_MILLION
    out[~billed] = 0.0  # e.g. Claude Code's "<synthetic>" error messages: nothing billed, whatever the model
    warns = [f"{n:,} request(s) of model {m or '(none)'!r} have no price, so their cost is NaN; add the model "
             "with a price file (--prices) or overrides" for m, n in sorted(unknown.items())]
    return list(out), warns
