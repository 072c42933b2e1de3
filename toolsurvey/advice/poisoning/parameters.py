"""Parameters outside a tool's purpose that ask the model about itself: its system prompt or the
conversation (`poisoning`: carried out with every call), its name or its tool list (`suspicious`)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...core.registry import Tool
from ...core.text import quoted
from .intents import Lexicon, first
from .reading import name_as_words, sentences
from .rules import Signal

# What a tool whose own name or first sentence says one of these is about may ask for.
_SCOPE = {
    "param_context": r"conversation|chat|transcript|history|memor|message|prompt|feedback|\blog",
    "param_identity": r"\b(?:llm|ai|assistants?|agents?|models?|bots?|chatbots?)\b",
    "param_tools": r"\btools\b|\bcatalog|\bregistr|\bmcp\b",
}
_FOUND = {
    "param_context": ("poisoning", "exfiltration", "asks for the model's context"),
    "param_identity": ("suspicious", "parameter", "asks for the model's identity"),
    "param_tools": ("suspicious", "parameter", "asks for the model's tool list"),
}


def parameter_signals(tool: Tool, lex: Lexicon) -> Iterator[Signal]:
    """A signal per required (or 'always include') top-level parameter that asks about the model, outside
    the tool's purpose."""
    schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
    props = schema.get("properties")
    if not isinstance(props, dict):
        return
    required = set(schema["required"]) if isinstance(schema.get("required"), list) else set()
    desc = tool.description if isinstance(tool.description, str) else ""
    scope = f"{name_as_words(tool.name)} {next((s for _, s in sentences(desc)), '')}".lower()
    for name, prop in props.items():
        if not isinstance(name, str) or not isinstance(prop, dict):
            continue
        said = " | ".join(v for v in (prop.get("title"), prop.get("description")) if isinstance(v, str))
        if name not in required and not first(lex.param_always, said):
            continue
        named = f"{name_as_words(name)} | {prop.get('title') if isinstance(prop.get('title'), str) else ''}"
        for key in ("param_context", "param_identity", "param_tools"):
            m = first(getattr(lex, key), named) or (first(getattr(lex, key), said) if key == "param_identity" else None)
            if m and not re.search(_SCOPE[key], scope):
                level, kind, what = _FOUND[key]
                yield Signal(level, kind, f"inputSchema/properties/{name}",
                             f"{what} in the required parameter {quoted(name, 60)} ({quoted(m.group(0), 60)}), "
                             f"outside the tool's purpose")
                break
