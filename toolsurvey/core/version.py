"""toolsurvey's version, written in one place: `version` in pyproject.toml.

An installed copy reads it from its distribution's metadata. A copy that runs from a source tree (an
editable install, or the checkout on the path) reads the tree's pyproject.toml instead: an editable
install's metadata keeps the version of the day it was installed.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

DISTRIBUTION = "toolsurvey"
UNKNOWN = "0+unknown"  # neither installed nor in a source tree (e.g. the package folder copied alone)
_PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"  # beside the package, in a checkout


@cache
def version() -> str:
    """The version of this copy of toolsurvey (PEP 440), e.g. '0.7.0'."""
    return _source_tree_version() or _installed_version() or UNKNOWN


def _source_tree_version() -> str | None:
    try:
        project = tomllib.loads(_PYPROJECT.read_text("utf-8")).get("project", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    return project.get("version") if project.get("name") == DISTRIBUTION else None


def _installed_version() -> str | None:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as distribution_version

    try:
        return distribution_version(DISTRIBUTION)
    except PackageNotFoundError:
        return None
