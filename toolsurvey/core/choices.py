"""Names the command line offers as choices, in a module with no heavy imports.

Parsing arguments must not import pandas, numpy or tiktoken (`toolsurvey --help` stays fast), so the
modules that own these names import them from here.
"""

STRATEGIES = ("all", "fixed", "phases", "retrieval", "tool_search")
CACHING = ("auto", "none", "prefix", "incremental", "explicit")
CACHE_TTLS = ("5m", "1h")
SERIALIZATIONS = ("json", "pretty", "csv", "markdown")
DEFAULT_CAP = 25_000  # Claude Code's default cap on one tool response (Anthropic Engineering, “Writing tools for agents”)
DEFAULT_ENCODING = "o200k_base"  # the tokenizer used unless one is named (core.tokens loads it)
TRACE_FORMATS = ("claude-code", "codex", "otel", "provider-log")
# `toolsurvey traces --by`: inputs.traces.views.VIEWS, plus tool (the tool calls)
TRACE_BY = ("session", "day", "week", "month", "block", "model", "project", "tool")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
TRACE_ENGINES = ("auto", "python", "duckdb", "dask")
