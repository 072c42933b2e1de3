"""The argument parser and the checked option types: a bad value is one line and exit 2, before any work."""

from __future__ import annotations

import argparse
import math
import sys

# The most requests one simulated task may have, and the most values one swept option may take:
# beyond these a grid stops being an agent task and only exhausts memory (docs/simulation.md).
MAX_STEPS = 1_000
MAX_VALUES = 10_000


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (`toolsurvey CMD: error: ...`) with exit code 2."""

    def error(self, message: str):
        sys.stderr.write(f"{self.prog}: error: {message} (see '{self.prog} --help')\n")
        sys.exit(2)


def _number(text: str, kind):
    try:
        v = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a {'whole ' if kind is int else ''}number, found {text!r}") from None
    if kind is float and not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"expected a finite number, found {text!r}")
    return v


def at_least(low: float, kind=int, high: float | None = None):
    """An argparse type: a number of `kind` in [low, high], else a one-line error."""
    def convert(text: str):
        v = _number(text, kind)
        if v < low or (high is not None and v > high):
            bound = f"from {low:g} to {high:,g}" if high is not None else f"{low:g} or more"
            raise argparse.ArgumentTypeError(f"expected a {'whole ' if kind is int else ''}number {bound}, found {text!r}")
        return v
    convert.__name__ = f"{'whole number' if kind is int else 'number'} >= {low:g}"
    return convert


def above(low: float):
    """An argparse type: a finite float greater than `low`."""
    def convert(text: str):
        v = _number(text, float)
        if v <= low:
            raise argparse.ArgumentTypeError(f"expected a number above {low:g}, found {text!r}")
        return v
    convert.__name__ = f"number > {low:g}"
    return convert


def text(value: str) -> str:
    """An argparse type: a non-empty string."""
    if not value.strip():
        raise argparse.ArgumentTypeError("expected a name, found an empty string")
    return value
