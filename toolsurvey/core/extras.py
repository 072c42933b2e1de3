"""Optional parts of toolsurvey: which pip extra brings which package, and the error that names it."""

from __future__ import annotations

import importlib.util

from ..errors import InputError

EXTRA = {"mcp": "discover", "psutil": "discover", "ipywidgets": "lab", "anywidget": "lab",
         "duckdb": "traces", "dask": "dask", "distributed": "dask", "kaleido": "static",
         "jsonschema": "eval"}


class MissingExtra(InputError, ImportError):
    """An optional package is not installed; the message names the pip extra that installs it."""


def require(*modules: str, purpose: str) -> None:
    """Raise MissingExtra unless every one of `modules` can be imported."""
    missing = [m for m in modules if _absent(m)]
    if missing:
        extras = ",".join(dict.fromkeys(EXTRA[m.partition(".")[0]] for m in missing))
        raise MissingExtra(f"{purpose} needs {' and '.join(missing)}, which {'is' if len(missing) == 1 else 'are'} "
                           f"not installed; install it with: pip install 'toolsurvey[{extras}]'")


def absent(module: str) -> bool:
    """Whether `module` cannot be imported (not installed)."""
    return _absent(module)


def _absent(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is None
    except ModuleNotFoundError:  # a submodule whose package is missing
        return True
