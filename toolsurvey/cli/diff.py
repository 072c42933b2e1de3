"""`toolsurvey diff`: what changed between two versions of a tool surface, and what it costs."""

from __future__ import annotations

import argparse
import json

HELP = "compare two registries: tools added, removed or changed, and the token and cost change"


def configure(p: argparse.ArgumentParser) -> None:
    from ._args import at_least
    from ._common import add_output_args
    from ._measure import add_measure_args

    p.add_argument("old", metavar="OLD", help="the registry before the change (any tool file format)")
    p.add_argument("new", metavar="NEW", help="the registry after the change")
    p.add_argument("--scenario", metavar="TOML", help="scenario file: adds tokens per task and cost per month")
    add_measure_args(p)
    p.add_argument("--top", type=at_least(1), default=50, metavar="N", help="at most N tools in the table (default: %(default)s)")
    add_output_args(p, formats=("table", "markdown", "csv", "json"))


def run(args: argparse.Namespace) -> int:
    from ..advice.diff import diff
    from ..present.diff_comment import diff_markdown
    from ._common import emit, load_registry, write
    from ._measure import measure_kwargs

    old = load_registry(argparse.Namespace(paths=[args.old], input_format=None))
    new = load_registry(argparse.Namespace(paths=[args.new], input_format=None))
    d = diff(old, new, args.scenario, **measure_kwargs(args))
    if args.format == "markdown":
        write(diff_markdown(d, top=args.top), args.output)
    elif args.format == "json":
        out = {"summary": d.summary(), "request_old": d.request_old, "request_new": d.request_new,
               "request_delta": d.request_delta, "security_changes": len(d.security_changes), **d.costs,
               "tools": json.loads(d.changes.to_json(orient="records")), "method": d.method}
        write(json.dumps(out, indent=2, ensure_ascii=False) + "\n", args.output)
    else:
        rows = d.changes.head(args.top) if args.format == "table" else d.tools
        if args.format == "table":  # a tool that is absent on one side shows an empty cell
            rows = rows.astype({"tokens_old": object, "tokens_new": object}).fillna("")
        header = d.summary() + (f"\nscenario: {d.costs['scenario']}" if d.costs.get("scenario") else "")
        if args.format == "table":  # in full above the table, whose cells a narrow terminal cuts
            header += "".join(f"\nsecurity: {r.server}/{r.tool}: {r.security}"
                              for r in d.security_changes.itertuples(index=False))
        if args.format == "table" and rows.empty:
            write(header + "\n", args.output)
        else:
            emit(rows.reset_index(drop=True), args.format, args.output, header, wide=args.wide)
    return 0
