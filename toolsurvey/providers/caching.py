"""Each provider's documented prompt-caching rules (assumptions/providers.toml [caching], with sources)."""

from __future__ import annotations

import fnmatch
from typing import Any

from ..errors import InputError
from . import anthropic
from .constants import provider_constants
from .prices import Price


def _section(name: str, provider: str) -> dict[str, Any]:
    return dict(provider_constants().get(name, {}).get(provider, {}))


def caching_rules(provider: str, model: str | None = None) -> dict[str, Any]:
    """The provider's caching rules (auto mode, opt-in, explicit caches, multipliers, lifetimes,
    source), with those of the first of its `families` whose globs match `model` over them (its
    source too); {} if the provider is unknown. The families themselves are left out."""
    rules = _section("caching", provider)
    families = rules.pop("families", {})
    if model is not None:
        for spec in families.values():
            if any(fnmatch.fnmatchcase(model, pat) for pat in spec.get("models", ())):
                rules.update({k: v for k, v in spec.items() if k != "models"})
                break
    return rules


def cache_lifetimes(provider: str, model: str | None = None) -> dict[str, float]:
    """Seconds a cache entry lives unused, per cache_ttl: "5m", the provider's default retention, and
    "1h", its longer one, under its rules for `model`. A retention the rules leave out lasts as the
    default one; a provider that documents none (Google's implicit cache, or one toolsurvey has no rules
    for) is assumed to keep Anthropic's."""
    given = caching_rules(provider, model).get("lifetimes") or caching_rules(anthropic.NAME)["lifetimes"]
    default = float(given["5m"])
    return {"5m": default, "1h": float(given.get("1h", default))}


def drops_earlier_reasoning(provider: str, model: str) -> bool:
    """Whether `model` strips the reasoning of earlier turns from its prompt at the user's next prompt
    (its rules' `reasoning_dropped_at_prompt` globs), so that a new prompt's request can read from the
    cache only the context the turn before it started from."""
    globs = caching_rules(provider, model).get("reasoning_dropped_at_prompt") or ()
    return any(fnmatch.fnmatchcase(model, pat) for pat in globs)


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


def caching_is_a_lever(provider: str) -> bool:
    """Whether turning caching on is something the user must do: False where it is automatic;
    True for a provider without rules (its price rows say what caching costs)."""
    return bool(caching_rules(provider).get("opt_in", True))


def _all(name: str) -> list[str]:
    return list(provider_constants().get(name, {}))


def cache_write_price(price: Price, cache_ttl: str, model: str) -> float:
    """The price per million tokens written to the cache for the scenario's cache_ttl: the 5-minute
    price (the input price where the provider's rules for the model bill writes as input), or the 1-hour
    one (the price file's, else the provider's documented multiplier on input).
    Raises InputError for a 1-hour cache where the provider documents no price for one."""
    rules = caching_rules(price.provider, price.model or model)
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
