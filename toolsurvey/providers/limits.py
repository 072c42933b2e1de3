"""Each provider's documented request limits: how many tools a request may carry, and tool names'
length and pattern (assumptions/providers.toml [limits], with sources)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from .constants import provider_constants

SHARED = "shared"  # the tool-name rule OpenAI and Anthropic share, which the audit and discovery check


def tool_name_rule(name: str = SHARED) -> dict[str, Any]:
    """[tool_names.NAME]: a tool-name `pattern` and `max_length` an API accepts."""
    return dict(provider_constants()["tool_names"][name])


def limits(provider: str) -> dict[str, Any]:
    """The provider's documented request limits (max_tools, max_name_length, name_pattern, source); {} if none."""
    lim = dict(provider_constants().get("limits", {}).get(provider, {}))
    if "names" in lim:
        rule = tool_name_rule(lim.pop("names"))
        lim["max_name_length"], lim["name_pattern"] = rule["max_length"], rule["pattern"]
    return lim


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
