"""Exact token counts from the providers' counting endpoints, attributed to each tool.

The endpoints only count whole requests, so a registry of n tools is counted as: the request
with no tools (the baseline), the request with all tools (split in parts when too large), each
tool alone, and each server's instructions alone (`requests`). `attribution` turns those counts
into per-tool figures that add up exactly to the whole request, with the fixed tool-use overhead as
its own line; `exact` builds the footprint table. Network I/O lives in `client`, counts already
obtained in `cache`; everything else here is pure.
"""
