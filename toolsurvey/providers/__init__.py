"""Everything known about each provider: one module per provider (anthropic, openai, google: its
renderings, the wire shapes of its APIs and its counting endpoint), the generic renderings, request
rules and limits, prices, caching rules, and `catalog`, the table of them the other layers ask (data
in toolsurvey/assumptions/providers.toml, with sources and dates; no provider's name is written
elsewhere but in the tool-file formats).

Imports only `core`."""
