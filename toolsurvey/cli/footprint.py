"""`toolsurvey footprint`: tokens per tool, server or part."""

from __future__ import annotations

import argparse
import sys

HELP = "measure the tokens a registry's tool definitions add to every request"


def configure(p: argparse.ArgumentParser) -> None:
    from ._args import at_least, text
    from ._common import add_output_args, add_registry_args

    add_registry_args(p)
    p.add_argument("--encoding", default=None, help="tiktoken encoding (default: o200k_base, or the model family's)")
    p.add_argument("--render", default="json", choices=("json", "sent", "openai", "anthropic"),
                   help="how tools are turned into prompt text (default: %(default)s)")
    p.add_argument("--model", type=text, default=None, help="model whose provider constants apply (openai/anthropic renderings)")
    p.add_argument("--tool-choice", default="auto", choices=("auto", "none", "any", "tool"),
                   help="Anthropic tool_choice, which sets the tool-use system prompt size")
    p.add_argument("--by", default="tool", choices=("tool", "server", "part"), help="rows of the output")
    p.add_argument("--top", type=at_least(1), default=None, metavar="N", help="only the N largest rows")
    add_output_args(p)
    from ._counting import add_counting_args

    add_counting_args(p)


def run(args: argparse.Namespace) -> int:
    from ..measure import PARTS, by_part, by_server, footprint, request_total, tools_only
    from ._common import emit, load_registry

    reg = load_registry(args)
    if not len(reg):
        print(f"warning: {', '.join(args.paths)}: no tools found; the tool definitions cost nothing",
              file=sys.stderr)
    table = footprint(reg, encoding=args.encoding, render=args.render, model=args.model,
                      tool_choice=args.tool_choice)
    from ._counting import counted_table

    table = counted_table(reg, table, args)  # --count-with / --calibration
    if table is None:  # a dry run
        return 0
    if args.by == "server":
        out = by_server(table)
    elif args.by == "part":
        out = by_part(table)
    else:
        rows = table if args.format != "table" else table.sort_values("tokens", ascending=False, kind="stable")
        keep = [c for c in PARTS if rows[c].any()] if args.format == "table" else list(PARTS)
        # In a narrow text table the tool column says what a row is ("(instructions)"): no kind column.
        kind = [] if args.format == "table" and not args.wide else ["kind"]
        out = rows[["server", "tool", *kind, "tokens", *keep]]
    if args.top is not None:
        out = out.nlargest(args.top, "tokens") if args.by != "part" else out.head(args.top)
    a = table.attrs
    model = f", {a['model']}" if a.get("model") else ""
    from .._rich import plural

    header = (f"{plural(len(tools_only(table)), 'tool')} in {plural(len(reg.servers), 'server')}: "
              f"{request_total(table):,} tokens per request ({a['render']} rendering, {a['encoding']}{model})\n"
              f"method: {a['method']}")
    emit(out.reset_index(drop=True), args.format, args.output, header, wide=args.wide)
    return 0
