"""What each provider accepts in a tool's input schema (assumptions/providers.toml [schemas.*], each
with its source and date): the facts a schema rewrite rule may depend on."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError
from .constants import provider_constants


@dataclass(frozen=True)
class SchemaFacts:
    """One provider's schema facts, with where they come from."""

    provider: str
    facts: dict[str, bool]
    source: str
    url: str
    as_of: str

    def accepts(self, fact: str) -> bool:
        """Whether the provider accepts `fact`; raises InputError for a fact the table does not state."""
        if fact not in self.facts:
            raise InputError(f"providers.toml [schemas.{self.provider}] says nothing about {fact!r}; "
                             f"it states: {', '.join(self.facts)}")
        return self.facts[fact]


def schema_providers() -> list[str]:
    """The providers whose schema facts toolsurvey knows."""
    return list(provider_constants().get("schemas", {}))


def schema_facts(provider: str) -> SchemaFacts:
    """The schema facts of `provider`; raises InputError for an unknown one, listing the known."""
    table = provider_constants().get("schemas", {}).get(provider)
    if table is None:
        raise InputError(f"no schema facts for provider {provider!r}; known: {', '.join(schema_providers())}")
    facts = {k: v for k, v in table.items() if isinstance(v, bool)}
    return SchemaFacts(provider, facts, table["source"], table["url"], table["as_of"])
