"""`toolsurvey responses`: what tool results cost, which fields cost it, and what trimming saves."""

from __future__ import annotations

import argparse

HELP = "measure tool results (files, folders, JSONL traces, MCP results, URLs): tokens, fields, trimming"


def configure(p: argparse.ArgumentParser) -> None:
    from ..core.choices import DEFAULT_CAP, SERIALIZATIONS
    from ._args import above, at_least
    from ._common import add_output_args
    from ._measure import add_encoding_arg

    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="JSON or text files, folders of samples, .jsonl traces, or http(s) URLs")
    p.add_argument("--by", default="tool", choices=("tool", "payload", "field", "rank", "step"),
                   help="rows: per tool (default), per result, per JSON field, record-level fields ranked "
                        "by cost (the recommendation view), or per trimming step")
    p.add_argument("--tool", default=None, help="tool name for files and URLs (default: the file's folder name)")
    p.add_argument("--server", default=None, help="server name for results that do not name one")
    add_encoding_arg(p, by_model=False)
    p.add_argument("--cap", type=at_least(1), default=DEFAULT_CAP, metavar="N",
                   help="tokens one result may carry (default: %(default)s, Claude Code's default)")
    p.add_argument("--header", action="append", default=[], metavar="'NAME: VALUE'",
                   help="HTTP header for URL sources (repeatable; values never appear in any output)")
    p.add_argument("--timeout", type=above(0), default=30.0, help="seconds to wait for a URL (default: %(default)s)")
    t = p.add_argument_group("trimming (applied in this order; the output gains trimmed sizes)")
    t.add_argument("--keep", default=None, metavar="PATHS", help="keep only these paths, e.g. 'number,title,labels[].name'")
    t.add_argument("--drop", default=None, metavar="PATHS", help="drop these paths, e.g. 'user,reactions'")
    t.add_argument("--drop-empty", action="store_true", help="drop null, empty string, empty list and empty object members")
    t.add_argument("--max-items", type=int, default=None, metavar="N", help="cap every list at N items, with a marker")
    t.add_argument("--truncate", type=int, default=None, metavar="N", help="cut strings longer than N (chars or tokens)")
    t.add_argument("--truncate-unit", default="chars", choices=("chars", "tokens"))
    t.add_argument("--serialize", default=None, choices=SERIALIZATIONS,
                   help="send results as compact JSON, pretty JSON, CSV or a Markdown table")
    p.add_argument("--depth", type=at_least(1), default=None, metavar="N", help="with --by field: only paths up to depth N")
    p.add_argument("--top", type=at_least(1), default=None, metavar="N",
                   help="only the N largest rows (with --by field or rank: per tool)")
    add_output_args(p)


def _check_paths(text: str | None, flag: str) -> None:
    """A --keep/--drop list must parse: dotted keys, each optionally with [] list steps; raises InputError."""
    import re

    from ..core.jsontree import path_parts
    from ..errors import InputError
    from ..measuring.trimming.steps import parse_paths

    for path in parse_paths(text):
        if not path_parts(path):
            continue  # trimming says it names no field
        if not re.fullmatch(r"(?:\[\])*[^.\[\]]+(?:\[\])*(?:\.(?:\[\])*[^.\[\]]+(?:\[\])*)*", path.replace(" ", "")):
            raise InputError(f"{flag}: cannot parse path {path!r}; expected dotted keys with [] for lists, "
                             "e.g. 'number,title,labels[].name'")


def _unmatched(payloads: list, keep: str) -> list[int]:
    """Indices of the JSON results in which no --keep path matched anything."""
    from ..measuring.trimming.steps import keep_paths

    out = []
    for i, p in enumerate(payloads):
        if p.is_json:
            try:
                matched = keep_paths(p.value, keep)[2]
            except RecursionError:  # deeper than trimming walks: trim_many already warned
                continue
            if not matched:
                out.append(i)
    return out


def _trimming(args: argparse.Namespace) -> dict | None:
    opts = dict(keep=args.keep, drop=args.drop, drop_empty=args.drop_empty, max_items=args.max_items,
                truncate=args.truncate, truncate_unit=args.truncate_unit, serialize=args.serialize or "json")
    chosen = args.keep or args.drop or args.drop_empty or args.max_items is not None or \
        args.truncate is not None or args.serialize is not None
    return opts if chosen else None


def run(args: argparse.Namespace) -> int:
    from ._common import emit, print_warnings

    _check_paths(args.keep, "--keep")
    _check_paths(args.drop, "--drop")
    trimming = _trimming(args)
    table, sources, kw, warnings, missed = _measure(args, trimming)
    header = _header(table, args.cap, trimming, missed)
    out, attribution = _rows(args, table, sources, kw, trimming)
    if attribution is not None:
        header += f"\nattribution: {attribution}"
    if args.top is not None:
        if args.by in ("field", "rank"):
            out = out.groupby("tool", sort=False).head(args.top)  # the N costliest paths of each tool
        else:
            out = out.head(args.top) if args.by == "step" else out.nlargest(args.top, "tokens")
    print_warnings(warnings)
    emit(out.reset_index(drop=True), args.format, args.output, header, wide=args.wide)
    return 0


def _measure(args: argparse.Namespace, trimming: dict | None):
    """(table, sources, their options, warnings, unmatched): the results measured, trimmed when asked;
    the results no --keep path matched (their indices: unmatched) get no trimmed size."""
    from ..inputs.payload_sources import read_payloads
    from ..measuring.responses import measure_responses

    if trimming is None and not any(p.lower().startswith(("http://", "https://")) for p in args.paths):
        # Files and traces are read as they are measured, one result at a time (a large trace is
        # never held whole); --by field reads them a second time rather than keep them.
        sources, kw, warnings = tuple(args.paths), dict(tool=args.tool, server=args.server), []
    else:  # a URL is fetched once; trimming compares every result before and after
        payloads, warnings = read_payloads(*args.paths, tool=args.tool, server=args.server, headers=args.header,
                                           timeout=args.timeout)
        sources, kw = (payloads,), {}
    table = measure_responses(*sources, encoding=args.encoding, cap=args.cap, trimming=trimming, **kw)
    warnings = warnings + [w for w in table.attrs["warnings"] if w not in warnings]
    missed = _unmatched(payloads, args.keep) if args.keep else []
    if missed:
        table.loc[table.index[missed], "trimmed"] = float("nan")
        warnings += [f"{table['source'].iloc[i] or table['tool'].iloc[i]}: no --keep path matched anything in "
                     "this result; left out of the trimmed ratio" for i in missed]
    return table, sources, kw, warnings, missed


def _header(table, cap: int, trimming: dict | None, missed: list[int]) -> str:
    """The lines above the table: results, tokens and the cap; the trimmed total; the method."""
    total = int(table["tokens"].sum())
    over = int(table["over_cap"].sum())
    n, tools = len(table), table["tool"].nunique()
    header = (f"{n:,} result{'s' * (n != 1)} from {tools:,} tool{'s' * (tools != 1)}: {total:,} tokens "
              f"({table.attrs['encoding']}); {over:,} over the {cap:,}-token cap")
    if trimming:
        counted = table["trimmed"].notna()
        after, before = int(table.loc[counted, "trimmed"].sum()), int(table.loc[counted, "tokens"].sum())
        if not counted.any():
            header += f"\ntrimmed: the keep list matched nothing in any of the {n:,} results; no ratio"
        else:
            header += f"\ntrimmed: {after:,} tokens, {before / after:.1f}x smaller" if after else "\ntrimmed: 0 tokens"
        if missed and counted.any():
            header += (f" (over the {int(counted.sum()):,} results the keep list matched; {len(missed):,} of "
                       f"{n:,} matched nothing and are left out)")
    return header + f"\nmethod: {table.attrs['method']}"


def _rows(args: argparse.Namespace, table, sources: tuple, kw: dict, trimming: dict | None):
    """(the table --by asks for, the field attribution's method or None). Raises InputError for
    --by step without a trimming option."""
    import pandas as pd

    from ..errors import InputError
    from ..measuring.responses import field_costs, rank_fields, response_stats

    if args.by in ("field", "rank"):
        costs = field_costs(*sources, encoding=args.encoding, **kw)
        if args.by == "rank":
            return rank_fields(costs, keep=args.keep), costs.attrs["method"]
        out = costs if args.depth is None else costs[costs["depth"] <= args.depth]
        return out.drop(columns=["payloads"]), costs.attrs["method"]
    if args.by == "payload":
        cols = ["tool", "server", "source", "kind", "bytes", "tokens", "over_cap"]
        out = table[cols + (["trimmed"] if trimming else [])].copy()
        out["over_cap"] = out["over_cap"].map({True: "yes", False: ""})
        return (out.sort_values("tokens", ascending=False, kind="stable") if args.format == "table" else out), None
    if args.by == "step":
        if not trimming:
            raise InputError("--by step needs a trimming option (--keep, --drop, --drop-empty, --max-items, "
                             "--truncate or --serialize)")
        return pd.DataFrame(table.attrs["trim_steps"]), None
    return response_stats(table), None
