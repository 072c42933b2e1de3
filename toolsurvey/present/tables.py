"""Tables as a notebook shows them: numbers with their units, text wrapped to the panel, long tables
paged (itables) or cut with a line saying how to get the rest, and marked so that MathJax leaves
them alone ("$0.29 → $0.18" is money, not a formula).

One place decides how a column is shown, from its name (`units.kind_of`): dollars, percentages and
counts with thousands separators. pandas' Styler formats the view, so the data keeps its raw numbers.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import pandas as pd

from ..core.text import plural
from .units import FORMATTERS, MONEY_UNITS, kind_of, money, number, percent, points

SHOWN_ROWS = 30  # rows shown before "… N more rows" (itables, when installed, pages them instead)
ITABLES = {"on": False}  # set by toolsurvey.present.display.notebook_mode once itables' JavaScript is in the notebook
# JupyterLab, Jupyter Notebook and nbconvert typeset "$...$" in HTML outputs with MathJax unless an
# ancestor carries one of these classes (MathJax 2 reads the first, MathJax 3 the second).
NO_MATH = "tex2jax_ignore mathjax_ignore"
# Text wraps (long names break anywhere rather than widen the table); numbers stay on one line.
_CSS = [
    {"selector": "", "props": "table-layout: auto; width: auto; max-width: 100%; border-collapse: collapse"},
    {"selector": "th", "props": "white-space: normal; overflow-wrap: anywhere; vertical-align: bottom; "
                                "max-width: 11em; text-align: left"},
    {"selector": "td", "props": "vertical-align: top"},
]
TEXT_CELL = {"white-space": "normal", "overflow-wrap": "anywhere", "max-width": "32em", "text-align": "left"}
NUMBER_CELL = {"white-space": "nowrap", "text-align": "right"}


# Headers that say more than the column's name.
HEADERS = {"ratio": "times smaller", "p50": "median", "over_cap": "over the cap"}


def header(column) -> str:
    """A column's name as its header: words, not identifiers (`cost_per_task` -> "cost per task")."""
    return HEADERS.get(str(column), str(column).replace("_", " "))


def _numeric(df: pd.DataFrame) -> list:
    return [c for c in df.columns if pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])]


def styler(df: pd.DataFrame, *, unit_column: str | None = None, units: dict | None = None):
    """A pandas Styler that shows `df` with units and wrapped text, leaving its data as it is.

    Columns are formatted by their name (`units.kind_of`), or by `units` (column -> "money",
    "percent" or "number") where the name does not say. With `unit_column` (rows of mixed units,
    e.g. a plan's before/after table), numbers in each row are formatted by that row's unit.
    """
    st = df.style
    numeric = _numeric(df)
    kind = lambda c: (units or {}).get(c) or kind_of(c)
    if unit_column is None:
        st = st.format({c: FORMATTERS[kind(c)] for c in numeric}, na_rep="–")
    else:
        for unit, rows in df.groupby(unit_column, sort=False).groups.items():
            fmt = money if unit in MONEY_UNITS else percent if unit == "share" else number
            cols = [c for c in numeric if kind_of(c) != "percent"]
            st = st.format(fmt, subset=pd.IndexSlice[list(rows), cols], na_rep="–")
            if unit == "share" and "change" in cols:  # a change of a share is in percentage points
                st = st.format(points, subset=pd.IndexSlice[list(rows), ["change"]], na_rep="–")
        st = st.format(percent, subset=[c for c in numeric if kind_of(c) == "percent"], na_rep="–")
    text = [c for c in df.columns if c not in numeric]
    st = st.format(lambda v: html.escape(str(v)), subset=text, na_rep="")  # third-party names stay literal
    st = st.set_properties(subset=numeric, **NUMBER_CELL).set_properties(subset=text, **TEXT_CELL)
    st = st.set_table_styles(_CSS + [{"selector": f"th.col_heading.col{i}", "props": "text-align: right"}
                                     for i, c in enumerate(df.columns) if c in numeric], overwrite=False)
    st = st.relabel_index([html.escape(header(c)) for c in df.columns], axis="columns")
    return st.hide(axis="index").set_table_attributes(f'class="toolsurvey-table {NO_MATH}"')


def table_html(df: pd.DataFrame, *, caption: str = "", unit_column: str | None = None,
               rest: str = "the object holds them all", units: dict | None = None) -> str:
    """A titled, formatted table; longer than SHOWN_ROWS rows it is paged by itables when installed,
    else cut, with a line saying how many rows are left out and where they are (`rest`)."""
    head = f"<h4>{html.escape(caption)}</h4>" if caption else ""
    if len(df) <= SHOWN_ROWS:
        return head + styler(df, unit_column=unit_column, units=units).to_html()
    if ITABLES["on"]:
        from itables import to_html_datatable

        # Safe as HTML: the Styler escapes every text cell (third-party names) itself.
        return head + to_html_datatable(styler(df, unit_column=unit_column, units=units), connected=False, allow_html=True,
                                        autoWidth=False, classes="display compact " + NO_MATH,
                                        # sort from a click anywhere in the header, not its small arrow only
                                        text_in_header_can_be_selected=False)
    left = len(df) - SHOWN_ROWS
    return (head + styler(df.head(SHOWN_ROWS), unit_column=unit_column, units=units).to_html()
            + f"<p><em>… {plural(left, 'more row')} ({html.escape(rest)}; "
              "<code>pip install 'toolsurvey[tables]'</code> pages them here)</em></p>")


def rich_html(title: str, lines: Sequence[str], tables: Sequence[tuple[str, pd.DataFrame, str | None]] = (),
              *, after: str = "") -> str:
    """A Jupyter view: a title, headline lines, then formatted tables (caption, data, unit column),
    then `after` (HTML), in one block MathJax leaves alone."""
    parts = [f'<div class="toolsurvey-rich {NO_MATH}"><strong>{html.escape(title)}</strong>']
    if lines:
        parts.append("<ul>" + "".join(f"<li>{html.escape(x)}</li>" for x in lines) + "</ul>")
    parts += [table_html(df, caption=caption, unit_column=unit) for caption, df, unit in tables]
    return "".join(parts) + after + "</div>"


def same_on_every_row(df: pd.DataFrame) -> dict:
    """The columns that hold one value on every row (of three rows or more), column -> that value."""
    if len(df) < 3:
        return {}
    return {c: df[c].iloc[0] for c in df.columns if df[c].nunique(dropna=False) == 1}


class Table:
    """A table to display in a notebook: the `columns` a reader needs ("auto": every column but those
    with one value on every row, which the caption states once), numbers with units, long text
    wrapped, long tables paged or cut (`rest` says where the other rows are)."""

    def __init__(self, df, *, caption: str = "", columns: Sequence | str | None = "auto",
                 unit_column: str | None = None, units: dict | None = None,
                 rest: str = "the DataFrame holds them all") -> None:
        if isinstance(df, pd.DataFrame) or columns in (None, "auto"):
            df = pd.DataFrame(df)
        else:  # rows (e.g. tuples) and the names of their columns
            df = pd.DataFrame(list(df), columns=list(columns))
        self.units = units
        if columns == "auto":
            same = {c: v for c, v in same_on_every_row(df).items() if c != unit_column}
            if same and len(same) < len(df.columns):
                said = ", ".join(f"{header(c)} {FORMATTERS[(units or {}).get(c) or kind_of(c)](v) if c in _numeric(df) else v}"
                                 for c, v in same.items())
                caption = f"{caption} (on every row: {said})" if caption else f"On every row: {said}"
                df = df[[c for c in df.columns if c not in same]]
        elif columns is not None:
            df = df[list(columns)]
        self.data, self.caption, self.unit_column, self.rest = df, caption, unit_column, rest

    def _repr_html_(self) -> str:
        body = table_html(self.data, caption=self.caption, unit_column=self.unit_column, rest=self.rest, units=self.units)
        return f'<div class="toolsurvey-rich {NO_MATH}">{body}</div>'

    def __repr__(self) -> str:
        return (f"{self.caption}\n" if self.caption else "") + self.data.to_string(max_rows=SHOWN_ROWS)
