"""toolsurvey: what an agent's tool surface costs, and what would change it."""

from __future__ import annotations

import importlib
from typing import Any

# Public name -> module that defines it. Modules are imported on first use, so that
# `import toolsurvey` stays fast and never pulls in pandas' heavier friends, plotly or the MCP SDK.
_EXPORTS = {
    "Tool": "core.registry",
    "Server": "core.registry",
    "Registry": "core.registry",
    "load": "inputs.formats",
    "dump": "inputs.formats",
    "FORMATS": "inputs.formats",
    "count": "core.tokens",
    "get_encoding": "core.tokens",
    "footprint": "measuring.footprint",
    "by_server": "measuring.footprint",
    "by_part": "measuring.footprint",
    "request_total": "measuring.footprint",
    "tools_only": "measuring.footprint",
    "RENDERINGS": "providers.catalog",
    "measure_responses": "measuring.responses",
    "response_stats": "measuring.responses",
    "field_costs": "measuring.responses",
    "rank_fields": "measuring.responses",
    "trim": "measuring.trimming.pipeline",
    "Trimmed": "measuring.trimming.pipeline",
    "Payload": "inputs.payloads",
    "read_payloads": "inputs.payload_sources",
    "Scenario": "model.scenario",
    "Phase": "model.scenario",
    "load_scenario": "model.scenario",
    "simulate": "model.simulate",
    "sweep": "model.sweeps",
    "description_sweep": "model.sweeps",
    "Run": "model.simulate",
    "load_prices": "providers.prices",
    "Price": "providers.prices",
    "load_accuracy": "model.accuracy",
    "AccuracyCurve": "model.accuracy",
    "DescriptionEffect": "model.accuracy",
    "load_description_effect": "model.accuracy",
    "ToolsurveyError": "errors",
    "InputError": "errors",
    "ProviderError": "errors",
    "exact_footprint": "measuring.counting.exact",
    "calibrate": "measuring.calibration",
    "apply_calibration": "measuring.calibration",
    "load_calibration": "measuring.calibration",
    "save_calibration": "measuring.calibration",
    "Calibration": "measuring.calibration",
    "discover": "inputs.discovery.run",
    "diff": "advice.diff",
    "Diff": "advice.diff",
    "check": "advice.budget",  # deprecated: check_budget
    "check_budget": "advice.budget",
    "Breach": "advice.budget",
    "report": "present.report.build",
    "audit": "advice.audit.run",
    "RULES": "advice.audit.run",
    "similar_pairs": "advice.similarity.pairs",
    "load_usage": "inputs.sources",
    "Usage": "inputs.usage",
    "plan": "advice.plan.stages",
    "Plan": "advice.plan.actions",
    "Report": "present.report.document",
    "load_traces": "inputs.traces.load",
    "Traces": "inputs.traces.tables",
    "fit_scenario": "model.fit",
    "compare": "model.compare",
    "retrieval_eval": "measuring.retrieval.evaluation",
    "selection_eval": "measuring.selection.run",
    "read_eval": "measuring.selection.stored",
    "SelectionEval": "measuring.selection.result",
    "selection_sweep": "measuring.selection.sweep",
    "SweepEval": "measuring.selection.sweep",
    "selection_defer": "measuring.selection.defer",
    "deferral_from_eval": "advice.deferral",
    "description_eval": "measuring.selection.descriptions",
    "DescriptionEval": "measuring.selection.descriptions",
    "fit_accuracy_curve": "model.measured_curve",
    "fit_description_effect": "model.measured_description",
    "write_accuracy_curve": "present.curve_file",
    "write_description_effect": "present.curve_file",
    "RetrievalEval": "measuring.retrieval.evaluation",
    "load_queries": "inputs.queries",
    "Query": "inputs.queries",
    "queries_from_traces": "inputs.trace_queries",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name == "__version__":  # read when asked (core/version.py), so `import toolsurvey` reads no file
        from .core.version import version

        return version()
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'toolsurvey' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__ + ["__version__"])
