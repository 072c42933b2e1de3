"""Options and output shared by the sub-commands."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from .._io import STDOUT, atomic_write, spreadsheet_safe
from .._markdown import visible
from ..errors import InputError

if TYPE_CHECKING:  # pandas is imported where a table is rendered, so parsing arguments stays fast
    import pandas as pd

FORMATS_OUT = ("table", "csv", "json")
MAX_WARNINGS = 20


def add_registry_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="tool files, folders of them, registry files or discovery snapshots")
    p.add_argument("--input-format", dest="input_format", default=None,
                   help="skip detection: mcp, openai-chat, openai-responses, anthropic, gemini, registry")


def load_registry(args: argparse.Namespace):
    from ..formats import load

    reg = load(*args.paths, format=args.input_format)
    print_warnings(reg.warnings)
    return reg


def print_warnings(warnings: list[str]) -> None:
    for w in warnings[:MAX_WARNINGS]:
        print(f"warning: {visible(w)}", file=sys.stderr)
    if len(warnings) > MAX_WARNINGS:
        print(f"warning: … and {len(warnings) - MAX_WARNINGS} more", file=sys.stderr)


def add_output_args(p: argparse.ArgumentParser, formats=FORMATS_OUT) -> None:
    p.add_argument("--format", choices=formats, default=formats[0], help="output format (default: %(default)s)")
    add_output_file_arg(p)


def add_output_file_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write to FILE (atomically; devices, FIFOs and - are written through) instead of standard output")


def _cell(v: Any, col: str) -> str:
    if isinstance(v, float) and (col == "share" or col.endswith("_share")):
        return f"{v:.1%}"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:,.0f}" if abs(v) >= 100 else f"{v:,.2f}".rstrip("0").rstrip(".")
    return "" if v is None else visible(v)  # third-party text must not drive the terminal


def render_table(df: pd.DataFrame) -> str:
    """A plain aligned text table: numbers right-aligned with separators, shares as percents."""
    import pandas as pd

    cols = [visible(c) for c in df.columns]
    cells = [[_cell(v.item() if hasattr(v, "item") else v, c) for c, v in zip(cols, row, strict=True)]
             for row in df.itertuples(index=False)]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(cols)]
    numeric = [pd.api.types.is_numeric_dtype(df[c]) for c in df.columns]

    def line(values):
        return "  ".join(v.rjust(w) if num else v.ljust(w)
                         for v, w, num in zip(values, widths, numeric, strict=True)).rstrip()

    return "\n".join([line(cols), line(["-" * w for w in widths])] + [line(r) for r in cells])


def emit(df: pd.DataFrame, fmt: str, output: str | None, header: str = "") -> None:
    """Print or write a table as text, CSV or JSON records."""
    if fmt == "csv":
        text = spreadsheet_safe(df).to_csv(index=False)
    elif fmt == "json":
        text = json.dumps(json.loads(df.to_json(orient="records")), indent=2, ensure_ascii=False) + "\n"
    else:
        text = (visible_lines(header) + "\n\n" if header else "") + render_table(df) + "\n"
    write(text, output)


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
        print(f"wrote {output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
