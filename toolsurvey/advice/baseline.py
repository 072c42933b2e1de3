"""Today's scenario: the one run the report's headline, the plan's "before" and `simulate` share."""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from ..core.registry import Registry
from ..inputs.sources import load_usage
from ..inputs.usage import Usage, resolve
from ..model.scenario import Scenario, load_scenario


def log_result_mean(usage: Any, reg: Registry | None) -> float | None:
    """The mean tool-result tokens of the log's calls to tools of `reg` (every call when `reg` is None,
    average-size mode); None when the log gives no sizes."""
    calls = resolve(usage, reg)[0] if reg is not None else usage.calls.assign(known=True)
    sizes = calls.loc[calls["known"], "response_tokens"].dropna()
    return float(sizes.mean()) if len(sizes) else None


def baseline(reg: Registry | None, scenario: Any = None, usage: Any = None) -> Any:
    """Today's scenario: `scenario` (a Scenario, a scenario file, or None for the defaults) with, when a
    usage log is given (a Usage, a log path or records), the log's mean tool result in place of the
    scenario's. The report's headline, the plan's "before" and `simulate` on it are the same run.

    Raises InputError for a scenario or log that cannot be read.
    """
    if isinstance(scenario, (str, os.PathLike)):
        scenario = load_scenario(scenario)
    sc = scenario or Scenario()
    if usage is None:
        return sc
    if not isinstance(usage, Usage):
        usage = load_usage(usage)
    mean = log_result_mean(usage, reg)
    return sc if mean is None else dataclasses.replace(sc, response_tokens=mean)
