"""Rendering of a built Report: cell formats, HTML through a jinja2 template, Markdown and JSON."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import pandas as pd

from .. import markdown as md
from ..units import money, whole

# Column name -> (label a reader sees, format). Formats: int, pct, usd, float, float1, text.
COLUMNS = {
    "server": ("Server", "text"), "tool": ("Tool", "text"), "tools": ("Tools", "int"),
    "tokens": ("Tokens per request", "int"), "share": ("Share of the tool definitions", "pct"),
    "median": ("Median tokens per tool", "int"), "p90": ("90th percentile per tool", "int"),
    "part": ("Part of the definition", "text"), "description": ("Description", "int"),
    "schema": ("Schema", "int"), "param_descriptions": ("Parameter descriptions", "int"),
    "name": ("Name", "int"), "structure": ("JSON structure", "int"),
    "mean_visible": ("Tools visible (mean)", "float1"), "steps_per_task": ("Requests per task", "float1"),
    "success": ("Task success", "pct"), "wrong_rate": ("Wrong tool calls", "pct"),
    "call_share": ("Share of calls", "pct"), "response_tokens_mean": ("Mean result tokens", "int"),
    "response_tokens_total": ("Result tokens in the log", "int"),
    "repeated": ("Repeated identical calls", "int"), "errors": ("Errors", "int"),
    "cost_per_completed_task": ("Cost per completed task", "usd"),
    "cost": ("Cost per task attempt", "usd"), "requests": ("Requests per task", "float1"),
    "tokens_per_request": ("Tokens saved per request", "int"), "tokens_per_task": ("Tokens saved per task", "int"),
    "tokens_all_visible": ("Tokens saved per request, every tool visible", "int"),
    "tokens_as_visible": ("Tokens saved per request, as the scenario shows the tool", "float1"),
    "k": ("k", "int"), "hit_at_k": ("hit@k", "pct"), "recall_at_k": ("recall@k", "pct"),
    "needed": ("Queries that need it", "int"), "best_rank": ("Best rank", "int"),
    "confusions": ("Outranked by (times)", "text"),
    "taken_for": ("Taken for", "text"), "times": ("Times", "int"), "times_back": ("Times back", "int"),
    "both_ways": ("Confusions both ways", "int"),
    "skipped": ("Skipped", "int"), "skip_share": ("Share skipped", "pct"), "queries": ("Queries", "text"),
    "figures_from": ("Figures from", "text"),
}


def _cell(v: Any, fmt: str) -> str:
    if v is None or (not isinstance(v, str) and pd.isna(v)):
        return ""
    if fmt == "int":
        return whole(v)
    if fmt == "pct":
        return f"{float(v):.1%}"
    if fmt == "usd":
        return money(float(v))
    if fmt == "float":
        return f"{float(v):,.2f}"
    if fmt == "float1":
        return f"{float(v):,.1f}"
    return str(v)


def _columns(df: pd.DataFrame) -> list[tuple[str, str, str]]:
    out = []
    for c in df.columns:
        label, fmt = COLUMNS.get(c, (c.removesuffix("_usd").replace("_", " ").capitalize(), ""))
        if not fmt:
            fmt = ("usd" if c.endswith("_usd") else "pct" if c.endswith("share") else
                   "int" if pd.api.types.is_integer_dtype(df[c]) or (
                       "tokens" in c and pd.api.types.is_numeric_dtype(df[c])) else
                   "float" if pd.api.types.is_float_dtype(df[c]) else "text")
        out.append((c, label, fmt))
    return out


def _rows(t: Any) -> tuple[list[dict], list[list[str]]]:
    """Headers (label, numeric?) and formatted cells of a table, as both HTML and Markdown show them."""
    if t.shown is not None:
        num = [c != t.shown.columns[0] for c in t.shown.columns]
        headers = [{"label": COLUMNS.get(c, (c.replace("_", " ").capitalize(), ""))[0], "num": n}
                   for c, n in zip(t.shown.columns, num, strict=True)]
        return headers, [[str(v) for v in row] for row in t.shown.itertuples(index=False)]
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


def _figure_script(fig: Any, div_id: str) -> str:
    # The charts already write third-party text as entities (charts.labels.safe_text), which plotly.js
    # draws literally instead of as its pseudo-HTML (<a href>, <b>, <br>); escaping again here
    # would show '&lt;'. plotly's JSON encoder writes < > / as \u escapes, so no string from the data can close
    # the script element; the check makes sure that stays true.
    spec = fig.to_json()
    if "<" in spec:
        raise RuntimeError("figure JSON would not be safe inside a script element")
    return (f"(function(){{var f={spec};Plotly.newPlot({json.dumps(div_id)},f.data,f.layout,"
            '{"displaylogo":false,"responsive":true});})();')


def _sha256(js: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(js.encode("utf-8")).digest()).decode() + "'"


def render_html(r: Any) -> str:
    """The report as one HTML page: escaped text, inline plotly.js, scripts pinned by hash."""
    import jinja2
    from markupsafe import Markup

    from ...core.version import version

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
        r={"title": r.title, "subtitle": r.subtitle, "sections": views, "version": version(),
           "meta": _meta_line(r)},
        scripts=[Markup(js) for js in scripts], zip=zip,
        script_hashes=" ".join(_sha256(js) for js in scripts) or "'none'")
    return page


def _meta_line(r: Any) -> str:
    """`Written 2026-11-30 by toolsurvey 0.7.0 (prices: LiteLLM 1.110.2 snapshot, as of 2026-11-30; ...)
    from: registry ops.json (sha256 1a2b…), ...`."""
    from ...model.provenance import data_lines

    m = getattr(r, "meta", None) or {}
    if not m:
        return ""
    inputs = "; ".join(f"{role} {name}" + (f" (sha256 {digest})" if digest else "")
                       for role, name, digest in m.get("inputs", []))
    p = m["produced_by"]
    return (f"Written {m['date']} by toolsurvey {p['version']} ({'; '.join(data_lines(p))})"
            + (f" from: {inputs}" if inputs else ""))


def render_markdown(r: Any) -> str:
    """The report as Markdown with escaped cells."""
    out = [f"# {md.escape(r.title)}", "", md.escape(r.subtitle), ""]
    if _meta_line(r):
        out += [f"_{md.escape(_meta_line(r))}_", ""]
    for s in r.sections:
        out += [f"## {md.escape(s.title)}", ""]
        if s.missing:
            out += [f"> {md.escape(s.missing)}", ""]
        out += [md.escape(p) + "\n" for p in s.text]
        if s.figures:
            out += [md.table(["Figure", "Value"], [(f.label, md.Raw(md.escape(f.shown))) for f in s.figures],
                             right=(1,)), ""]
        if s.bullets:
            out += ([md.escape(s.bullets_title), ""] if s.bullets_title else []) + \
                   [f"- {md.escape(b)}" for b in s.bullets] + [""]
        for t in s.tables:
            headers, rows = _rows(t)
            out += [f"**{md.escape(t.caption)}**", "",
                    md.table([h["label"] for h in headers], rows,
                             right=[i for i, h in enumerate(headers) if h["num"]]), ""]
            if t.note:
                out += [f"_{md.escape(t.note)}_", ""]
        out += [f"_{md.escape(p)}_\n" for p in s.notes]
    return "\n".join(out).rstrip() + "\n"


def render_json(r: Any) -> str:
    """The report as JSON: what produced it (release, data dates, inputs), the headline figures, the
    levers, each section's text and every table's rows as computed (a figure not priced is null)."""
    m = getattr(r, "meta", None) or {}
    doc = {"produced_by": m.get("produced_by"), "date": m.get("date"),
           "inputs": [{"role": role, "name": name, "sha256": digest} for role, name, digest in m.get("inputs", [])],
           "title": r.title, "subtitle": r.subtitle,
           "headlines": [{"key": f.key, "label": f.label, "value": _finite(f.value), "shown": f.shown}
                         for s in r.sections for f in s.figures],
           "levers": [{"lever": name, "saving_per_month_usd": _finite(v)} for name, v in r.levers],
           "sections": [{"key": s.key, "title": s.title, "text": s.text, "bullets": s.bullets, "notes": s.notes,
                         "missing": s.missing, "figures": [f.key for f in s.figures],
                         "tables": [t.name for t in s.tables]} for s in r.sections],
           "tables": {t.name: {"caption": t.caption, "note": t.note,
                               "rows": json.loads(t.data.to_json(orient="records", date_format="iso"))}
                      for s in r.sections for t in s.tables}}
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _finite(v: Any) -> float | None:
    return None if v is None or pd.isna(v) else float(v)
