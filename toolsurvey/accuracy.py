"""The accuracy assumption: wrong-tool rate and task success as a function of visible tools."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from .errors import InputError

OUTSIDE_RULES = ("clamp", "extrapolate")


@dataclass(frozen=True)
class AccuracyCurve:
    """Measured (visible tools, wrong-call rate, task success) points, interpolated linearly."""

    visible: tuple[float, ...]
    wrong: tuple[float, ...]
    success: tuple[float, ...]
    source: str = ""
    as_of: str = ""
    outside: str = "clamp"

    def __post_init__(self):
        n = len(self.visible)
        if n < 2 or len(self.wrong) != n or len(self.success) != n:
            raise InputError(f"an accuracy curve needs at least two points with visible, wrong and success; found {n}")
        if any(b <= a for a, b in zip(self.visible, self.visible[1:], strict=False)):
            raise InputError(f"accuracy curve points must have increasing visible counts, found {list(self.visible)}")
        for name, vals in (("wrong", self.wrong), ("success", self.success)):
            if any(not 0 <= v <= 1 for v in vals):
                raise InputError(f"accuracy curve {name} rates must be between 0 and 1, found {list(vals)}")
        if any(s <= 0 for s in self.success):
            raise InputError("accuracy curve success rates must be above 0 (cost per completed task divides by it)")
        if self.outside not in OUTSIDE_RULES:
            raise InputError(f"accuracy curve outside rule {self.outside!r}; expected one of {', '.join(OUTSIDE_RULES)}")

    def _at(self, ys: tuple[float, ...], visible) -> np.ndarray:
        x = np.asarray(visible, dtype=float)
        xs, y = np.asarray(self.visible, dtype=float), np.asarray(ys, dtype=float)
        out = np.interp(x, xs, y)  # np.interp clamps outside the range
        if self.outside == "extrapolate":
            lo = y[0] + (x - xs[0]) * (y[1] - y[0]) / (xs[1] - xs[0])
            hi = y[-1] + (x - xs[-1]) * (y[-1] - y[-2]) / (xs[-1] - xs[-2])
            out = np.clip(np.where(x < xs[0], lo, np.where(x > xs[-1], hi, out)), 0.0, 1.0)
        return out

    def wrong_rate(self, visible) -> np.ndarray:
        """Share of tool calls that pick a wrong tool with `visible` tools in view."""
        return self._at(self.wrong, visible)

    def success_rate(self, visible) -> np.ndarray:
        """Share of tasks completed with `visible` tools in view (kept above zero)."""
        return np.maximum(self._at(self.success, visible), 1e-9)

    def as_dict(self) -> dict[str, Any]:
        return {"points": [{"visible": v, "wrong": w, "success": s}
                           for v, w, s in zip(self.visible, self.wrong, self.success, strict=True)],
                "interpolation": "linear", "outside": self.outside, "source": self.source, "as_of": self.as_of}


def curve_from_mapping(doc: Mapping[str, Any], origin: str) -> AccuracyCurve:
    """An AccuracyCurve from the accuracy.toml layout; raises InputError for a malformed one."""
    points = doc.get("points")
    if not isinstance(points, list) or not all(isinstance(p, dict) for p in points):
        raise InputError(f"{origin}: expected [[points]] tables with visible, wrong and success")
    for p in points:
        missing = [k for k in ("visible", "wrong", "success") if not isinstance(p.get(k), (int, float))]
        if missing:
            raise InputError(f"{origin}: a point misses numeric {', '.join(missing)}: {p}")
    if doc.get("interpolation", "linear") != "linear":
        raise InputError(f"{origin}: interpolation {doc['interpolation']!r} is not supported; expected 'linear'")
    pts = sorted(points, key=lambda p: p["visible"])
    return AccuracyCurve(tuple(float(p["visible"]) for p in pts), tuple(float(p["wrong"]) for p in pts),
                         tuple(float(p["success"]) for p in pts), source=str(doc.get("source", origin)),
                         as_of=str(doc.get("as_of", "")), outside=str(doc.get("outside", "clamp")))


def load_accuracy(path: str | os.PathLike | None = None) -> AccuracyCurve:
    """The bundled curve (seed 001), or the one in a TOML file of the same layout.

    Raises InputError for an unreadable or malformed file.
    """
    if path is None:
        text = resources.files("toolsurvey").joinpath("assumptions/accuracy.toml").read_text("utf-8")
        origin = "toolsurvey/assumptions/accuracy.toml"
    else:
        origin = os.fspath(path)
        try:
            text = Path(path).read_text("utf-8")
        except OSError as e:
            raise InputError(f"cannot read accuracy curve {origin}: {e.strerror}") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{origin}: not valid TOML ({e})") from None
    return curve_from_mapping(doc, origin)
