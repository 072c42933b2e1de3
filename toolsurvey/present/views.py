"""Numbers with their units, and the rich (HTML) and plain views of toolsurvey's results in Jupyter.

One place decides how a column is shown, from its name: dollars (`cost*`, `*_usd`), percentages
(`share`, `*_share`, `*_rate`, `success`), whole counts with thousands separators, and decimals.
The CLI tables and the Jupyter views both use it. The data is never changed: pandas' Styler formats
the view, so `obj.table` keeps the raw numbers.
"""

from __future__ import annotations

import html

import pandas as pd

from .retrieval import by_k, findability, view_lines
from .units import (
    FORMATTERS,
    MONEY_UNITS,
    is_missing,
    kind_of,
    money,
    number,
    percent,
    plural,
    points,
)

SHOWN_ROWS = 30  # rows shown in a Jupyter view before "... N more rows" (itables, when installed, pages them)
ITABLES = {"on": False}  # set by toolsurvey.present.display.notebook_mode once itables' JavaScript is in the notebook


def styler(df: pd.DataFrame, *, unit_column: str | None = None):
    """A pandas Styler that shows `df` with units, leaving its data as it is.

    With `unit_column` (rows of mixed units, e.g. a plan's before/after table), numbers in each row
    are formatted by that row's unit (USD, share, anything else a count).
    """
    st = df.style
    numeric = [c for c in df.columns if pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])]
    if unit_column is None:
        st = st.format({c: FORMATTERS[kind_of(c)] for c in numeric}, na_rep="–")
    else:
        for unit, rows in df.groupby(unit_column, sort=False).groups.items():
            fmt = money if unit in MONEY_UNITS else percent if unit == "share" else number
            cols = [c for c in numeric if kind_of(c) != "percent"]
            st = st.format(fmt, subset=pd.IndexSlice[list(rows), cols], na_rep="–")
            if unit == "share" and "change" in cols:  # a change of a share is in percentage points
                st = st.format(points, subset=pd.IndexSlice[list(rows), ["change"]], na_rep="–")
        st = st.format(percent, subset=[c for c in numeric if kind_of(c) == "percent"], na_rep="–")
    text = [c for c in df.columns if c not in numeric]
    st = st.format(lambda v: html.escape(str(v)), subset=text, na_rep="")
    # Jupyter's stylesheet right-aligns every cell: text reads from the left, numbers line up on the right.
    st = st.set_properties(subset=numeric, **{"text-align": "right"}).set_properties(subset=text, **{"text-align": "left"})
    st = st.set_table_styles([{"selector": f"th.col_heading.col{i}", "props": "text-align: left"}
                              for i, c in enumerate(df.columns) if c in text], overwrite=False)
    return st.hide(axis="index").set_table_attributes('class="toolsurvey-table"')


def table_html(df: pd.DataFrame, *, caption: str = "", unit_column: str | None = None) -> str:
    """A titled, formatted table; long tables are cut to SHOWN_ROWS rows, or paged by itables if installed."""
    head = f"<h4>{html.escape(caption)}</h4>" if caption else ""
    if len(df) > SHOWN_ROWS:
        if not ITABLES["on"]:
            rest = len(df) - SHOWN_ROWS
            return (head + styler(df.head(SHOWN_ROWS), unit_column=unit_column).to_html()
                    + f"<p><em>… {plural(rest, 'more row')} (the object holds them all)</em></p>")
        from itables import to_html_datatable

        # Safe as HTML: the Styler escapes every text cell (third-party names) itself.
        return head + to_html_datatable(styler(df, unit_column=unit_column), connected=False, allow_html=True)
    return head + styler(df, unit_column=unit_column).to_html()


def rich_html(title: str, lines: list[str], tables: list[tuple[str, pd.DataFrame, str | None]] = ()) -> str:
    """A Jupyter view: a title, headline lines, then formatted tables (caption, data, unit column)."""
    parts = [f"<div class=\"toolsurvey-rich\"><strong>{html.escape(title)}</strong>"]
    if lines:
        parts.append("<ul>" + "".join(f"<li>{html.escape(x)}</li>" for x in lines) + "</ul>")
    parts += [table_html(df, caption=caption, unit_column=unit) for caption, df, unit in tables]
    return "".join(parts) + "</div>"


def plain(title: str, lines: list[str]) -> str:
    """The plain-text view: a title and indented headline lines (control and bidi characters in
    third-party text escaped, as in the CLI)."""
    from .markdown import visible

    return "\n".join(visible(x) for x in [title, *(f"  {x}" for x in lines)])


def change(before: float, after: float, fmt=money) -> str:
    """`$0.4630 → $0.2312 (-50%)`."""
    pct = "" if not before or is_missing(before) or is_missing(after) else f" ({(after - before) / abs(before):+.0%})"
    return f"{fmt(before)} → {fmt(after)}{pct}"


def footprint_lines(table) -> tuple[str, list[str]]:
    tools = table[table["kind"] == "tool"] if "kind" in table else table
    a = table.attrs
    title = (f"{plural(len(tools), 'tool')} in {plural(tools['server'].nunique(), 'server')}: "
             f"{number(int(table['tokens'].sum()))} tokens per request")
    lines = [f"{a.get('render', '?')} rendering, {a.get('encoding', '?')}: {a.get('method', '')}"]
    if len(tools):
        lines.append(f"per tool: median {number(tools['tokens'].median())} tokens, "
                     f"largest {number(int(tools['tokens'].max()))} tokens")
    return title, lines


def findings_lines(found) -> tuple[str, list[str]]:
    n = len(found)
    tools = found.drop_duplicates(["server", "tool"]).shape[0] if n else 0
    counts = found["severity"].value_counts()
    by = ", ".join(f"{int(counts[s]):,} {s}" for s in ("security", "error", "warning", "info") if s in counts)
    title = f"{plural(n, 'finding')} on {plural(tools, 'tool')} (of {number(found.attrs.get('tools', 0))} audited)"
    saving = int(found["tokens"].clip(lower=0).sum()) if n else 0
    return title, ([by] if by else []) + [f"the fixes that remove text save {number(saving)} tokens per request"]


def _frame_html(lines_of):
    return lambda df: rich_html(*lines_of(df), [("", pd.DataFrame(df), None)])


def _frame_text(lines_of):
    return lambda df: plain(*lines_of(df)) + "\n\n" + pd.DataFrame(df).__repr__()


# -- the views of the result objects (each class's _repr_html_ and __repr__ call these) -------------

def _plan_lines(p) -> tuple[str, list[str]]:
    kinds = pd.Series([a.kind for a in p.actions], dtype=object).value_counts()
    acts = ", ".join(f"{int(kinds[k])} {k}" for k in ("delete", "merge", "trim", "gate") if k in kinds) or "no actions"
    title = f"Plan: {plural(len(p.before), 'tool')} → {len(p.after):,} ({acts})"
    rows = {r.metric: r for r in p.table.itertuples(index=False)}
    lines = []
    for metric in ("tool definitions per request", "cost per completed task", "cost per month"):
        r = rows.get(metric)
        if r is not None:
            fmt = money if r.unit in MONEY_UNITS else lambda v, u=r.unit: f"{number(v)} {u}"
            lines.append(f"{metric}: {change(r.before, r.after, fmt)}")
    return title, lines + [f"warning: {w}" for w in p.warnings[:5]]


def plan_html(p) -> str:
    title, lines = _plan_lines(p)
    actions = p.actions_table().sort_values("tokens_per_task", ascending=False, kind="stable")
    return rich_html(title, lines, [("Before and after (simulated)", p.table, "unit"),
                                    ("After each stage", p.stages, None),
                                    ("Actions, largest saving first", actions, None)])


def plan_text(p) -> str:
    return plain(*_plan_lines(p))


def _run_lines(run) -> tuple[str, list[str]]:
    s = run.summary
    title = (f"Run: {s.get('model')}, strategy {s.get('strategy')}, caching {s.get('caching')}, "
             f"{number(s.get('steps'))} steps per task")
    lines = [f"{number(s.get('mean_visible'))} tools visible on average, "
             f"{number(s.get('tool_tokens_per_request'))} tool tokens per request",
             f"{number(s.get('input_tokens_per_task'))} input tokens per task; wrong-tool rate "
             f"{percent(s.get('wrong_rate'))}, success {percent(s.get('success'))}",
             f"{money(s.get('cost_per_task'))} per task, {money(s.get('cost_per_completed_task'))} per completed task, "
             f"{money(s.get('cost_per_month'))} per month"]
    return title, lines + [f"warning: {w}" for w in run.warnings[:5]]


def run_html(run) -> str:
    title, lines = _run_lines(run)
    tables = [("One task, request by request", run.steps, None)]
    if run.percentiles is not None:
        tables.insert(0, ("Monte Carlo percentiles", run.percentiles.reset_index(names=""), None))
    return rich_html(title, lines, tables)


def run_text(run) -> str:
    return plain(*_run_lines(run))


def _diff_lines(d) -> tuple[str, list[str]]:
    c = d.counts()
    title = (f"Diff: {number(d.request_old)} → {number(d.request_new)} tokens per request "
             f"({'+' if d.request_delta > 0 else ''}{number(d.request_delta)})")
    lines = [", ".join(f"{n:,} {s}" for s, n in c.items()) + " tools"]
    if "month_delta" in d.costs:
        lines.append(f"{money(d.costs['month_delta'])} per month under the scenario")
    return title, lines


def diff_html(d) -> str:
    title, lines = _diff_lines(d)
    return rich_html(title, lines, [("Tools added, removed or changed, largest change first", d.changes, None)])


def diff_text(d) -> str:
    return plain(*_diff_lines(d))


def _report_lines(rep) -> tuple[str, list[str]]:
    lines = [f"{f.label}: {f.shown}" for f in rep.headlines.values()][:8]
    lines += [f"lever: {what} saves {money(usd)} per month" for what, usd in rep.levers[:3]]
    return f"{rep.title}: {rep.subtitle}", lines


def report_html(rep) -> str:
    title, lines = _report_lines(rep)
    tables = [(t.caption, t.data, "unit" if "unit" in t.data.columns else None) for t in rep.tables.values()]
    return rich_html(title, lines, tables) + "<p><em>report.save('report.html') writes the full report</em></p>"


def report_text(rep) -> str:
    return plain(*_report_lines(rep)) + f"\n  tables: {', '.join(rep.tables)}"


def retrieval_html(ev) -> str:
    title, lines = view_lines(ev)
    return rich_html(title, lines, [("hit@k and recall@k by k", by_k(ev), None),
                                    (f"Findability in the top {ev.find_k}, least found first", findability(ev), None)])


def retrieval_text(ev) -> str:
    return plain(*view_lines(ev))


# view name (a Viewable's `view_name`) -> (text view, HTML view)
_VIEWS = {
    "footprint": (_frame_text(footprint_lines), _frame_html(footprint_lines)),
    "findings": (_frame_text(findings_lines), _frame_html(findings_lines)),
    "plan": (plan_text, plan_html),
    "run": (run_text, run_html),
    "diff": (diff_text, diff_html),
    "report": (report_text, report_html),
    "retrieval": (retrieval_text, retrieval_html),
}


def text_view(obj) -> str:
    """`repr()` of a Viewable: its plain-text view."""
    return _VIEWS[obj.view_name][0](obj)


def html_view(obj) -> str:
    """Jupyter's view of a Viewable: its HTML view."""
    return _VIEWS[obj.view_name][1](obj)
