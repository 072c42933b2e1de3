"""The tables of providers and renderings every other layer asks: which providers toolsurvey has
rules for (one module each: anthropic, openai, google), the renderings by name (the generic ones
and the providers'), the counting endpoints by the name `--count-with` takes, and the APIs whose
answers and logs carry tool calls. Command-line choices come from here."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import InputError
from . import anthropic, google, openai
from .constants import provider_constants
from .endpoints import Provider, ToolApi, Usage
from .render import JSON, SENT, Rendering

PROVIDERS: dict[str, Provider] = {p.name: p for p in (anthropic.PROVIDER, openai.PROVIDER, google.PROVIDER)}
# The renderings in the order --render lists them: the generic ones, then the providers'.
_RENDERINGS: dict[str, Rendering] = {r.name: r for r in (JSON, SENT, openai.RENDERING, anthropic.RENDERING)}
RENDERINGS: dict[str, str] = {name: r.description for name, r in _RENDERINGS.items()}  # name -> what it is
AUTO = "auto"  # a scenario's rendering: the one of its model's provider
APIS: tuple[ToolApi, ...] = tuple(api for p in PROVIDERS.values() for api in p.apis)


def provider_names() -> list[str]:
    """The providers toolsurvey has rules for (renderings, caching, limits), as price rows name them."""
    return list(PROVIDERS)


def provider(name: str) -> Provider:
    """The provider called `name`; raises InputError listing the known ones."""
    if name not in PROVIDERS:
        raise InputError(f"unknown provider {name!r}; expected one of: {', '.join(PROVIDERS)}")
    return PROVIDERS[name]


def default_model() -> str:
    """The model a scenario prices when it names none: the default model of providers.toml's
    `scenario_provider`."""
    return provider(str(provider_constants()["scenario_provider"])).default_model


def provider_label(name: str | None, unknown: str = "") -> str:
    """How a provider is written in prose ("OpenAI"); `name` itself, else `unknown`, for one
    toolsurvey has no rules for."""
    return PROVIDERS[name].label if name in PROVIDERS else (name or unknown)


def rendering_names() -> tuple[str, ...]:
    """The renderings --render takes."""
    return tuple(_RENDERINGS)


def tool_choices() -> tuple[str, ...]:
    """Every tool_choice value a rendering distinguishes, for --tool-choice."""
    return tuple(dict.fromkeys(c for r in _RENDERINGS.values() for c in r.tool_choices))


def rendering(name: str) -> Rendering:
    """The rendering called `name`; raises InputError listing the known ones."""
    if name not in _RENDERINGS:
        raise InputError(f"unknown rendering {name!r}; expected one of: {', '.join(_RENDERINGS)}")
    return _RENDERINGS[name]


def provider_rendering(provider_name: str) -> Rendering:
    """The rendering a provider's models see: its own, else compact JSON."""
    own = PROVIDERS[provider_name].renderings if provider_name in PROVIDERS else ()
    return own[0] if own else JSON


def depends_on_provider(render: str) -> bool:
    """Whether what `render` counts depends on the model's provider ("auto", or a provider's own)."""
    return render == AUTO or (render in _RENDERINGS and _RENDERINGS[render].provider is not None)


def rendering_provider(render: str | None) -> str | None:
    """The provider whose rendering `render` is, or None for a generic one."""
    return _RENDERINGS[render].provider if render in _RENDERINGS else None


def rendering_for(render: str, model: str, provider_name: str) -> tuple[str, str | None]:
    """The footprint rendering and model that a scenario's `render` and `model` measure tools with,
    given the model's provider: "auto" becomes the provider's rendering, and the model applies only
    under its own provider's rendering."""
    if render == AUTO:
        render = provider_rendering(provider_name).name
    own = rendering_provider(render)
    return render, model if own is not None and own == provider_name else None


# --- counting endpoints -------------------------------------------------------------------------

def counting_names() -> list[str]:
    """PROVIDER in `--count-with PROVIDER:MODEL`."""
    return [p.counting.name for p in PROVIDERS.values() if p.counting]


def parse_target(target: str) -> tuple[Provider, str]:
    """Split `PROVIDER:MODEL` into the provider whose counting endpoint counts and the model;
    raises InputError for an unknown provider or a missing model."""
    name, sep, model = (target or "").partition(":")
    by_name = {p.counting.name: p for p in PROVIDERS.values() if p.counting}
    if name.strip().lower() not in by_name:
        raise InputError(f"unknown provider {name!r} in {target!r}; expected PROVIDER:MODEL "
                         f"with PROVIDER one of: {', '.join(by_name)}")
    model = model.strip()
    if not sep or not model:
        raise InputError(f"no model in {target!r}; expected PROVIDER:MODEL, "
                         f"e.g. anthropic:claude-sonnet-4-5, openai:gpt-5 or gemini:gemini-2.5-flash")
    if any(c.isspace() or c in "/?#" for c in model):
        raise InputError(f"model name {model!r} has a space, '/', '?' or '#'; expected a model id such as gpt-5")
    return by_name[name.strip().lower()], model


# --- answers and logs of the APIs that take tools -----------------------------------------------

def logged_usage(u: dict) -> Usage:
    """USAGE_FIELDS of a logged answer's `usage`, read as the API whose usage it is."""
    return next(api for api in APIS if api.owns_usage(u)).usage(u)


def logged_tool_calls(answer: dict) -> Iterator[tuple[Any, Any, Any]]:
    """(id, name, arguments) of every tool call in an answer of any API that takes tools."""
    for api in APIS:
        yield from api.tool_calls(answer)


def logged_tool_results(request: dict) -> Iterator[tuple[str, Any, bool]]:
    """(call id, content, is_error) of every tool result a logged request sends back."""
    for api in APIS:
        yield from api.tool_results(request)
