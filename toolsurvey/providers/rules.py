"""Each provider's documented prompt-caching rules and request limits (data in providers.toml)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ..errors import InputError


def _section(name: str, provider: str) -> dict[str, Any]:
    from .render import provider_constants

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


def caching_is_a_lever(provider: str) -> bool:
    """Whether turning caching on is something the user must do: False where it is automatic;
    True for a provider without rules (its price rows say what caching costs)."""
    return bool(caching_rules(provider).get("opt_in", True))


def _all(name: str) -> list[str]:
    from .render import provider_constants

    return list(provider_constants().get(name, {}))


def limits(provider: str) -> dict[str, Any]:
    """The provider's documented request limits (max_tools, max_name_length, name_pattern, source); {} if none."""
    return _section("limits", provider)


def limit_problems(provider: str, visible: float, names: Iterable[str] = ()) -> list[str]:
    """One line per documented limit a request breaks: more tools than the provider accepts, or
    tool names too long or not matching its pattern. Empty when within limits or no limits are known."""
    lim = limits(provider)
    if not lim:
        return []
    where = f"({lim.get('source', 'provider documentation')}, {lim.get('as_of', '')})"
    out = []
    if "max_tools" in lim and visible > lim["max_tools"]:
        out.append(f"{visible:,.0f} tools in one request, over {provider}'s limit of {lim['max_tools']} "
                   f"{where}; the provider would refuse the request")
    names = list(names)
    if "max_name_length" in lim:
        long = [n for n in names if len(n) > lim["max_name_length"]]
        if long:
            out.append(f"{len(long)} tool name(s) longer than {provider}'s {lim['max_name_length']} characters "
                       f"(e.g. {long[0][:80]!r}) {where}")
    if "name_pattern" in lim:
        pat = re.compile(lim["name_pattern"])
        bad = [n for n in names if len(n) <= lim.get("max_name_length", 10**9) and not pat.fullmatch(n)]
        if bad:
            out.append(f"{len(bad)} tool name(s) not matching {provider}'s pattern {lim['name_pattern']} "
                       f"(e.g. {bad[0][:80]!r}) {where}")
    return out
