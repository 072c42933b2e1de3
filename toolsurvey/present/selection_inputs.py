"""What notebook 08 (selection) draws from: eval files read back, a live run, or the recorded eval of
the bundled sample, sorted into the views that need them, with one line saying where they came from.

An eval file (`toolsurvey eval --format json`, or its `--log`) is sorted by what its records carry:
`visible` (a catalog-size sweep), `description_tokens` (a description-length sweep: an int, "full"
or "none"), `defer` (deferred loading: {"mode", "searched", "found_gold", "extra_requests",
"extra_input_tokens"}); a JSON file with "baseline" and "comparison" is an A/B of two registries
(`--baseline`); any other is a plain eval. A description-length sweep is read as the `DescriptionEval`
that counts its own figures; deferred against loaded is counted here from the `defer` fields (each
query's first answer, Wilson 95% intervals)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError, ProviderError
from ..measuring.selection import metrics

# The recorded eval of the bundled sample (data/evals/README.md): written by scripts/record_eval.py.
RECORDED = ("ops_assistant.eval.json", "ops_assistant.sweep.json", "ops_assistant.ab.json")
RECORDED_NOTE = ("the recorded eval of the bundled sample (data/evals/, scripts/record_eval.py): Gemma 3 270M, a "
                 "270M base model never trained to call tools, run by llama-cpp-python on 2 cores. It is not an "
                 "agent's model: its figures show what the views draw, never how well an agent picks tools")
DESCRIPTION_COMMAND = ("toolsurvey eval REGISTRY --queries FILE --model MODEL --description-tokens 10,20,40,80,full "
                       "--format json -o FILE")
DEFER_COMMAND = "toolsurvey eval REGISTRY --queries FILE --model MODEL --defer client --format json -o FILE"


@dataclass
class SelectionInputs:
    """The evals behind notebook 08's views; `origin` says where they came from."""

    origin: str
    plain: Any = None  # a SelectionEval: the confusion heatmap
    sweep: Any = None  # a SweepEval: accuracy against visible tools
    ab: dict | None = None  # {"model", "before", "after" (summaries), "comparison"}: two registries
    described: Any = None  # a DescriptionEval: accuracy against description length
    deferred: list[dict] = field(default_factory=list)  # records carrying defer
    loaded: list[dict] = field(default_factory=list)  # plain records (every tool loaded), for deferred against loaded
    recorded: bool = False


def _doc(path: str) -> dict | None:
    """The file's JSON document when it is one (an eval's --format json), else None (a --log)."""
    try:
        doc = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and "queries" in doc else None


def _ab(doc: dict, ev) -> dict | None:
    base = doc.get("baseline")
    cmp = doc.get("comparison")
    if not isinstance(base, dict) or not isinstance(cmp, dict) or not isinstance(base.get("queries"), list):
        return None
    return {"model": ev.model, "before": metrics.summary(base["queries"]), "after": metrics.summary(ev.records),
            "comparison": cmp}


def read_files(paths: Sequence[str | os.PathLike], origin: str = "") -> SelectionInputs:
    """Each eval file read with `read_eval` (every figure counted again from its records) and sorted
    (module docstring). Raises InputError, naming the file, for one that is not an eval file."""
    from ..measuring.selection.descriptions import DescriptionEval
    from ..measuring.selection.stored import read_eval
    from ..measuring.selection.sweep import SweepEval

    out = SelectionInputs(origin or "eval files: " + ", ".join(os.fspath(p) for p in paths))
    for p in map(os.fspath, paths):
        ev = read_eval(p)
        if isinstance(ev, SweepEval):
            out.sweep = out.sweep or ev
            continue
        if isinstance(ev, DescriptionEval):
            out.described = out.described or ev
            continue
        recs = ev.records
        if any("defer" in r for r in recs):
            out.deferred += [r for r in recs if isinstance(r.get("defer"), dict)]
        plain = [r for r in recs if "defer" not in r]
        doc = _doc(p)
        ab = _ab(doc, ev) if doc else None
        if ab is not None:
            out.ab = out.ab or ab
        if plain and len(plain) == len(recs):
            out.plain = out.plain or ev
            out.loaded = out.loaded or plain
    return out


def recorded(folder: str | os.PathLike) -> SelectionInputs:
    """The recorded eval of the bundled sample in `folder` (data/evals)."""
    paths = [Path(folder) / name for name in RECORDED]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise InputError(f"expected the recorded eval in {os.fspath(folder)}, found no {', '.join(missing)}")
    out = read_files(paths, RECORDED_NOTE)
    out.recorded = True
    return out


def selection_inputs(registry, queries, *, model: str | None = None, base_url: str | None = None,
                     eval_file: Any = None, recorded_dir: str | os.PathLike = "../data/evals",
                     visible: str | None = "5,10,20,all", baseline: str | None = None, max_cost: float = 1.0,
                     **options) -> SelectionInputs:
    """Notebook 08's evals: `eval_file` (a path or a list of them) when given; else a live run of
    `model` (at `base_url`, or the provider's API with its key from the environment) on `registry`
    and `queries`: a plain eval, a `visible` sweep when sizes are given, and an A/B against
    `baseline` when given; else, with no model or no key for it, the recorded eval in `recorded_dir`.
    `options` go to selection_eval (cache_dir, timeout, ...)."""
    if eval_file:
        paths = [eval_file] if isinstance(eval_file, (str, os.PathLike)) else list(eval_file)
        return read_files(paths)
    if not model:
        return recorded(recorded_dir)
    from ..inputs.formats import load
    from ..measuring.selection.run import selection_eval
    from ..measuring.selection.sweep import selection_sweep
    from ..model.selection_compare import compare_evals

    reg = load(registry) if isinstance(registry, (str, os.PathLike)) else registry
    kw = {"base_url": base_url, "max_cost": max_cost, **options}
    try:
        ev = selection_eval(reg, queries, model, **kw)
    except ProviderError as e:
        out = recorded(recorded_dir)
        out.origin = f"no live run ({e}); showing {RECORDED_NOTE}"
        return out
    where = f" at {base_url}" if base_url else ""
    out = SelectionInputs(f"a live run of {model}{where} on {getattr(registry, 'name', None) or registry}",
                          plain=ev, loaded=list(ev.records))
    if visible:
        out.sweep = selection_sweep(reg, queries, model, visible, **kw)
    if baseline:
        old = load(baseline)
        base = selection_eval(old, queries, model, **kw)
        out.ab = {"model": model, "before": metrics.summary(base.records), "after": metrics.summary(ev.records),
                  "comparison": compare_evals(old, base, reg, ev)}
    return out


def _mean(rows: Sequence[dict], key: str) -> float:
    return sum(float(x.get(key) or 0) for x in rows) / len(rows)


def deferred_vs_loaded(deferred: Sequence[dict], loaded: Sequence[dict]) -> list[dict]:
    """One row for every tool loaded (records with no `defer`), then one per defer mode: the queries,
    accuracy, searched and found-gold rates (each count, of, rate, low, high), and the mean extra
    requests and input tokens per query that deferral cost."""
    rows = []
    if loaded:
        s = metrics.summary(loaded)
        rows.append({"setup": "every tool loaded", "queries": s["queries"], "accuracy": s["accuracy"],
                     "searched": None, "found_gold": None, "extra_requests": 0.0, "extra_input_tokens": 0.0})
    modes: dict = {}
    for r in metrics.first_answers(deferred):
        modes.setdefault(str(r["defer"].get("mode", "?")), []).append(r)
    for mode, recs in modes.items():
        s = metrics.summary(recs)
        d = [r["defer"] for r in recs]
        n = len(d)
        need = [x for x, r in zip(d, recs, strict=True) if r["gold"]]
        rows.append({"setup": f"deferred ({mode})", "queries": s["queries"], "accuracy": s["accuracy"],
                     "searched": metrics.rate(sum(bool(x.get("searched")) for x in d), n),
                     "found_gold": metrics.rate(sum(bool(x.get("found_gold")) for x in need), len(need)),
                     "extra_requests": _mean(d, "extra_requests"), "extra_input_tokens": _mean(d, "extra_input_tokens")})
    return rows
