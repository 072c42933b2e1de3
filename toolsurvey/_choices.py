"""Names the command line offers as choices, in a module with no heavy imports.

Parsing arguments must not import pandas, numpy or tiktoken (`toolsurvey --help` stays fast), so the
modules that own these names import them from here.
"""

SEVERITIES = ("info", "warning", "error", "security")  # the audit's, in rising order
STRATEGIES = ("all", "fixed", "phases", "retrieval", "tool_search")
CACHING = ("none", "prefix", "incremental")
SERIALIZATIONS = ("json", "pretty", "csv", "markdown")
DEFAULT_CAP = 25_000  # Claude Code's default cap on one tool response (seed 004)
