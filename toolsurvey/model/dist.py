"""Quantities of a scenario that are fixed, drawn from measured samples or from a parametric
distribution, and the checks scenario values share."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..inputs.scenario_files import samples

DISTS = ("fixed", "samples", "poisson", "normal", "lognormal", "uniform")


@dataclass(frozen=True)
class Dist:
    """A quantity that is fixed, drawn from measured samples, or from a parametric distribution."""

    kind: str = "fixed"
    value: float = 0.0                 # fixed
    values: tuple[float, ...] = ()     # samples
    mean: float = 0.0                  # poisson, normal, lognormal
    sd: float = 0.0                    # normal, lognormal
    low: float = 0.0                   # uniform
    high: float = 0.0                  # uniform

    def __post_init__(self):
        if self.kind not in DISTS:
            raise InputError(f"unknown distribution {self.kind!r}; expected one of {', '.join(DISTS)}")
        if self.kind == "samples" and not self.values:
            raise InputError("a 'samples' distribution needs at least one value")
        if self.kind == "uniform" and self.high < self.low:
            raise InputError(f"uniform distribution needs low <= high, found {self.low} > {self.high}")
        if self.kind in ("normal", "lognormal") and self.sd < 0:
            raise InputError(f"{self.kind} distribution needs sd >= 0, found {self.sd}")

    def expected(self) -> float:
        """The mean used by a deterministic (non-Monte Carlo) run."""
        if self.kind == "fixed":
            return float(self.value)
        if self.kind == "samples":
            return float(np.mean(self.values))
        if self.kind == "uniform":
            return (self.low + self.high) / 2
        return float(self.mean)

    def above(self, x: float) -> float:
        """The probability that the quantity exceeds `x` (e.g. a think time longer than a cache's lifetime)."""
        if self.kind == "fixed":
            return float(self.value > x)
        if self.kind == "samples":
            return float(np.mean(np.asarray(self.values) > x))
        if self.kind == "uniform":
            return 1.0 - float(np.clip((x - self.low) / (self.high - self.low), 0, 1)) if self.high > self.low \
                else float(self.low > x)
        if self.kind == "poisson":  # 1 - P(N <= floor(x)), the terms summed in logs
            if x < 0:
                return 1.0
            k = np.arange(int(np.floor(x)) + 1)
            logs = k * math.log(self.mean) - self.mean - np.array([math.lgamma(i + 1) for i in k]) if self.mean > 0 \
                else np.where(k == 0, 0.0, -np.inf)
            return float(max(0.0, 1.0 - np.exp(logs).sum()))
        if self.kind == "normal":
            return float(self.mean > x) if self.sd == 0 else 0.5 * math.erfc((x - self.mean) / (self.sd * math.sqrt(2)))
        var = math.log1p((self.sd / self.mean) ** 2) if self.mean > 0 else 0.0  # lognormal, as `draw` has it
        if x <= 0:
            return 1.0
        if var == 0:
            return float(self.mean > x)
        mu = math.log(max(self.mean, 1e-12)) - var / 2
        return 0.5 * math.erfc((math.log(x) - mu) / math.sqrt(2 * var))

    def draw(self, rng: np.random.Generator, size) -> np.ndarray:
        """`size` draws as floats (callers round and bound them)."""
        if self.kind == "fixed":
            return np.full(size, float(self.value))
        if self.kind == "samples":
            return rng.choice(np.asarray(self.values, dtype=float), size=size)
        if self.kind == "poisson":
            return rng.poisson(self.mean, size=size).astype(float)
        if self.kind == "normal":
            return rng.normal(self.mean, self.sd, size=size)
        if self.kind == "uniform":
            return rng.uniform(self.low, self.high, size=size)
        # lognormal given the mean and sd of the quantity itself, not of its logarithm
        var = np.log1p((self.sd / self.mean) ** 2) if self.mean > 0 else 0.0
        return rng.lognormal(np.log(max(self.mean, 1e-12)) - var / 2, np.sqrt(var), size=size)

    def describe(self) -> Any:
        """The distribution as a plain value for printing: the number, or its kind and parameters."""
        if self.kind == "fixed":
            return self.value
        if self.kind == "samples":
            return {"samples": len(self.values), "mean": round(self.expected(), 3)}
        return {k: v for k, v in dataclasses.asdict(self).items() if k != "values" and (k == "kind" or v)}



def as_dist(value: Any, name: str, *, base: Path | None = None) -> Dist:
    """A Dist from a number, a list of samples, a Dist, or a table like {dist="poisson", mean=9}."""
    if isinstance(value, Dist):
        return value
    if isinstance(value, bool):
        raise InputError(f"{name} must be a number, a list of samples or a distribution table, found {value!r}")
    if isinstance(value, (int, float, np.integer, np.floating)):
        return Dist("fixed", value=float(value))
    if isinstance(value, (list, tuple, np.ndarray)):
        vals = [float(v) for v in value if isinstance(v, (int, float, np.integer, np.floating))]
        if len(vals) != len(value):
            raise InputError(f"{name}: samples must all be numbers, found {list(value)!r}")
        return Dist("samples", values=tuple(vals))
    if isinstance(value, Mapping):
        d = dict(value)
        if "file" in d:
            return Dist("samples", values=tuple(samples(d.pop("file"), name, base)))
        if "samples" in d:
            return as_dist(d["samples"], name)
        kind = d.pop("dist", d.pop("kind", "fixed"))
        allowed = {f.name for f in fields(Dist)} - {"kind", "values"}
        bad = sorted(set(d) - allowed)
        if bad:
            raise InputError(f"{name}: unknown distribution key(s) {', '.join(bad)}; expected dist and "
                             f"{', '.join(sorted(allowed))}, or samples / file")
        return Dist(kind, **{k: float(v) for k, v in d.items()})
    raise InputError(f"{name} must be a number, a list of samples or a distribution table, found {value!r}")


def nonneg(name: str, v: Any, *, integer: bool = False, positive: bool = False) -> None:
    """Raise InputError unless `v` is a number >= 0 (> 0 with `positive`; whole with `integer`)."""
    ok = not isinstance(v, bool) and isinstance(v, (int, float, np.integer, np.floating)) and v == v
    if ok and integer:
        ok = float(v) == int(v)
    if not ok or v < 0 or (positive and v <= 0):
        kind = "a whole number" if integer else "a number"
        raise InputError(f"{name} must be {kind} {'> 0' if positive else '>= 0'}, found {v!r}")


