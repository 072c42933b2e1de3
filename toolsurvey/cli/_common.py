"""Options and output shared by the sub-commands."""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import re
import sys
from collections.abc import Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from ..core.writing import STDOUT, atomic_write, safe_text, spreadsheet_safe
from ..errors import InputError
from ..present.markdown import visible

if TYPE_CHECKING:  # pandas is imported where a table is rendered, so parsing arguments stays fast
    import pandas as pd

FORMATS_OUT = ("table", "csv", "json")
MAX_WARNINGS = 20
_NUMBER = re.compile(r"[-+]?\$?[-+]?[\d,.]+%?( points| tokens)?|-|–|")
DEFAULT_WIDTH = 100  # columns of a line or text table when the stream is not a terminal
_wide = ContextVar("wide", default=False)  # --wide, for the whole run (set by cli.main)


def add_registry_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="tool files, folders of them, registry files or discovery snapshots")
    p.add_argument("--input-format", dest="input_format", default=None,
                   help="skip detection: mcp, openai-chat, openai-responses, anthropic, gemini, registry")


def load_registry(args: argparse.Namespace):
    from ..inputs.formats import load

    reg = load(*args.paths, format=args.input_format)
    print_warnings(reg.warnings)
    return reg


def print_warnings(warnings: list[str]) -> None:
    """Each warning on standard error (the first MAX_WARNINGS, then how many more), wrapped to fit."""
    for w in warnings[:MAX_WARNINGS]:
        say(f"warning: {w}")
    if len(warnings) > MAX_WARNINGS:
        say(f"warning: … and {len(warnings) - MAX_WARNINGS} more")


def say(text: str, stream=None) -> None:
    """Print a message (a note, warning or progress line) on standard error, or `stream`: control and
    bidi characters escaped, each line wrapped to the width the stream allows. Every line a command
    prints that is not a table, JSON or CSV goes through here or through `fit`."""
    stream = sys.stderr if stream is None else stream
    print(fit(visible_lines(str(text)), stream=stream), file=stream, flush=True)


def add_output_args(p: argparse.ArgumentParser, formats=FORMATS_OUT) -> None:
    p.add_argument("--format", choices=formats, default=formats[0], help="output format (default: %(default)s)")
    add_output_file_arg(p)
    add_wide_arg(p)


def add_fail_on(p: argparse.ArgumentParser, what: str) -> None:
    """`--fail-on`: the audit's severities (and their old names) from their one table."""
    from ..core.severity import ALIASES, CHOICES, SEVERITIES

    old = "; ".join(f"'{a}' is the old name of {n}" for a, n in ALIASES.items())
    p.add_argument("--fail-on", dest="fail_on", choices=CHOICES, default=None,
                   help=f"{what}: {' < '.join(SEVERITIES)} ({old})")


def add_wide_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--wide", action="store_true",
                   help="keep long lines and table cells whole (default: fit the terminal, or 100 columns)")


@contextlib.contextmanager
def output_width(wide: bool) -> Iterator[None]:
    """Within the block, lines and tables keep their whole width when `wide` (the CLI's --wide)."""
    token = _wide.set(wide)
    try:
        yield
    finally:
        _wide.reset(token)


def table_width(wide: bool | None = None, stream=None) -> int | None:
    """Columns a line may use on `stream` (standard output by default): the terminal's, 100 when it
    is not a terminal, None (no limit) with --wide."""
    import shutil

    if wide or (wide is None and _wide.get()):
        return None
    stream = sys.stdout if stream is None else stream
    tty = getattr(stream, "isatty", lambda: False)()
    return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns if tty else DEFAULT_WIDTH


def fit(text: str, wide: bool | None = None, stream=None) -> str:
    """Lines longer than the width wrapped at spaces (a word longer than the width is broken), each
    continuation indented two more spaces than the line it continues."""
    import textwrap

    width = table_width(wide, stream)
    if width is None:
        return text
    out = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        indent = line[:len(line) - len(line.lstrip())]
        out.append(textwrap.fill(line, width, subsequent_indent=indent + "  ", break_on_hyphens=False))
    return "\n".join(out)


def add_output_file_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write to FILE (atomically; devices, FIFOs and - are written through) instead of standard output")


def _cell(v: Any, col: str) -> str:
    """The one place a table cell becomes text: numbers with their column's unit (`toolsurvey.present.units`),
    third-party text with control and bidi characters escaped so it cannot drive the terminal."""
    from ..present.units import cell

    return "" if v is None else visible(cell(v, col))


def _widths(cols: list[str], cells: list[list[str]], numeric: list[bool], width: int | None) -> tuple[list[int], bool]:
    """Column widths within `width` (2 spaces between columns) and whether headers must wrap.

    When the table is too wide, headers wrap at their words and numbers keep their width; text
    columns share what is left, a narrow one keeping its own width and the widest ones cut first.
    """
    natural = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(cols)]
    gaps = 2 * (len(cols) - 1)
    if width is None or sum(natural) + gaps <= width:
        return natural, False
    data = [max([len(r[i]) for r in cells], default=0) for i in range(len(cols))]
    word = [max(len(w) for w in c.replace("_", " ").split() or [""]) for c in cols]
    out = [max(d, min(w, 14)) if num else max(d, w) for d, w, num in zip(data, word, numeric, strict=True)]
    left = width - gaps - sum(w for w, num in zip(out, numeric, strict=True) if num)
    text = sorted((n, i) for i, (n, num) in enumerate(zip(out, numeric, strict=True)) if not num)
    for k, (n, i) in enumerate(text):
        out[i] = min(n, max(left // (len(text) - k), 8))
        left -= out[i]
    return out, True


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[:max(width - 1, 0)] + "…"


def render_table(df: pd.DataFrame, *, wide: bool | None = None) -> str:
    """An aligned text table that fits `table_width`: numbers right-aligned with their units, long
    text cut with an ellipsis (all of it with `wide`)."""
    import pandas as pd

    numeric = [pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c]) for c in df.columns]
    return text_table(list(df.columns), df.itertuples(index=False), numeric, wide)


def text_table(columns: list[str], rows, numeric: list[bool], wide: bool | None = None) -> str:
    """`render_table` of rows of values, `numeric` saying which columns hold numbers. A short table
    of numbers too wide for the width even with its headers wrapped is shown turned: one row per
    column, one column per row (named by its first cell)."""
    cols = [visible(c) for c in columns]
    cells = [[_cell(v, c) for c, v in zip(cols, row, strict=True)] for row in rows]
    # Columns of numbers already written as text (e.g. "$0.46", "-3.2 points") align right too.
    numeric = [num or bool(cells) and all(_NUMBER.fullmatch(r[i]) for r in cells) for i, num in enumerate(numeric)]
    width = table_width(wide)
    widths, wrap = _widths(cols, cells, numeric, width)
    if width is not None and sum(widths) + 2 * (len(cols) - 1) > width and 0 < len(cells) <= _TURN_ROWS \
            and len(cols) > 2 and not numeric[0]:
        turned = [[c.replace("_", " ")] + [r[i] for r in cells] for i, c in enumerate(cols[1:], 1)]
        cols, cells = [cols[0]] + [r[0] for r in cells], turned
        numeric = [False] + [True] * (len(cols) - 1)
        widths, wrap = _widths(cols, cells, numeric, width)
    return _rich_table(cols, cells, numeric, widths, wrap)


_TURN_ROWS = 12  # at most this many rows are turned into columns


def _rich_table(cols: list[str], cells: list[list[str]], numeric: list[bool], widths: list[int], wrap: bool) -> str:
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1), collapse_padding=True,
              header_style="", expand=False)
    for c, num, w in zip(cols, numeric, widths, strict=True):
        # Cells are already cut to the width, so only a header can wrap (at its words).
        head = Text(c.replace("_", " ")) if wrap else Text(c)
        t.add_column(head, justify="right" if num else "left", no_wrap=not wrap, width=w, overflow="fold")
    for row in cells:
        t.add_row(*(Text(_clip(v, w)) for v, w in zip(row, widths, strict=True)))
    console = Console(file=io.StringIO(), width=sum(widths) + 2 * len(widths) + 2, color_system=None,
                      markup=False, emoji=False, highlight=False, force_terminal=False, soft_wrap=False)
    console.print(t)
    return "\n".join(line.rstrip() for line in console.file.getvalue().splitlines()).strip("\n")


def emit(df: pd.DataFrame, fmt: str, output: str | None, header: str = "", *, wide: bool | None = None) -> None:
    """Print or write a table as text, CSV or JSON records."""
    if fmt == "csv":
        text = spreadsheet_safe(df).to_csv(index=False)
    elif fmt == "json":
        text = json.dumps(json.loads(df.to_json(orient="records")), indent=2, ensure_ascii=False) + "\n"
    else:
        text = _titled(header, render_table(df, wide=wide), wide)
    write(text, output)


def emit_rows(columns: list[str], rows: list[list], fmt: str, output: str | None, header: str = "", *,
              numeric: list[bool], wide: bool | None = None) -> None:
    """`emit` for rows of plain values (text, or whole numbers where `numeric`), without pandas."""
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([[safe_text(v) for v in row] for row in rows])
        text = buf.getvalue()
    elif fmt == "json":
        text = json.dumps([dict(zip(columns, row, strict=True)) for row in rows], indent=2, ensure_ascii=False) + "\n"
    else:
        text = _titled(header, text_table(columns, rows, numeric, wide), wide)
    write(text, output)


def _titled(header: str, table: str, wide: bool | None) -> str:
    return (fit(visible_lines(header), wide) + "\n\n" if header else "") + table + "\n"


def visible_lines(text: str) -> str:
    """`text` with control and bidi characters escaped in each line (see _markdown.visible)."""
    return "\n".join(visible(line) for line in text.split("\n"))


def write(text: str, output: str | None) -> None:
    """Write `text` to `output` atomically, or to standard output; raises InputError if it cannot."""
    # Lone surrogates (from JSON escapes like "\\ud800" in third-party text) cannot be encoded as UTF-8.
    text = text.encode("utf-8", "replace").decode("utf-8")
    if output and output != STDOUT:
        try:
            atomic_write(output, text)
        except OSError as e:
            raise InputError(f"cannot write {output}: {e.strerror}") from None
        say(f"wrote {output}")
    else:
        sys.stdout.write(text)
