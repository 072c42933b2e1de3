"""`toolsurvey report`: the cost report for stakeholders, as one HTML file, Markdown or CSV tables."""

from __future__ import annotations

import argparse
import sys

HELP = "write the cost report (self-contained HTML, Markdown or CSV) and print its executive summary"


def configure(p: argparse.ArgumentParser) -> None:
    from ._args import at_least
    from ._common import add_registry_args
    from ._measure import add_measure_args, add_scenario_options

    add_registry_args(p)
    p.add_argument("--scenario", metavar="TOML", help="scenario file: model, tasks per day, steps, caching, ...")
    p.add_argument("--usage", metavar="FILE", help="tool-call log (JSONL or CSV), or agent traces (Claude Code, "
                   "OTLP JSON, provider logs), for unused tools and response costs")
    p.add_argument("--own", default=None, metavar="SERVERS",
                   help="comma-separated servers you own: the plan may merge tools across them "
                        "(default: merges only within one server)")
    p.add_argument("--queries", metavar="FILE",
                   help='JSON Lines of {"id", "query", "gold"}: measure what a search finds, for the search levers, '
                        "the plan's deferred-loading stage and the findability table (docs/search.md)")
    p.add_argument("--eval", metavar="FILE",
                   help="an eval file (toolsurvey eval --format json, or its --log): add the section "
                        "\"What the model picks\" (accuracy, the pairs confused most, the tools skipped most); "
                        "an eval run with --defer prices the deferred-loading lever and the plan's stage at its "
                        "end-to-end rate (docs/eval.md)")
    add_measure_args(p)
    add_scenario_options(p)
    p.add_argument("--top", type=at_least(1), default=15, metavar="N", help="tools in the top-tools table (default: %(default)s)")
    p.add_argument("--title", default=None, help="the report's title")
    p.add_argument("--format", choices=("html", "markdown", "csv", "json"), default=None,
                   help="default: from the output's suffix (.md markdown, .json json, .csv or a folder csv), else html")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="where to write; - for standard output "
                        "(default: report.html; markdown and json without -o go to standard output)")


def run(args: argparse.Namespace) -> int:
    from ..errors import InputError
    from ..present.report.build import report
    from ..present.report.document import format_for
    from ._common import fit, load_registry, say, visible_lines
    from ._measure import measure_kwargs, scenario_options

    fmt = args.format or (format_for(args.output) if args.output else "html")
    if args.output == "-" and fmt == "csv":
        raise InputError("a CSV report is a folder of files; -o - (standard output) takes html or markdown")
    reg = load_registry(args)
    if not len(reg):
        raise InputError(f"{', '.join(args.paths)}: expected at least one tool, found none; nothing to report")
    rep = report(reg, scenario=args.scenario, usage=args.usage, top=args.top, title=args.title, own=args.own,
                 queries=args.queries, eval=args.eval, **measure_kwargs(args),
                 **scenario_options(args))
    if args.output == "-" or (fmt in ("markdown", "json") and not args.output):
        sys.stdout.write({"html": rep.to_html, "markdown": rep.to_markdown, "json": rep.to_json}[fmt]())
        say(rep.summary_text())
        return 0
    output = args.output or ("report.html" if fmt == "html" else "report-tables")
    paths = rep.save(output, format=fmt)
    print(fit(visible_lines(rep.summary_text())))
    where = paths[0].resolve() if fmt != "csv" else paths[0].resolve().parent
    what = {"html": "open it in a browser; it works offline", "markdown": "Markdown", "json": "JSON",
            "csv": f"{len(paths)} CSV files"}[fmt]
    print(fit(f"\nReport written to {where} ({what})"))
    return 0
