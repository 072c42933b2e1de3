"""The stakeholder report: build its data from the library's own functions, then render it as
self-contained HTML (plotly.js inline, opens offline), Markdown or CSV tables."""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from . import _markdown as md
from ._io import atomic_write
from .diffing import as_registry
from .errors import InputError
from .measure import by_part, by_server, footprint, request_total, tools_only

FORMATS = ("html", "markdown", "csv")

# Column name -> (label a reader sees, format). Formats: int, pct, usd, float, text.
COLUMNS = {
    "server": ("Server", "text"), "tool": ("Tool", "text"), "tools": ("Tools", "int"),
    "tokens": ("Tokens per request", "int"), "share": ("Share of the tool definitions", "pct"),
    "median": ("Median tokens per tool", "int"), "p90": ("90th percentile per tool", "int"),
    "part": ("Part of the definition", "text"), "description": ("Description", "int"),
    "schema": ("Schema", "int"), "param_descriptions": ("Parameter descriptions", "int"),
    "name": ("Name", "int"), "structure": ("JSON structure", "int"),
}


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


@dataclass
class Section:
    """A part of the report; `missing` says which input it needs when it could not be written."""

    key: str
    title: str
    text: list[str] = field(default_factory=list)
    figures: list[Headline] = field(default_factory=list)
    bullets: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    charts: list[Any] = field(default_factory=list)  # plotly Figures
    notes: list[str] = field(default_factory=list)
    missing: str | None = None


@dataclass
class Report:
    """Everything the report shows, computed; `to_html`, `to_markdown`, `to_csv` and `save` render it."""

    title: str
    subtitle: str
    sections: list[Section]

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
        lines = [self.title, self.subtitle, ""]
        lines += [f"  {f.label}: {f.shown}" for f in s.figures]
        if s.bullets:
            lines += ["", "  Biggest levers:"] + [f"  - {b}" for b in s.bullets]
        lines += [f"  {p}" for p in s.text if s.missing is None]
        lines += [f"  ({x.title}: {x.missing})" for x in self.sections if x.missing]
        return "\n".join(lines)

    def to_html(self) -> str:
        """One self-contained HTML page: every string escaped, plotly.js inline, only our scripts allowed."""
        return _render_html(self)

    def to_markdown(self) -> str:
        """The report as Markdown (for wikis and pull requests); cells escaped."""
        return _render_markdown(self)

    def to_csv(self) -> dict[str, str]:
        """File name -> CSV text of every table, plus `summary.csv` with the headline figures."""
        out = {"summary.csv": pd.DataFrame(
            [{"figure": f.key, "label": f.label, "value": f.value} for f in self.headlines.values()]
        ).to_csv(index=False)}
        for name, t in self.tables.items():
            out[f"{name}.csv"] = t.data.to_csv(index=False)
        return out

    def save(self, path: str | os.PathLike, format: str | None = None) -> list[Path]:
        """Write the report atomically (CSV: a folder of files); the format follows the suffix if not given.

        Everything is rendered before anything is written, so a failure leaves no partial file.
        Raises InputError for an unknown format or a path that cannot be written.
        """
        p = Path(path)
        format = format or {".md": "markdown", ".markdown": "markdown", ".csv": "csv"}.get(p.suffix.lower(), "html")
        if format not in FORMATS:
            raise InputError(f"unknown report format {format!r}; expected one of: {', '.join(FORMATS)}")
        if format == "csv":
            files = self.to_csv()
            folder = p.with_suffix("") if p.suffix.lower() == ".csv" else p
            try:
                folder.mkdir(parents=True, exist_ok=True)
                return [atomic_write(folder / name, text) for name, text in files.items()]
            except OSError as e:
                raise InputError(f"cannot write {folder}: {e.strerror}") from None
        text = self.to_html() if format == "html" else self.to_markdown()
        try:
            return [atomic_write(p, text)]
        except OSError as e:
            raise InputError(f"cannot write {p}: {e.strerror}") from None


# ---------------------------------------------------------------- building the data

@dataclass
class _Inputs:
    reg: Any
    table: pd.DataFrame
    scenario: Any = None
    usage: Any = None
    top: int = 15
    problems: dict[str, str] = field(default_factory=dict)


def report(reg: Any, *, scenario: Any = None, usage: Any = None, encoding: str | None = None,
           render: str = "json", model: str | None = None, top: int = 15, title: str | None = None) -> Report:
    """Build the report for a registry (or path), with an optional scenario file and usage log.

    Raises InputError for inputs that cannot be loaded; a section whose input is missing says so.
    """
    reg = as_registry(reg)
    table = footprint(reg, encoding=encoding, render=render, model=model)
    inp = _Inputs(reg, table, top=top)
    sections = [_summary(inp), _surface(inp), _method(inp)]
    n_tools, n_servers = len(tools_only(table)), len(reg.servers)
    sources = ", ".join(Path(s).name for s in reg.sources) or "a registry built in code"
    return Report(title or "What our agent's tools cost",
                  f"{n_tools:,} tools in {n_servers:,} servers, from {sources}", sections)


def _fmt_int(v: float) -> str:
    return f"{int(round(v)):,}"


def _summary(inp: _Inputs) -> Section:
    t = inp.table
    total = request_total(t)
    parts = by_part(t).set_index("part")["tokens"]
    desc_share = parts.get("description", 0) / total if total else 0.0
    s = Section("summary", "Executive summary")
    s.figures.append(Headline("tool_tokens_per_request", "tokens of tool definitions in every request",
                              total, _fmt_int(total)))
    s.figures.append(Headline("tools", "tools the agent can see", len(tools_only(t)), f"{len(tools_only(t)):,}"))
    s.text.append(f"Every request the agent makes carries the definitions of all its tools: {total:,} tokens, "
                  f"sent again at every step of every task. Descriptions are {desc_share:.0%} of it.")
    return s


def _surface(inp: _Inputs) -> Section:
    t = inp.table
    s = Section("surface", "Where the tokens go: servers and tools")
    servers = by_server(t)
    s.text.append("Each server's share of the tool definitions sent with every request, and the tools "
                  "that cost the most. A large tool is not a defect in itself: a clear description "
                  "can save steps. The tables show where a change would matter most.")
    s.tables.append(Table("servers", "Tokens per server", servers))
    tools = tools_only(t).sort_values("tokens", ascending=False, kind="stable").head(inp.top)
    keep = ["server", "tool", "tokens", "description", "schema", "param_descriptions"]
    s.tables.append(Table("top_tools", f"The {len(tools)} largest tools", tools[keep].reset_index(drop=True)))
    try:
        from .charts import parts_bar

        s.charts.append(parts_bar(t, top=inp.top))
    except ImportError:  # the charts module is optional for the report's tables
        pass
    return s


def _method(inp: _Inputs) -> Section:
    a = inp.table.attrs
    s = Section("method", "Method and assumptions")
    s.text.append(f"Tokens are counted exactly with the {a['encoding']} tokenizer (tiktoken) on the "
                  f"text the model receives. Rendering: {a['method']}.")
    if a.get("model"):
        s.text.append(f"Provider formatting constants are those of {a['model']}.")
    s.notes += [f"Input: {src}" for src in a.get("sources", [])]
    return s


# ---------------------------------------------------------------- rendering

def _cell(v: Any, fmt: str) -> str:
    if v is None or (not isinstance(v, str) and pd.isna(v)):
        return ""
    if fmt == "int":
        return f"{int(round(float(v))):,}"
    if fmt == "pct":
        return f"{float(v):.1%}"
    if fmt == "usd":
        return f"${float(v):,.2f}"
    if fmt == "float":
        return f"{float(v):,.2f}"
    return str(v)


def _columns(df: pd.DataFrame) -> list[tuple[str, str, str]]:
    out = []
    for c in df.columns:
        label, fmt = COLUMNS.get(c, (c.replace("_", " ").capitalize(), ""))
        if not fmt:
            fmt = ("usd" if c.endswith("_usd") else "pct" if c.endswith("share") else
                   "int" if pd.api.types.is_integer_dtype(df[c]) else
                   "float" if pd.api.types.is_float_dtype(df[c]) else "text")
        out.append((c, label, fmt))
    return out


def _rows(t: Table) -> tuple[list[dict], list[list[str]]]:
    cols = _columns(t.data)
    headers = [{"label": label, "num": fmt != "text"} for _, label, fmt in cols]
    rows = [[_cell(v, fmt) for v, (_, _, fmt) in zip(row, cols, strict=True)]
            for row in t.data.itertuples(index=False)]
    return headers, rows


def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    js = get_plotlyjs()
    if "</script" in js.lower() or "<!--" in js:  # would end the inline script early
        raise RuntimeError("this plotly.js bundle cannot be inlined safely")
    return js


# Trace fields whose strings plotly.js draws as its own pseudo-HTML (<a href>, <b>, <br>, entities).
_PLOTLY_TEXT = ("x", "y", "labels", "parents", "ids", "text", "hovertext", "customdata")


def _plotly_literal(value: Any) -> Any:
    """Strings with & < > written as entities, so plotly.js draws them literally (arrays kept)."""
    if isinstance(value, str):
        return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if isinstance(value, (list, tuple)):
        return type(value)(_plotly_literal(v) for v in value)
    if hasattr(value, "dtype") and value.dtype == object:
        return [_plotly_literal(v) for v in value]
    return value


def _figure_script(fig: Any, div_id: str) -> str:
    import plotly.graph_objects as go

    fig = go.Figure(fig)  # a copy: the caller's figure keeps its data
    for trace in fig.data:
        for name in _PLOTLY_TEXT:
            if name in trace and trace[name] is not None:
                trace[name] = _plotly_literal(trace[name])
    # plotly's JSON encoder writes < > / as \u escapes, so no string from the data can close
    # the script element; the check makes sure that stays true.
    spec = fig.to_json()
    if "<" in spec:
        raise RuntimeError("figure JSON would not be safe inside a script element")
    return (f"(function(){{var f={spec};Plotly.newPlot({json.dumps(div_id)},f.data,f.layout,"
            '{"displaylogo":false,"responsive":true});})();')


def _sha256(js: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(js.encode("utf-8")).digest()).decode() + "'"


def _render_html(r: Report) -> str:
    import jinja2
    from markupsafe import Markup

    from . import __version__

    scripts, views = [], []
    n = 0
    for s in r.sections:
        charts = []
        for fig in s.charts:
            n += 1
            charts.append({"id": f"chart-{n}"})
            scripts.append(_figure_script(fig, f"chart-{n}"))
        tables = []
        for t in s.tables:
            headers, rows = _rows(t)
            tables.append({"name": t.name, "caption": t.caption, "headers": headers, "rows": rows, "note": t.note})
        views.append({**s.__dict__, "charts": charts, "tables": tables})
    if scripts:
        scripts.insert(0, _plotly_js())
    env = jinja2.Environment(loader=jinja2.PackageLoader("toolsurvey", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined)
    page = env.get_template("report.html").render(
        r={"title": r.title, "subtitle": r.subtitle, "sections": views, "version": __version__},
        scripts=[Markup(js) for js in scripts], zip=zip,
        script_hashes=" ".join(_sha256(js) for js in scripts) or "'none'")
    return page


def _render_markdown(r: Report) -> str:
    out = [f"# {md.escape(r.title)}", "", md.escape(r.subtitle), ""]
    for s in r.sections:
        out += [f"## {md.escape(s.title)}", ""]
        if s.missing:
            out += [f"> {md.escape(s.missing)}", ""]
        out += [md.escape(p) + "\n" for p in s.text]
        if s.figures:
            out += [md.table(["Figure", "Value"], [(f.label, md.Raw(md.escape(f.shown))) for f in s.figures],
                             right=(1,)), ""]
        out += [f"- {md.escape(b)}" for b in s.bullets] + ([""] if s.bullets else [])
        for t in s.tables:
            cols = _columns(t.data)
            rows = [[_cell(v, fmt) for v, (_, _, fmt) in zip(row, cols, strict=True)]
                    for row in t.data.itertuples(index=False)]
            out += [f"**{md.escape(t.caption)}**", "",
                    md.table([label for _, label, _ in cols], rows,
                             right=[i for i, (_, _, fmt) in enumerate(cols) if fmt != "text"]), ""]
            if t.note:
                out += [f"_{md.escape(t.note)}_", ""]
        out += [f"_{md.escape(p)}_\n" for p in s.notes]
    return "\n".join(out).rstrip() + "\n"
