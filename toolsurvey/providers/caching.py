"""Each provider's documented prompt-caching rules (assumptions/providers.toml [caching], with sources)."""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from . import anthropic
from .constants import provider_constants
from .prices import Price


def _section(name: str, provider: str) -> dict[str, Any]:
    return dict(provider_constants().get(name, {}).get(provider, {}))


def caching_rules(provider: str) -> dict[str, Any]:
    """The provider's caching rules (auto mode, opt-in, explicit caches, multipliers, source); {} if unknown."""
    return _section("caching", provider)


def resolve_caching(mode: str, provider: str) -> str:
    """The caching mode a run uses: "auto" becomes the provider's default behaviour ("none" for a
    provider toolsurvey has no rules for); "explicit" needs a provider with explicit caches.
    Raises InputError for "explicit" elsewhere."""
    rules = caching_rules(provider)
    if mode == "auto":
        return str(rules.get("auto", "none"))
    if mode == "explicit" and not rules.get("explicit"):
        with_explicit = sorted(p for p in _all("caching") if _section("caching", p).get("explicit"))
        raise InputError(f"caching 'explicit' (a stored cache with a storage price) is documented only for "
                         f"{', '.join(with_explicit)}; {provider or 'this model'!s} caches with 'prefix' or "
                         "'incremental'")
    return mode


def cache_lifetimes() -> dict[str, float]:
    """Seconds an unread cache entry lives, per cache_ttl ("5m", "1h"): Anthropic's documented
    lifetimes, which the session model applies to every provider's cache."""
    return {ttl: float(s) for ttl, s in caching_rules(anthropic.NAME)["lifetimes"].items()}


def caching_is_a_lever(provider: str) -> bool:
    """Whether turning caching on is something the user must do: False where it is automatic;
    True for a provider without rules (its price rows say what caching costs)."""
    return bool(caching_rules(provider).get("opt_in", True))


def _all(name: str) -> list[str]:
    return list(provider_constants().get(name, {}))


def cache_write_price(price: Price, cache_ttl: str, model: str) -> float:
    """The price per million tokens written to the cache for the scenario's cache_ttl: the 5-minute
    price, or the 1-hour one (the price file's, else the provider's documented multiplier on input).
    Raises InputError for a 1-hour cache where the provider documents none."""
    rules = caching_rules(price.provider)
    if cache_ttl == "1h":
        if price.cache_write_1h is not None:
            return price.cache_write_1h
        if "write_1h_multiplier" not in rules:
            raise InputError(f"cache_ttl '1h' is documented only for Anthropic's cache; {model} "
                             f"({price.provider or 'unknown provider'}) has no 1-hour cache price")
        return price.input * float(rules["write_1h_multiplier"])
    if rules.get("write_premium") is False:  # the provider charges cache writes as plain input
        return price.input
    return price.cache_write
