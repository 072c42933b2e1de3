"""The report as data: headline figures, tables and sections, and the Report that renders and saves them."""

from __future__ import annotations

import os
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ...core.viewable import Viewable
from ...core.writing import atomic_write, spreadsheet_safe
from ...errors import InputError
from .render import render_html, render_json, render_markdown

FORMATS = ("html", "markdown", "csv", "json")
NOT_PRICED = "not priced"  # a money figure the simulation did not price (over the context window)


@dataclass
class Headline:
    """One figure of the executive summary: a key tests and scripts can find, its value and its text."""

    key: str
    label: str
    value: float
    shown: str


@dataclass
class Table:
    """A table of the report: the data as computed (CSV) and its caption (HTML, Markdown)."""

    name: str
    caption: str
    data: pd.DataFrame
    note: str = ""
    shown: pd.DataFrame | None = None  # text cells to show instead of `data` (rows with mixed units)


@dataclass
class Section:
    """A part of the report; `missing` says which input it needs when it could not be written."""

    key: str
    title: str
    text: list[str] = field(default_factory=list)
    figures: list[Headline] = field(default_factory=list)
    bullets: list[str] = field(default_factory=list)
    bullets_title: str = ""
    shares: list[tuple[str, float]] = field(default_factory=list)  # a bar of parts of a whole
    tables: list[Table] = field(default_factory=list)
    charts: list[Any] = field(default_factory=list)  # plotly Figures
    notes: list[str] = field(default_factory=list)
    missing: str | None = None


@dataclass(repr=False)
class Report(Viewable):
    """Everything the report shows, computed; `to_html`, `to_markdown`, `to_csv` and `save` render it."""

    view_name = "report"

    title: str
    subtitle: str
    sections: list[Section]
    levers: list[tuple[str, float]] = field(default_factory=list)  # (change, dollars saved per month)
    meta: dict[str, Any] = field(default_factory=dict)  # date, produced_by, inputs: [(role, name, short sha256)]

    def section(self, key: str) -> Section:
        return next(s for s in self.sections if s.key == key)

    @property
    def headlines(self) -> dict[str, Headline]:
        return {f.key: f for s in self.sections for f in s.figures}

    @property
    def tables(self) -> dict[str, Table]:
        return {t.name: t for s in self.sections for t in s.tables}

    def summary_text(self) -> str:
        """The executive summary as plain lines for a terminal."""
        s = self.section("summary")
        width = max((len(f.shown) for f in s.figures), default=0)
        lines = [f"{self.title}: {self.subtitle}", ""]
        lines += [f"  {f.shown.rjust(width)}  {f.label}" for f in s.figures]
        if s.bullets:
            lines += ["", "Biggest levers:"] + [textwrap.fill(b, 100, initial_indent="  - ", subsequent_indent="    ")
                                                 for b in s.bullets]
        lines += [""] + [textwrap.fill(p, 100) for p in s.text + s.notes]
        lines += [textwrap.fill(f"({x.title}: {x.missing})", 100) for x in self.sections if x.missing]
        return "\n".join(lines)

    def to_html(self) -> str:
        """One self-contained HTML page: every string escaped, plotly.js inline, only our scripts allowed."""
        return render_html(self)

    def to_markdown(self) -> str:
        """The report as Markdown (for wikis and pull requests); cells escaped."""
        return render_markdown(self)

    def to_json(self) -> str:
        """The report as JSON: its release and data dates, inputs, headline figures, levers and tables."""
        return render_json(self)

    def to_csv(self) -> dict[str, str]:
        """File name -> CSV text of every table, plus `summary.csv` with the headline figures and
        `produced_by.csv` with the release and its data's dates."""
        out = {"summary.csv": _csv(pd.DataFrame(
            [{"figure": f.key, "label": f.label, "value": f.value} for f in self.headlines.values()]))}
        if self.meta.get("produced_by"):  # the release and its data's dates, as `toolsurvey --version`
            out["produced_by.csv"] = _csv(pd.DataFrame(list(self.meta["produced_by"].items()),
                                                       columns=["field", "value"]))
        if self.levers:
            out["levers.csv"] = _csv(pd.DataFrame(self.levers, columns=["lever", "saving_per_month_usd"]))
        for name, t in self.tables.items():
            out[f"{name}.csv"] = _csv(t.data)
        return out

    def save(self, path: str | os.PathLike, format: str | None = None) -> list[Path]:
        """Write the report atomically (CSV: a folder of files); the format follows the suffix if not given.

        Everything is rendered before anything is written, so a failure leaves no partial file.
        Raises InputError for an unknown format or a path that cannot be written.
        """
        p = Path(path)
        format = format or format_for(p)
        if format not in FORMATS:
            raise InputError(f"unknown report format {format!r}; expected one of: {', '.join(FORMATS)}")
        if format == "csv":
            files = self.to_csv()
            folder = p.with_suffix("") if p.suffix.lower() == ".csv" else p
            try:
                folder.mkdir(parents=True, exist_ok=True)
                return _write_csv_set(folder, files)
            except OSError as e:
                raise InputError(f"cannot write {folder}: {e.strerror}") from None
        text = {"html": self.to_html, "markdown": self.to_markdown, "json": self.to_json}[format]()
        try:
            return [atomic_write(p, text)]
        except OSError as e:
            raise InputError(f"cannot write {p}: {e.strerror}") from None


_MANIFEST = ".toolsurvey-report"  # in a CSV report's folder: the files of the set written last


def _write_csv_set(folder: Path, files: dict[str, str]) -> list[Path]:
    """Write the CSV files, then remove those of the previous set (listed in the manifest) not in this one."""
    try:
        old = (folder / _MANIFEST).read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        old = []
    paths = [atomic_write(folder / name, text) for name, text in files.items()]
    atomic_write(folder / _MANIFEST, "".join(f"{name}\n" for name in files))
    for name in old:  # only plain names we wrote: a doctored manifest cannot reach outside the folder
        if name.endswith(".csv") and name not in files and Path(name).name == name:
            (folder / name).unlink(missing_ok=True)
    return paths


def format_for(path: str | os.PathLike) -> str:
    """The report format a file name asks for: .md/.markdown Markdown, .csv CSV, .json JSON, anything else HTML."""
    return {".md": "markdown", ".markdown": "markdown", ".csv": "csv",
            ".json": "json"}.get(Path(path).suffix.lower(), "html")


def _csv(df: pd.DataFrame) -> str:
    return spreadsheet_safe(df).to_csv(index=False)
