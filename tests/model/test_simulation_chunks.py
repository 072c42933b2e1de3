"""Large sweeps run in chunks of rows: the same numbers as in one piece, in bounded memory."""

from __future__ import annotations

import warnings

import pandas as pd
from _memory import run_measured
from conftest import DATA

import toolsurvey as ts
from toolsurvey.model import sweeps


def _sweep():
    reg = ts.load(DATA / "registries" / "ops_assistant.json")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ts.sweep(reg, steps=range(1, 31), visible=[5, 20, 63, 80], strategy=["all", "retrieval"],
                        model=["gpt-4o", "claude-sonnet-4-5"], caching=["none", "prefix"])


def test_chunked_sweep_gives_the_same_table(monkeypatch):
    whole = _sweep()
    monkeypatch.setattr(sweeps, "_CHUNK_CELLS", 500)  # chunks of 7 rows, cutting through groups
    chunked = _sweep()
    assert len(whole) == 30 * 4 * 2 * 2 * 2
    pd.testing.assert_frame_equal(chunked, whole, check_exact=True)
    assert chunked.attrs == whole.attrs


SWEEP = """
import json, sys, warnings
import toolsurvey as ts
reg = ts.load(sys.argv[1])
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    t = ts.sweep(reg, steps=range(1, 101), visible=list(range(1, 51)), system_prompt_tokens=list(range(0, 2000, 50)))
print(len(t))
"""


def test_sweep_of_200k_scenarios_over_100_steps_stays_under_1_5_gb():
    # In one piece, the (rows x requests) arrays alone took 2.7 GB for 108,000 such scenarios.
    stdout, peak_kb = run_measured(SWEEP, DATA / "registries" / "ops_assistant.json")
    assert int(stdout) == 100 * 50 * 40
    assert peak_kb < 1.5 * 2**20, f"peak {peak_kb / 2**10:,.0f} MiB"
