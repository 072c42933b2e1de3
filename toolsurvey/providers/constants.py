"""The providers' documented constants (assumptions/providers.toml, each with its source and date),
read once, and the lookups every provider module shares: its own table, and the model family a
model belongs to."""

from __future__ import annotations

import fnmatch
from functools import cache
from typing import Any

from ..core.assumptions import bundled_toml
from ..errors import InputError


@cache
def provider_constants() -> dict[str, Any]:
    """The bundled provider constants file (sources and dates inside)."""
    return bundled_toml("providers.toml")


def provider_table(provider: str) -> dict[str, Any]:
    """[providers.NAME]: the provider's label, default model, key and base URL variables and its
    counting endpoint; {} for a provider toolsurvey has no table for."""
    return dict(provider_constants().get("providers", {}).get(provider, {}))


def model_family(section: str, model: str, label: str) -> tuple[str, dict]:
    """The family of [SECTION.families] whose model patterns match `model`, and its constants.
    Raises InputError for a model no family lists, naming the known patterns."""
    families = provider_constants()[section]["families"]
    for fam, spec in families.items():
        if any(fnmatch.fnmatchcase(model, pat) for pat in spec["models"]):
            return fam, spec
    known = ", ".join(p for spec in families.values() for p in spec["models"])
    raise InputError(f"no {label} constants for model {model!r}; known model patterns: {known}. "
                     f"Add a family to providers.toml or pass another --model")
