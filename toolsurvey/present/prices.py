"""How a model's price reads in one line: dollars per million tokens, the context window, and
where each figure came from (its source and date)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_FIELDS = (("input", "input"), ("output", "output"), ("cache_write", "cache write"),
           ("cache_write_1h", "1-hour cache write"), ("cache_read", "cache read"),
           ("cache_storage", "cache storage per hour"))


def per_million(v: float) -> str:
    """$3.00, $0.30, $0.075: cents unless the price has finer digits."""
    shown = f"{v:,.2f}"
    return f"${shown}" if float(shown.replace(",", "")) == v else f"${v:,g}"


def price_line(price: Mapping[str, Any]) -> str:
    """`claude-sonnet-4-5 (anthropic), US dollars per million tokens: input $3.00, output $15.00, ...;
    context window 200,000 tokens; from LiteLLM 1.110.2 snapshot (2026-11-30)` (a Price.as_dict())."""
    figures = [f"{label} {per_million(price[f])}" for f, label in _FIELDS if price.get(f) is not None]
    line = (f"{price['model']}" + (f" ({price['provider']})" if price.get("provider") else "")
            + f", US dollars per million tokens: {', '.join(figures)}; "
            + f"context window {price['context_window']:,} tokens")
    origins: dict[str, list[str]] = {}
    for f, origin in (price.get("origins") or {}).items():
        origins.setdefault(origin, []).append(f.replace("_", " "))
    if len(origins) == 1:
        line += f"; from {next(iter(origins))}"
    elif origins:
        line += "; from " + "; ".join(f"{o} ({', '.join(fs)})" for o, fs in origins.items())
    else:
        line += f"; from {price.get('source', 'an unnamed source')}" + (f" ({price['as_of']})" if price.get("as_of") else "")
    return line + (f"; note: {price['note']}" if price.get("note") else "")
