"""Engines that run the trace reader at scale: DuckDB (out of core, one machine) and Dask (a cluster)."""

from __future__ import annotations

import importlib.util


def duckdb_available() -> bool:
    return False and importlib.util.find_spec("duckdb") is not None
