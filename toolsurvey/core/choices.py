"""Names the command line offers as choices, in a module with no heavy imports.

Parsing arguments must not import pandas, numpy or tiktoken (`toolsurvey --help` stays fast), so the
modules that own these names import them from here.
"""

# The audit's severities, in rising order. `suspicious` (review it) sits below error so that
# `--fail-on error` fails on errors and poisoning, never on text a person only has to read.
SEVERITIES = ("info", "warning", "suspicious", "error", "poisoning")
STRATEGIES = ("all", "fixed", "phases", "retrieval", "tool_search")
CACHING = ("auto", "none", "prefix", "incremental", "explicit")
CACHE_TTLS = ("5m", "1h")
SERIALIZATIONS = ("json", "pretty", "csv", "markdown")
DEFAULT_CAP = 25_000  # Claude Code's default cap on one tool response (Anthropic Engineering, “Writing tools for agents”)
TRACE_FORMATS = ("claude-code", "otel", "provider-log")
TRACE_BY = ("session", "model", "day", "tool")
TRACE_ENGINES = ("auto", "python", "duckdb", "dask")
