"""toolsurvey: what an agent's tool surface costs, and what would change it."""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# Public name -> module that defines it. Modules are imported on first use, so that
# `import toolsurvey` stays fast and never pulls in pandas' heavier friends, plotly or the MCP SDK.
_EXPORTS = {
    "Tool": "registry",
    "Server": "registry",
    "Registry": "registry",
    "load": "formats",
    "dump": "formats",
    "FORMATS": "formats",
    "count": "tokens",
    "get_encoding": "tokens",
    "footprint": "measure",
    "by_server": "measure",
    "by_part": "measure",
    "request_total": "measure",
    "tools_only": "measure",
    "RENDERINGS": "render",
    "measure_responses": "responses",
    "response_stats": "responses",
    "field_costs": "responses",
    "rank_fields": "responses",
    "trim": "trimming",
    "Trimmed": "trimming",
    "Payload": "payloads",
    "read_payloads": "payloads",
    "Scenario": "scenario",
    "Phase": "scenario",
    "load_scenario": "scenario",
    "simulate": "simulation",
    "sweep": "simulation",
    "description_sweep": "simulation",
    "Run": "simulation",
    "load_prices": "prices",
    "Price": "prices",
    "load_accuracy": "accuracy",
    "AccuracyCurve": "accuracy",
    "DescriptionEffect": "accuracy",
    "load_description_effect": "accuracy",
    "ToolsurveyError": "errors",
    "InputError": "errors",
    "exact_footprint": "counting",
    "calibrate": "calibration",
    "apply_calibration": "calibration",
    "load_calibration": "calibration",
    "save_calibration": "calibration",
    "discover": "discovery",
    "diff": "diffing",
    "Diff": "diffing",
    "check": "budget",
    "Breach": "budget",
    "report": "reporting",
    "audit": "auditing",
    "RULES": "auditing",
    "similar_pairs": "similarity",
    "load_usage": "usage",
    "Usage": "usage",
    "plan": "planning",
    "Plan": "planning",
    "Report": "reporting",
    "load_traces": "traces",
    "Traces": "traces",
    "fit_scenario": "traces.fit",
    "compare": "traces.fit",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'toolsurvey' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
