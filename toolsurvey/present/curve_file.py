"""A measured accuracy curve as a file: `toolsurvey eval --visible ... --fit FILE` and
`write_accuracy_curve` write it in accuracy.toml's layout (model.measured_curve fits it), so that
`load_accuracy`, `Scenario(accuracy_curve=FILE)`, `simulate`, `plan` and `report` read it as they read
the bundled one."""

from __future__ import annotations

import os
from collections.abc import Sequence

import tomlkit

from ..core.writing import atomic_write
from ..inputs.queries import file_digests
from ..measuring.selection.sweep import SweepEval
from ..model.accuracy import AccuracyCurve, load_accuracy
from ..model.measured_curve import fit_accuracy_curve


def curve_toml(doc: dict) -> str:
    """A fitted curve's document as TOML, its two rules in a comment at the top."""
    d = tomlkit.document()
    d.add(tomlkit.comment("An accuracy curve measured with `toolsurvey eval --visible ... --fit` (docs/eval.md)."))
    d.add(tomlkit.comment("wrong: " + doc["wrong_rule"] + "."))
    d.add(tomlkit.comment("success: " + doc["success_rule"] + "."))
    d.add(tomlkit.nl())
    for k, v in doc.items():
        d[k] = v
    return tomlkit.dumps(d)


def write_accuracy_curve(sweep: SweepEval, path: str | os.PathLike, query_files: Sequence[str | os.PathLike] = (),
                         *, task_calls: int = 1, date: str | None = None) -> AccuracyCurve:
    """Fit `sweep` (model.measured_curve.fit_accuracy_curve), naming `query_files` with their sha256,
    and write the curve to `path` as TOML; returns it as loaded back."""
    doc, warnings = fit_accuracy_curve(sweep, file_digests(query_files), task_calls=task_calls, date=date)
    sweep.warnings.extend(warnings)
    atomic_write(path, curve_toml(doc))
    return load_accuracy(path)


def effect_toml(doc: dict) -> str:
    """A fitted description effect's document as TOML, its rules in a comment at the top."""
    d = tomlkit.document()
    d.add(tomlkit.comment("A description effect measured with `toolsurvey eval --description-tokens ... "
                          "--fit-descriptions` (docs/eval.md)."))
    for key in ("multiplier_rule", "wrong_rule", "success_rule"):
        d.add(tomlkit.comment(key.split("_")[0] + ": " + doc[key] + "."))
    d.add(tomlkit.nl())
    for k, v in doc.items():
        d[k] = v
    return tomlkit.dumps(d)


def write_description_effect(sweep, path: str | os.PathLike, query_files: Sequence[str | os.PathLike] = (),
                             *, task_calls: int = 1, date: str | None = None):
    """Fit a description sweep (model.measured_description.fit_description_effect), naming `query_files`
    with their sha256, and write it to `path` as TOML; returns it as loaded back (a DescriptionEffect)."""
    from ..model.accuracy import load_description_effect
    from ..model.measured_description import fit_description_effect

    doc, warnings = fit_description_effect(sweep, file_digests(query_files), task_calls=task_calls, date=date)
    sweep.warnings.extend(warnings)
    atomic_write(path, effect_toml(doc))
    return load_description_effect(path)
