"""`toolsurvey traces`: what agents actually did and paid, from Claude Code, OTel GenAI or provider logs."""

from __future__ import annotations

import argparse
import os

HELP = "read agent traces (Claude Code JSONL, OTLP JSON, provider request logs): billed tokens, cost, tool calls"


def configure(p: argparse.ArgumentParser) -> None:
    from ..core.choices import TRACE_BY, TRACE_ENGINES, TRACE_FORMATS
    from ._common import add_output_args

    p.add_argument("paths", nargs="+", metavar="PATH", help="trace files (.jsonl, .json, .gz), folders or globs")
    p.add_argument("--by", default="session", choices=TRACE_BY, help="rows: per session (default), model, day or tool")
    p.add_argument("--input-format", dest="input_format", default="auto", choices=("auto", *TRACE_FORMATS),
                   help="skip per-file detection")
    p.add_argument("--prices", default=None, metavar="FILE", help="price file (toolsurvey TOML or LiteLLM JSON)")
    p.add_argument("--engine", default="auto", choices=TRACE_ENGINES,
                   help="reader: auto (the built-in streaming reader), python, duckdb, dask")
    p.add_argument("--dask-scheduler", default=os.environ.get("DASK_SCHEDULER_ADDRESS"), metavar="ADDRESS",
                   help="Dask scheduler for --engine dask (default: $DASK_SCHEDULER_ADDRESS, else a local cluster)")
    p.add_argument("--compare", action="store_true",
                   help="each session's bill next to the session model's cost of the same session (fitted to the traces)")
    p.add_argument("--cv", action="store_true",
                   help="with --compare: predict each session with a model fitted on the other sessions only")
    add_output_args(p)
    from ._progress import add_quiet_arg

    add_quiet_arg(p)


def run(args: argparse.Namespace) -> int:
    from ..errors import InputError
    from ..inputs.traces.load import load_traces
    from ._common import emit, print_warnings, say
    from ._progress import Bar

    if args.cv and not args.compare:
        raise InputError("--cv needs --compare (it says how the compared model is fitted)")
    with Bar("reading trace files", quiet=args.quiet) as bar:
        tr = load_traces(args.paths, format=args.input_format, prices=args.prices, engine=args.engine,
                         scheduler=args.dask_scheduler, keep_results=False,  # counts only: bounded memory
                         progress=lambda total: bar.advance(total=total))
    print_warnings(tr.problems)
    if args.format != "table":
        say(tr.summary())
    if args.compare:
        table, header = _compared(tr, args.cv, args.prices)
        if args.format != "table":
            say(header)
        emit(table, args.format, args.output, header=tr.summary() + "\n" + header, wide=args.wide)
        return 0
    emit(tr.totals(args.by), args.format, args.output, header=tr.summary(), wide=args.wide)
    return 0


def _compared(tr, cv: bool, prices: str | None):
    """The compare table's columns the CLI shows, and the lines that sum it up."""
    import warnings

    from ..model.compare import compare

    with warnings.catch_warnings():  # the fitted scenario's own warnings say nothing about the bill
        warnings.simplefilter("ignore")
        table = compare(tr, cv=cv, **({"price_file": prices} if prices else {}))
    a = table.attrs
    how = "each session predicted from the others (leave one session out)" if cv else "fitted to every session"
    header = (f"session model, {how}: total {a['total_error']:+.1%} ({a['components']}); median |session error| "
              f"{a['median_abs_error']:.1%}\n{a['verdict']}")
    cols = ["session", "requests", "simulated_requests", "billed", "simulated", "error"]
    return table[cols], header
