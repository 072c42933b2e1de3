"""What each traced request cost: its billed tokens at the model's prices (plain Python, no pandas:
the summary views bill with it too)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from ...errors import InputError
from ...providers.prices import PER_MILLION, LazyPrices, load_prices, price_for
from .collector import AT, USAGE_FIELDS

_DATED = re.compile(r"^(?P<base>.+?)-(?:\d{8}|\d{4}-\d{2}-\d{2})$")
HOUR_WRITE_FACTOR = 2.0  # Anthropic: a 1-hour cache write costs 2x the base input price
_USAGE_AT = [AT[f] for f in USAGE_FIELDS]


def price_of(model: str, prices: Mapping):
    """The Price of a model id as written in a trace (a dated id falls back to its undated name)."""
    try:
        return price_for(model, prices)
    except InputError:
        m = _DATED.match(model)
        if m is None:
            raise
        return price_for(m["base"], prices)


def rates(price) -> tuple[float, ...]:
    """Dollars per token of each usage field (USAGE_FIELDS order) under `price`: a 1-hour cache write
    at the model's 1-hour price, else 2x input (Anthropic's rule)."""
    hour = getattr(price, "cache_write_1h", None) or HOUR_WRITE_FACTOR * price.input
    return tuple(v / PER_MILLION for v in (price.input, price.cache_write, hour, price.cache_read, price.output))


def price_table(prices=None) -> Mapping:
    """The table `prices` names: a Mapping as given, the default table (its rows built when first
    asked for) for None, else a price file's path. Raises InputError for a bad file."""
    return prices if isinstance(prices, Mapping) else LazyPrices() if prices is None else load_prices(prices)


def bill_rows(rows: list[list], prices=None) -> tuple[list[float], list[str]]:
    """Cost in dollars of each request row (REQUEST_FIELDS order; NaN for an unpriced model), and one
    warning per unpriced model. A row with no billed tokens costs 0 whatever its model (e.g. Claude
    Code's "<synthetic>" error messages)."""
    table = None
    per_model: dict[str, tuple[float, ...] | None] = {}
    unknown: dict[str, int] = {}
    out = []
    at_model = AT["model"]
    a, b, c, d, e = _USAGE_AT
    for r in rows:
        model = r[at_model]
        rate = per_model.get(model, False)
        if rate is False:
            if table is None:  # the default table builds only the rows of the models met
                table = price_table(prices)
            try:
                rate = per_model[model] = rates(price_of(str(model), table))
            except InputError:
                rate = per_model[model] = None
        if rate is not None:
            out.append(r[a] * rate[0] + r[b] * rate[1] + r[c] * rate[2] + r[d] * rate[3] + r[e] * rate[4])
        elif r[a] or r[b] or r[c] or r[d] or r[e]:
            unknown[model] = unknown.get(model, 0) + 1
            out.append(math.nan)
        else:
            out.append(0.0)
    warns = [f"{n:,} request(s) of model {m or '(none)'!r} have no price, so their cost is NaN; add the model "
             "with a price file (--prices) or overrides" for m, n in sorted(unknown.items())]
    return out, warns
