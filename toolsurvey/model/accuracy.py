"""The accuracy assumption: wrong-tool rate and task success as a function of visible tools."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

import numpy as np

from ..errors import InputError
from ..inputs.scenario_files import curve_doc

OUTSIDE_RULES = ("clamp", "extrapolate")
MAX_WRONG = 0.99  # an extrapolated wrong rate stays below 1 (calls = useful calls / (1 - wrong))


@dataclass(frozen=True)
class AccuracyCurve:
    """Measured (visible tools, wrong-call rate, task success) points, linear between points; below
    the first point the first point's values; above the last, its values ("clamp") or the last
    segment continued ("extrapolate", wrong kept below 1 and success above 0)."""

    visible: tuple[float, ...]
    wrong: tuple[float, ...]
    success: tuple[float, ...]
    source: str = ""
    as_of: str = ""
    outside: str = "clamp"
    file: str = field(default="", compare=False)  # the file it was read from, if any (printed for it)

    def __post_init__(self):
        n = len(self.visible)
        if n < 2 or len(self.wrong) != n or len(self.success) != n:
            raise InputError(f"an accuracy curve needs at least two points with visible, wrong and success; found {n}")
        if any(b <= a for a, b in zip(self.visible, self.visible[1:], strict=False)):
            raise InputError(f"accuracy curve points must have increasing visible counts, found {list(self.visible)}")
        for name, vals in (("wrong", self.wrong), ("success", self.success)):
            if any(not 0 <= v <= 1 for v in vals):
                raise InputError(f"accuracy curve {name} rates must be between 0 and 1, found {list(vals)}")
        if any(w >= 1 for w in self.wrong):
            raise InputError("accuracy curve wrong rates must be below 1 (a task whose every call is wrong never "
                             f"ends), found {list(self.wrong)}")
        if any(s <= 0 for s in self.success):
            raise InputError("accuracy curve success rates must be above 0 (cost per completed task divides by it), "
                             f"found {list(self.success)}")
        if self.outside not in OUTSIDE_RULES:
            raise InputError(f"accuracy curve outside rule {self.outside!r}; expected one of {', '.join(OUTSIDE_RULES)}")

    def _at(self, ys: tuple[float, ...], visible) -> np.ndarray:
        x = np.asarray(visible, dtype=float)
        xs, y = np.asarray(self.visible, dtype=float), np.asarray(ys, dtype=float)
        out = np.interp(x, xs, y)  # linear between points; np.interp clamps outside the range
        if self.outside == "extrapolate":  # above the last point only: below the first, nothing was measured
            hi = y[-1] + (x - xs[-1]) * (y[-1] - y[-2]) / (xs[-1] - xs[-2])
            out = np.where(x > xs[-1], hi, out)
        return out

    def wrong_rate(self, visible) -> np.ndarray:
        """Share of tool calls that pick a wrong tool with `visible` tools in view."""
        return np.clip(self._at(self.wrong, visible), 0.0, MAX_WRONG)

    def success_rate(self, visible) -> np.ndarray:
        """Share of tasks completed with `visible` tools in view (kept above zero)."""
        return np.clip(self._at(self.success, visible), 1e-9, 1.0)

    def scaled(self, wrong: float = 1.0, failure: float = 1.0) -> AccuracyCurve:
        """This curve with every wrong-tool rate times `wrong` and every failure rate (1 - success)
        times `failure`, bounded to [0, 1]; the source says so."""
        return replace(self, wrong=tuple(min(MAX_WRONG, w * wrong) for w in self.wrong),
                       success=tuple(max(1e-9, 1.0 - min(1.0, (1.0 - s) * failure)) for s in self.success),
                       source=f"{self.source}; error rates scaled x{wrong:.3g} (wrong), x{failure:.3g} (failure)")

    def reading(self) -> str:
        """How the curve is read between, below and above its points, in words."""
        lo, hi = f"{self.visible[0]:g}", f"{self.visible[-1]:g}"
        above = (f"the {hi}-tool values" if self.outside == "clamp" else
                 f"the {self.visible[-2]:g}-{hi} line continued (wrong below 1, success above 0)")
        return (f"linear between measured points; below {lo} tools the {lo}-tool values (nothing was "
                f"measured there); above {hi} tools {above}")

    def as_dict(self) -> dict[str, Any]:
        return {"points": [{"visible": v, "wrong": w, "success": s}
                           for v, w, s in zip(self.visible, self.wrong, self.success, strict=True)],
                "interpolation": "linear", "outside": self.outside, "reading": self.reading(),
                "source": self.source, "as_of": self.as_of}


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
    """The bundled curve ('Tool registry design'), or the one in a TOML file of the same layout.

    Raises InputError for an unreadable or malformed file.
    """
    return curve_from_mapping(*curve_doc(path, "accuracy.toml", "accuracy curve"))


@cache
def bundled_curve() -> AccuracyCurve:
    """The bundled curve, read once per process (it is package data: it cannot change under a run)."""
    return load_accuracy()


@dataclass(frozen=True)
class DescriptionEffect:
    """Multipliers on the wrong-tool and failure rates against mean description tokens per tool."""

    tokens: tuple[float, ...]
    wrong: tuple[float, ...]
    failure: tuple[float, ...]
    source: str = ""
    as_of: str = ""

    def __post_init__(self):
        n = len(self.tokens)
        if n < 2 or len(self.wrong) != n or len(self.failure) != n:
            raise InputError(f"a description effect needs at least two points with tokens, wrong and failure; found {n}")
        if any(b <= a for a, b in zip(self.tokens, self.tokens[1:], strict=False)):
            raise InputError(f"description effect points must have increasing tokens, found {list(self.tokens)}")
        if any(m <= 0 for m in self.wrong + self.failure):
            raise InputError(f"description effect multipliers must be above 0, found wrong {list(self.wrong)}, "
                             f"failure {list(self.failure)}")

    def relative(self, tokens, now: float) -> tuple[np.ndarray, np.ndarray]:
        """Multipliers (wrong, failure) for descriptions of `tokens` relative to `now` (clamped outside the points)."""
        at = lambda ys, x: np.interp(np.asarray(x, dtype=float), self.tokens, ys)
        return at(self.wrong, tokens) / at(self.wrong, now), at(self.failure, tokens) / at(self.failure, now)


def load_description_effect(path: str | os.PathLike | None = None) -> DescriptionEffect:
    """The bundled description-length assumption ('Tool registry design'), or one from a TOML file of the same
    layout; raises InputError for an unreadable or malformed file."""
    doc, origin = curve_doc(path, "description_effect.toml", "description effect")
    points = doc.get("points")
    keys = ("tokens", "wrong", "failure")
    if not isinstance(points, list) or not all(
            isinstance(p, dict) and all(isinstance(p.get(k), (int, float)) for k in keys) for p in points):
        raise InputError(f"{origin}: expected [[points]] tables with numeric tokens, wrong and failure")
    pts = sorted(points, key=lambda p: p["tokens"])
    return DescriptionEffect(*(tuple(float(p[k]) for p in pts) for k in keys),
                             source=str(doc.get("source", origin)), as_of=str(doc.get("as_of", "")))
