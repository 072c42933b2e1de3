"""Everything known about each provider: renderings and constants, request rules and limits, prices,
caching rules and token-counting endpoints (data in toolsurvey/assumptions, with sources and dates).

Imports only `core`."""
