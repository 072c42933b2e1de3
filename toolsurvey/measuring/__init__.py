"""Exact measurement: the footprint of tool definitions, exact provider counts, calibration, tool
results and their trimming. Imports `inputs`, `providers` and `core`."""
