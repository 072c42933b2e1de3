"""Which scenario assumptions a run was given, and one line naming the ones it was not."""

from __future__ import annotations

import os
from dataclasses import fields, replace
from typing import Any

from ..inputs.scenario_files import toml_doc
from .scenario import Scenario, scenario_from_doc

# Scenario and run fields in words a reader knows: the one label table of the report's assumptions and
# of the "Assumed, not given" line.
FIELD_LABELS = {
    "name": "scenario", "model": "model", "steps": "requests per task",
    "strategy": "visible tools", "visible_set": "visible set", "caching": "prompt caching",
    "system_prompt_tokens": "system prompt (tokens)", "user_message_tokens": "user message (tokens)",
    "call_tokens": "tool call (tokens)", "response_tokens": "tool result (tokens)",
    "answer_tokens": "final answer (tokens)", "wrong_call_steps": "extra requests per wrong tool call",
    "tasks_per_day": "tasks per day", "days_per_month": "days per month", "render": "tool rendering",
    "tool_tokens_method": "tool definitions measured as", "caching_used": "prompt caching used",
    "tool_tokens_note": "per-tool counts", "accuracy": "accuracy effect",
    "turns": "user prompts per session", "think_time": "think time before a prompt (s)",
    "cache_1h_share": "share of threads cached for 1 hour", "prefix_hit": "prefix found cached when cold",
    "cache_miss": "cache misses within a turn", "prompt_cache_miss": "cache misses at a prompt",
    "uncached_share": "input not read billed as input, not written",
    "compaction_at": "compaction at (context tokens)", "compaction_tokens": "history after a compaction (tokens)",
    "compaction_output_tokens": "compaction request output (tokens)", "subagents": "subagents",
    "growth_by_step": "result size by place in the thread",
}
# Scenario fields a cost figure depends on.
KEY_ASSUMPTIONS = ("model", "steps", "system_prompt_tokens", "user_message_tokens", "caching", "tasks_per_day",
                   "response_tokens", "call_tokens", "answer_tokens", "strategy", "accuracy")


def with_options(scenario: Any, **options: Any) -> tuple[Any, set[str]]:
    """The scenario (a Scenario, a scenario file path or None for the defaults) with the options
    that are not None applied, and the set of fields that were stated (by the file or an option).

    Raises InputError for a bad scenario file or option value.
    """
    stated: set[str] = set()
    if scenario is None:
        sc = Scenario()
    elif isinstance(scenario, (str, os.PathLike)):
        doc = toml_doc(scenario, "scenario")  # read once: the scenario, and the keys the file gives
        sc, stated = scenario_from_doc(doc, scenario), set(doc)
    else:
        sc = scenario
        default = Scenario()
        stated = {f.name for f in fields(sc) if getattr(sc, f.name) != getattr(default, f.name)}
    given = {k: v for k, v in options.items() if v is not None}
    return (replace(sc, **given) if given else sc), stated | set(given)


def unstated_line(sc: Any, stated: set[str], run: Any = None) -> str:
    """'Assumed, not given: model claude-sonnet-4-5, ...' for the key assumptions not stated; '' if all were."""
    parts = []
    for k in KEY_ASSUMPTIONS:
        if k in stated or (k == "accuracy" and "accuracy_curve" in stated):
            continue
        v = getattr(sc, k)
        v = v.describe() if hasattr(v, "describe") else v
        if k == "caching" and run is not None:
            v = run.assumptions.get("caching_used", v)
        elif k == "accuracy":
            v = "on (the bundled curve)" if v else "off"
        elif isinstance(v, (int, float)) and not isinstance(v, bool) and float(v).is_integer():
            v = f"{int(v):,}"
        parts.append(f"{FIELD_LABELS[k]} {v}")
    return ("Assumed, not given: " + "; ".join(parts) + ". Set them with a scenario file or the options "
            "--model, --tasks-per-day, --caching and --system-prompt-tokens.") if parts else ""
