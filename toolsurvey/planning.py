"""Plan a consolidation: delete unused tools, merge near-duplicates, gate by phase, trim responses."""

from __future__ import annotations

from dataclasses import replace

from .registry import Tool


def merge_tools(tools: list[Tool], name: str | None = None) -> Tool:
    """One tool standing for `tools`: the longest description, the union of their parameters (the
    first definition of a name wins), and only the parameters every tool requires as required.

    This is the merged definition whose tokens the plan and the audit estimate; a real merge is
    written by a person, so the estimate is a floor that keeps every parameter the model needs.
    """
    base = max(tools, key=lambda t: (len(t.description or ""), -tools.index(t)))
    props: dict = {}
    required: set | None = None
    for t in tools:
        s = t.input_schema if isinstance(t.input_schema, dict) else {}
        for k, v in (s.get("properties") or {}).items():
            props.setdefault(k, v)
        req = {r for r in s.get("required") or [] if isinstance(r, str)}
        required = req if required is None else required & req
    schema = {"type": "object", "properties": props}
    if required:
        schema["required"] = [k for k in props if k in required]
    if all(isinstance(t.input_schema, dict) and t.input_schema.get("additionalProperties") is False
           for t in tools):
        schema["additionalProperties"] = False
    return replace(base, name=name or base.name, input_schema=schema, raw=None)
