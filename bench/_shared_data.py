"""The public evaluation data for the benches: tests/_public_data.py's sets, and a skip line when absent."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import _attack_sets as attack_sets  # noqa: E402
from _public_data import (  # noqa: E402
    SIMILARITY_GITHUB,
    SIMILARITY_PAIRS,
    absent_reason,
    benign_sets,
    load_real_tools,
    shared_path,
    similarity_tools,
)

__all__ = ["SIMILARITY_GITHUB", "attack_sets", "benign_sets", "SIMILARITY_PAIRS", "load_real_tools", "shared_or_skip", "similarity_tools"]


def shared_or_skip(*parts: str, leaving_out: str) -> Path | None:
    """The path under ../shared/data, or None after printing what the bench leaves out without it."""
    path = shared_path(*parts)
    if path is None:
        print(f"skip: {leaving_out}: {absent_reason(*parts)}")
    return path
