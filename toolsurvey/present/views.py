"""The rich (HTML) and plain views of toolsurvey's results in Jupyter: headline figures, then tables
with units (`tables`), each view one block MathJax leaves alone. Assumptions and warnings have
views of their own (`caveats`).
"""

from __future__ import annotations

import pandas as pd

from .caveats import assumptions_html, assumptions_text, warnings_html, warnings_list, warnings_text
from .retrieval import by_k, findability, view_lines
from .tables import rich_html
from .units import MONEY_UNITS, is_missing, money, number, percent, plural


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


def footprint_columns(df: pd.DataFrame) -> list[str]:
    """The columns a reader needs of a footprint table: server, tool, kind (when rows of other kinds
    are there), total tokens, then each part that holds any token."""
    first = [c for c in ("server", "tool") if c in df] + (["kind"] if "kind" in df and df["kind"].nunique() > 1 else [])
    parts = [c for c in df.columns if c not in (*first, "kind", "tokens") and pd.api.types.is_numeric_dtype(df[c])
             and df[c].abs().sum() > 0]
    return first + (["tokens"] if "tokens" in df else []) + parts


FINDING_COLUMNS = ("severity", "rule", "server", "tool", "tokens", "evidence", "fix")


def _footprint_html(df) -> str:
    df = pd.DataFrame(df)
    caption = "Tokens per tool, by part (parts with no tokens left out)"
    return rich_html(*footprint_lines(df), [(caption, df[footprint_columns(df)], None)])


def _findings_html(df) -> str:
    df = pd.DataFrame(df)
    return rich_html(*findings_lines(df), [("Findings, as ranked", df[[c for c in FINDING_COLUMNS if c in df]], None)])


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
    return title, lines


def plan_html(p) -> str:
    title, lines = _plan_lines(p)
    actions = p.actions_table().sort_values("tokens_per_task", ascending=False, kind="stable")
    return rich_html(title, lines, [("Before and after (simulated)", p.table, "unit"),
                                    ("After each stage", p.stages, None),
                                    ("Actions, largest saving first", actions, None)],
                     after=warnings_list(p.warnings))


def plan_text(p) -> str:
    title, lines = _plan_lines(p)
    return plain(title, lines + [f"warning: {w}" for w in p.warnings[:5]])


# Columns of a run's request-by-request table; the prompt parts that are the same on every request
# (system prompt, user message, provider overhead) are said once above it instead.
STEP_COLUMNS = ("request", "kind", "phase", "visible", "input", "tools", "history", "uncached", "cache_write",
                "cache_read", "output", "cost")


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
    return title, lines


def _steps_view(steps: pd.DataFrame) -> tuple[str, pd.DataFrame]:
    same = [f"{label} {number(steps[c].iloc[0])}" for c, label in (("system", "system prompt"), ("user", "user message"),
                                                                 ("overhead", "provider overhead"))
            if c in steps and len(steps) and steps[c].nunique() == 1]
    cols = [c for c in STEP_COLUMNS if c in steps and not (c == "phase" and steps[c].nunique() <= 1)]
    caption = "One task, request by request (tokens)" + (f"; on every request: {', '.join(same)} tokens" if same else "")
    return caption, steps[cols]


def run_html(run) -> str:
    title, lines = _run_lines(run)
    tables = [(*_steps_view(run.steps), None)]
    if run.percentiles is not None:
        tables.insert(0, ("Monte Carlo percentiles", run.percentiles.reset_index(names=""), None))
    return rich_html(title, lines, tables, after=warnings_list(run.warnings))


def run_text(run) -> str:
    title, lines = _run_lines(run)
    return plain(title, lines + [f"warning: {w}" for w in run.warnings[:5]])


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
    return rich_html(title, lines, tables, after="<p><em>report.save('report.html') writes the full report</em></p>")


def report_text(rep) -> str:
    return plain(*_report_lines(rep)) + f"\n  tables: {', '.join(rep.tables)}"


def retrieval_html(ev) -> str:
    title, lines = view_lines(ev)
    return rich_html(title, lines, [("hit@k and recall@k by k", by_k(ev), None),
                                    (f"Findability in the top {ev.find_k}, least found first", findability(ev), None)])


def retrieval_text(ev) -> str:
    return plain(*view_lines(ev))


def selection_html(ev) -> str:
    from . import selection as sel

    title, lines = sel.view_lines(ev)
    return rich_html(title, lines, [("Per tool", sel.per_tool_frame(ev), None),
                                    ("Confusion: expected (rows) against called (columns)",
                                     sel.confusion_frame(ev).reset_index(), None)])


def selection_text(ev) -> str:
    from . import selection as sel

    return plain(*sel.view_lines(ev))


# view name (a Viewable's `view_name`) -> (text view, HTML view)
_VIEWS = {
    "footprint": (_frame_text(footprint_lines), _footprint_html),
    "findings": (_frame_text(findings_lines), _findings_html),
    "plan": (plan_text, plan_html),
    "run": (run_text, run_html),
    "diff": (diff_text, diff_html),
    "report": (report_text, report_html),
    "retrieval": (retrieval_text, retrieval_html),
    "selection": (selection_text, selection_html),
    "assumptions": (assumptions_text, assumptions_html),
    "warnings": (warnings_text, warnings_html),
}


def text_view(obj) -> str:
    """`repr()` of a Viewable: its plain-text view."""
    return _VIEWS[obj.view_name][0](obj)


def html_view(obj) -> str:
    """Jupyter's view of a Viewable: its HTML view."""
    return _VIEWS[obj.view_name][1](obj)
