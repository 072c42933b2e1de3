"""Calibration: how far the offline (tiktoken) counts are from one provider's exact counts, by part.

`calibrate` measures, for one provider and model, the ratio of exact to offline tokens for tool
descriptions, parameter descriptions, schemas and the rest, by counting the registry as it is and
with each part removed. The result is a small JSON file; `apply_calibration` scales a footprint
table's part columns by it and marks the table as calibrated, naming the file and its date.
"""

from __future__ import annotations

import json
import math
import os
import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pandas as pd

from ..core.deprecation import deprecated
from ..core.files import read_json
from ..core.registry import Registry
from ..core.writing import atomic_write
from ..errors import InputError
from .counting.cache import Cache
from .counting.client import Client
from .counting.exact import exact_footprint
from .counting.requests import plan
from .footprint import footprint, tools_only
from .parts import PARTS

VERSION = 1
CAL_PARTS = ("description", "param_descriptions", "schema", "rest", "instructions")
# Which calibrated ratio scales each footprint part column ("rest" covers names, JSON structure, ...).
COLUMN_RATIO = {"description": "description", "param_descriptions": "param_descriptions",
                "schema": "schema", "instructions": "instructions", "name": "rest", "annotations": "rest",
                "output_schema": "rest", "other": "rest", "structure": "rest"}


@dataclass(frozen=True, eq=False)
class Calibration:
    """Exact vs offline tokens by part for one provider and model (`calibrate`), or read from the
    JSON file `save_calibration` writes (`load_calibration`; `file` names it). `as_dict()` is that
    file's layout. Two are equal when every field is (it is hashable: a cache key)."""

    provider: str
    model: str
    date: str
    encoding: str
    render: str
    parts: Mapping[str, Mapping[str, Any]]        # part -> offline, exact, ratio
    tools: Mapping[str, Any]                      # all tools: offline, exact, ratio
    overhead: Mapping[str, Any] = field(default_factory=dict)  # offline, exact, method
    registry: Mapping[str, Any] = field(default_factory=dict)
    requests: Mapping[str, Any] = field(default_factory=dict)
    per_tool_ratio: Mapping[str, float] = field(default_factory=dict)
    method: str = ""
    file: str = ""  # the file it was read from; "" when just measured

    def _key(self) -> tuple[str, str]:
        return json.dumps(self.as_dict(), sort_keys=True, default=str), self.file

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Calibration) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __str__(self) -> str:
        return self.file or f"a calibration to {self.provider}:{self.model} ({self.date})"

    def as_dict(self) -> dict[str, Any]:
        """The calibration file's layout (without `file`, which is where it is)."""
        d = asdict(self)
        return {"toolsurvey_calibration": VERSION, **{k: d[k] for k in _FILE_ORDER}}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], file: str = "") -> Calibration:
        """A Calibration from the file's layout; raises InputError saying what is missing or wrong."""
        where = f"{file or 'calibration'}: not a toolsurvey calibration file"
        if not isinstance(d, Mapping) or d.get("toolsurvey_calibration") != VERSION:
            raise InputError(f"{where} (expected an object with \"toolsurvey_calibration\": {VERSION}, as written by "
                             f"`toolsurvey calibrate -o FILE`; found {_found(d)})")
        for key in ("provider", "model", "date", "encoding", "render"):
            if not isinstance(d.get(key), str):
                raise InputError(f"{where}: {key!r} should be a string, found {_found(d.get(key))}")
        parts = d.get("parts")
        if not isinstance(parts, dict):
            raise InputError(f"{where}: 'parts' should be an object of part -> {{ratio}}, found {_found(parts)}")
        for name, entry in parts.items():
            r = entry.get("ratio") if isinstance(entry, dict) else "?"
            if r is not None and not (isinstance(r, (int, float)) and math.isfinite(r) and r > 0):
                raise InputError(f"{where}: parts.{name}.ratio should be a positive number or null, found {r!r}")
        tools = d.get("tools")
        if not isinstance(tools, dict) or not isinstance(tools.get("ratio"), (int, float)) or tools["ratio"] <= 0:
            found = _found(tools.get("ratio") if isinstance(tools, dict) else tools)
            raise InputError(f"{where}: tools.ratio should be a positive number, found {found}")
        known = {f.name for f in fields(cls)} - {"file"}
        return cls(**{k: v for k, v in d.items() if k in known}, file=str(d.get("_file", file)))

    # The dict a calibration was before 0.7: read access keeps working for one release.
    def __getitem__(self, key: str) -> Any:
        deprecated(f"calibration[{key!r}]", "the Calibration attribute of that name (file for '_file')")
        if key == "_file":
            return self.file
        if key == "toolsurvey_calibration":
            return VERSION
        if key not in {f.name for f in fields(self)}:
            raise KeyError(key)
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        deprecated(f"calibration.get({key!r})", "the Calibration attribute of that name (file for '_file')")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            try:
                return self[key]
            except KeyError:
                return default


_FILE_ORDER = ("provider", "model", "date", "encoding", "render", "registry", "requests", "parts", "tools",
               "overhead", "per_tool_ratio", "method")  # the file's keys in the order it has always had


def as_calibration(cal: Calibration | Mapping[str, Any]) -> Calibration:
    """A Calibration; a dict of the file's layout (the form before 0.7) is converted, with a warning."""
    if isinstance(cal, Calibration):
        return cal
    deprecated("a calibration dict", "a Calibration (load_calibration, calibrate or Calibration.from_dict)",
               stacklevel=4)
    if not isinstance(cal, Mapping):
        raise InputError(f"expected a Calibration, found {_found(cal)}")
    return Calibration.from_dict({"toolsurvey_calibration": VERSION, **cal}, str(cal.get("_file", "")))


def _strip_param_descriptions(schema: Any) -> Any:
    """The schema without any `"description": "..."` pair (the param_descriptions part)."""
    if isinstance(schema, dict):
        return {k: _strip_param_descriptions(v) for k, v in schema.items()
                if not (k == "description" and isinstance(v, str))}
    if isinstance(schema, list):
        return [_strip_param_descriptions(v) for v in schema]
    return schema


VARIANTS = {
    "no_description": lambda t: replace(t, description=None, raw=None),
    "no_param_descriptions": lambda t: replace(t, input_schema=_strip_param_descriptions(t.input_schema), raw=None),
    "no_schema": lambda t: replace(t, input_schema={"type": "object"}, raw=None),
}


def _ratio(exact: int, offline: int) -> float | None:
    return round(exact / offline, 4) if offline > 0 else None


def calibrate(reg: Registry, target: str, **count_kwargs: Any) -> Calibration:
    """Exact vs offline tokens by part for `PROVIDER:MODEL`, as a Calibration.

    Takes the requests of `exact_footprint` plus one all-tools request per removed part
    (descriptions, parameter descriptions, schemas). Raises InputError as `exact_footprint` does,
    or for a registry with no tools.
    """
    if not len(reg):
        raise InputError("nothing to calibrate: the registry has no tools")
    table = exact_footprint(reg, target, **count_kwargs)
    ex = table.attrs["exact"]
    render = table.attrs["render"]
    offline = _offline(reg, render, ex["model"])
    client = _variant_client(target, count_kwargs)
    exact_whole, offline_tools = _variant_tokens(reg, target, client, ex, render, count_kwargs.get("max_body_bytes"))
    offline_tools = {"as_is": int(tools_only(offline)["tokens"].sum()), **offline_tools}
    exact, off = _part_tokens(table, offline, ex["whole"], exact_whole, offline_tools)
    exact_tools = int(tools_only(table)["tokens"].sum())
    return Calibration(
        provider=ex["provider"], model=ex["model"],
        date=datetime.now(UTC).date().isoformat(),
        encoding=offline.attrs["encoding"], render=render,
        registry={"tools": len(reg), "sources": list(reg.sources)},
        requests={"sent": ex["sent"] + client.stats.sent, "cached": ex["cached"] + client.stats.cached},
        parts={p: {"offline": off[p], "exact": exact[p], "ratio": _ratio(exact[p], off[p])} for p in CAL_PARTS},
        tools={"offline": offline_tools["as_is"], "exact": exact_tools,
               "ratio": _ratio(exact_tools, offline_tools["as_is"])},
        overhead={"offline": int(offline.loc[offline["kind"] == "overhead", "tokens"].sum()),
                  "exact": ex["overhead"], "method": ex["overhead_method"]},
        per_tool_ratio=_per_tool_ratio(table, offline),
        method=("exact counts of the registry as it is and with each part removed (descriptions, "
                "parameter descriptions, schemas); offline counts of the same registries"),
    )


def _offline(reg: Registry, render: str, model: str) -> pd.DataFrame:
    """The offline footprint the exact counts are compared with (the model matters but for json)."""
    return footprint(reg, render=render, model=model if render != "json" else None)


def _variant_client(target: str, count_kwargs: dict) -> Client:
    """A client with the counting options given to `exact_footprint`, for the variants' requests."""
    client_kw = {k: v for k, v in count_kwargs.items()
                 if k not in ("cache_dir", "use_cache", "max_body_bytes", "base")}
    return Client(target, base=count_kwargs.get("base"),
                  cache=Cache(count_kwargs.get("cache_dir"), count_kwargs.get("use_cache", True)), **client_kw)


def _variant_tokens(reg: Registry, target: str, client: Client, ex: dict, render: str,
                    max_body_bytes: int | None) -> tuple[dict[str, int], dict[str, int]]:
    """Exact and offline tool tokens of each variant (the registry with one part removed)."""
    exact_whole: dict[str, int] = {}
    offline_tools: dict[str, int] = {}
    for name, change in VARIANTS.items():
        variant = reg.map(change)
        p = plan(variant, target, max_body_bytes=max_body_bytes)
        counts = client.count(p.chunks)
        if any(not isinstance(c, int) for c in counts):
            raise InputError(f"{p.provider.counting.name} refused a {name} request for its size; "
                             "pass a smaller max_body_bytes to split it")
        exact_whole[name] = sum(c - ex["baseline"] for c in counts) - (len(counts) - 1) * ex["overhead"]
        offline_tools[name] = int(tools_only(_offline(variant, render, ex["model"]))["tokens"].sum())
    return exact_whole, offline_tools


def _part_tokens(table: pd.DataFrame, offline: pd.DataFrame, whole: int, exact_whole: dict[str, int],
                 offline_tools: dict[str, int]) -> tuple[dict[str, int], dict[str, int]]:
    """(exact, offline) tokens of each CAL_PARTS part: what removing it takes away, the rest of the
    tools' tokens, and the instructions."""
    exact = {
        "description": whole - exact_whole["no_description"],
        "param_descriptions": whole - exact_whole["no_param_descriptions"],
        "schema": exact_whole["no_param_descriptions"] - exact_whole["no_schema"],
    }
    off = {
        "description": offline_tools["as_is"] - offline_tools["no_description"],
        "param_descriptions": offline_tools["as_is"] - offline_tools["no_param_descriptions"],
        "schema": offline_tools["no_param_descriptions"] - offline_tools["no_schema"],
    }
    exact["rest"] = int(tools_only(table)["tokens"].sum()) - sum(exact.values())
    off["rest"] = offline_tools["as_is"] - sum(off.values())
    exact["instructions"] = int(table.loc[table["kind"] == "instructions", "tokens"].sum())
    off["instructions"] = int(offline.loc[offline["kind"] == "instructions", "tokens"].sum())
    return exact, off


def _per_tool_ratio(table: pd.DataFrame, offline: pd.DataFrame) -> dict[str, float]:
    """Quantiles of each tool's exact / offline ratio."""
    per_tool = (tools_only(table)["tokens"].to_numpy() / np.maximum(tools_only(offline)["tokens"].to_numpy(), 1))
    q = np.quantile(per_tool, [0, 0.1, 0.5, 0.9, 1]) if len(per_tool) else [math.nan] * 5
    return dict(zip(("min", "p10", "median", "p90", "max"), (round(float(x), 4) for x in q), strict=True))


def save_calibration(cal: Calibration | Mapping[str, Any], path: str) -> None:
    """Write a calibration as JSON (atomically); raises InputError if the file cannot be written."""
    data = as_calibration(cal).as_dict()
    try:
        atomic_write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    except OSError as e:
        raise InputError(f"cannot write {path}: {e.strerror}") from None


def load_calibration(path: str | os.PathLike) -> Calibration:
    """Read and check a calibration file; raises InputError saying what is missing or wrong."""
    return Calibration.from_dict(read_json(path), os.fspath(path))


def _found(v: Any) -> str:
    return f"{type(v).__name__} {json.dumps(v)[:40]}" if v is not None else "nothing"


def apply_calibration(table: pd.DataFrame, cal: Calibration | Mapping[str, Any]) -> pd.DataFrame:
    """The footprint table with each part column scaled by the calibrated ratio for that part.

    The provider overhead row takes the exact overhead when the table uses the calibration's
    rendering. `attrs["calibrated"]` names the provider, model, file and date. Raises InputError
    for a table of exact counts, an already calibrated table, or a different encoding.
    """
    cal = as_calibration(cal)
    a = table.attrs
    if a.get("exact"):
        raise InputError("this table already has exact counts; a calibration applies to offline counts only")
    if a.get("calibrated"):
        raise InputError(f"this table is already calibrated with {a['calibrated']['file']}")
    if a.get("encoding") != cal.encoding:
        raise InputError(f"the calibration in {cal.file or 'this calibration'} was made against "
                         f"{cal.encoding} counts, but this table uses {a.get('encoding')}; "
                         f"measure with --encoding {cal.encoding}")
    default = cal.tools["ratio"]
    ratios = {name: (cal.parts.get(key) or {}).get("ratio") or default for name, key in COLUMN_RATIO.items()}
    out = table.copy()
    for col in PARTS:
        if col in ratios:
            out[col] = np.rint(out[col].to_numpy() * ratios[col]).astype("int64")
    same_render = a.get("render") == cal.render
    is_over = out["kind"] == "overhead"
    if same_render and is_over.any():
        out.loc[is_over, "overhead"] = int(cal.overhead["exact"])
    out["tokens"] = out[list(PARTS)].sum(axis=1).astype("int64")
    src = cal.file or "a calibration"
    note = (f"; calibrated to {cal.provider}:{cal.model} with {src} ({cal.date}; "
            f"tools x{default:.3f} overall)")
    if not same_render:
        note += f"; the calibration was made with the {cal.render} rendering, this table uses {a.get('render')}"
    out.attrs = {**a, "method": a.get("method", "") + note,
                 "calibrated": {"provider": cal.provider, "model": cal.model, "file": src,
                                "date": cal.date, "ratios": ratios}}
    return out


def calibration_table(cal: Calibration | Mapping[str, Any]) -> pd.DataFrame:
    """One row per part: offline tokens, exact tokens and their ratio, for display."""
    cal = as_calibration(cal)
    rows = [{"part": p, **{k: e.get(k) for k in ("offline", "exact", "ratio")}}
            for p, e in cal.parts.items() if e.get("offline") or e.get("exact")]
    rows.append({"part": "all tools", **{k: cal.tools[k] for k in ("offline", "exact", "ratio")}})
    o = cal.overhead
    rows.append({"part": "overhead", "offline": o["offline"], "exact": o["exact"], "ratio": _ratio(o["exact"], o["offline"])})
    return pd.DataFrame(rows, columns=["part", "offline", "exact", "ratio"])

