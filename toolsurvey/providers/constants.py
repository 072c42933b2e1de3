"""The providers' documented constants (assumptions/providers.toml, each with its source and date):
the tokens their tool formats add, and which rendering each provider's models see."""

from __future__ import annotations

import fnmatch
from functools import cache
from typing import Any

from ..core.assumptions import bundled_toml
from ..errors import InputError

DEFAULT_MODEL = {"openai": "gpt-4o", "anthropic": "claude-sonnet-4-5"}


@cache
def provider_constants() -> dict[str, Any]:
    """The bundled provider constants file (sources and dates inside)."""
    return bundled_toml("providers.toml")


def _match_family(families: dict[str, Any], model: str, provider: str) -> tuple[str, dict]:
    for fam, spec in families.items():
        if any(fnmatch.fnmatchcase(model, pat) for pat in spec["models"]):
            return fam, spec
    known = ", ".join(p for spec in families.values() for p in spec["models"])
    raise InputError(f"no {provider} constants for model {model!r}; known model patterns: {known}. "
                     f"Add a family to providers.toml or pass another --model")


def openai_family(model: str) -> tuple[str, dict]:
    """The cookbook constants that apply to `model`; raises InputError for an unknown model."""
    return _match_family(provider_constants()["openai"]["families"], model, "OpenAI")


def anthropic_family(model: str) -> tuple[str, dict]:
    """The tool-use system prompt sizes that apply to `model`; raises InputError if unknown."""
    return _match_family(provider_constants()["anthropic"]["families"], model, "Anthropic")


PROVIDER_RENDER = {"anthropic": "anthropic", "openai": "openai"}


def rendering_for(render: str, model: str, provider: str) -> tuple[str, str | None]:
    """The footprint rendering and model that a scenario's `render` and `model` measure tools with,
    given the model's provider: "auto" becomes the provider's rendering, and the model applies only
    under its own provider's rendering."""
    if render == "auto":
        render = PROVIDER_RENDER.get(provider, "json")
    return render, model if render in ("openai", "anthropic") and PROVIDER_RENDER.get(provider) == render else None


def fixed_overhead(render: str, model: str | None) -> tuple[float, str]:
    """The per-request tokens a provider adds to any request with tools under `render` (Anthropic's
    tool-use system prompt for tool_choice auto; OpenAI's per-request function constant), and what
    they are; (0, "") for renderings without one. Raises InputError for a model with no constants."""
    if render == "anthropic" and model:
        fam, spec = anthropic_family(model)
        why = f"the {fam} family's tool-use system prompt ({spec['auto']} tokens)"
        if spec.get("assumed"):
            why += f" ({' '.join(spec['assumed'].split())})"
        return float(spec["auto"]), why
    if render == "openai" and model:
        fam, spec = openai_family(model)
        return float(spec["func_end"]), f"OpenAI's per-request function constant ({spec['func_end']} tokens, {fam})"
    return 0.0, ""
