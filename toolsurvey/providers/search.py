"""The providers' documented deferred loading (tool search): which models support each search, how
many tools one search loads, the search tool's own tokens, where loaded definitions enter the context
and what that does to the prompt cache (assumptions/providers.toml [search.*], with sources)."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

from ..errors import InputError
from .constants import provider_constants

CUSTOM = "custom"  # a search of the team's own: no provider rules, the scenario gives search_k


@dataclass(frozen=True)
class SearchRules:
    """One provider search as documented: `name` is what a scenario's `search` field names."""

    name: str
    provider: str
    tool_type: str
    query: str
    results_per_search: int
    search_tool_tokens: float
    min_non_deferred: int
    deferred_visible: str
    loaded_at: str
    cache: str
    models: tuple[str, ...]
    source: str
    url: str
    as_of: str
    tool_name: str = ""  # the search tool's name in a request and in server_tool_use blocks (Anthropic's)
    label: str = ""  # how a lever names it: "Anthropic's tool search (BM25 variant)"
    example_model: str = ""  # the model a lever prices it with when the scenario's own does not support it
    max_results: int | None = None
    max_deferred_tools: int | None = None
    visible_advice: int | None = None
    namespace_advice: int | None = None
    usage_field: str = ""
    searched_fields: str = ""
    note: str = ""
    assumed: str = ""

    def supports(self, model: str) -> bool:
        """Whether the provider documents this search for `model` (a glob match on the model id)."""
        return any(fnmatch.fnmatchcase(model, pat) for pat in self.models)

    def cite(self) -> str:
        """The rules' source and date, for a method line."""
        return f"{self.source}, {self.url} (checked {self.as_of})"


def search_names() -> list[str]:
    """The searches providers.toml documents, plus "custom"."""
    return [*provider_constants().get("search", {}), CUSTOM]


def search_rules(name: str) -> SearchRules:
    """The documented rules of search `name`; raises InputError for an unknown name (or "custom",
    which has none), listing the known ones."""
    table = provider_constants().get("search", {})
    if name not in table:
        raise InputError(f"no documented rules for search {name!r}; expected one of "
                         f"{', '.join(table)} (or 'custom' with search_k given)")
    spec = dict(table[name])
    spec["models"] = tuple(spec.get("models", ()))
    for key in ("note", "assumed"):
        spec[key] = " ".join(str(spec.get(key, "")).split())
    return SearchRules(name=name, **spec)


def searches_for(provider: str) -> list[SearchRules]:
    """The documented searches of `provider` (empty for one without deferred loading)."""
    return [search_rules(n) for n, spec in provider_constants().get("search", {}).items()
            if spec.get("provider") == provider]


def check_model(rules: SearchRules, model: str) -> None:
    """Raise InputError when `model` does not support the search, naming the models that do."""
    if not rules.supports(model):
        raise InputError(f"search {rules.name!r} ({rules.tool_type}) is not documented for model {model!r}; "
                         f"the models that support it match {', '.join(rules.models)} "
                         f"({rules.source.split(';')[0]}, checked {rules.as_of})")
