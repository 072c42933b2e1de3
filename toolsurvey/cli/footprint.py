"""`toolsurvey footprint`: tokens per tool, server or part."""

from __future__ import annotations

import argparse

HELP = "measure the tokens a registry's tool definitions add to every request"


def configure(p: argparse.ArgumentParser) -> None:
    from ..providers.catalog import tool_choices
    from ._args import at_least, text
    from ._common import add_output_args, add_registry_args
    from ._measure import add_encoding_arg, add_render_arg

    add_registry_args(p)
    add_encoding_arg(p)
    add_render_arg(p, "how tools are turned into prompt text (default: %(default)s)", default="json")
    p.add_argument("--model", type=text, default=None, help="model whose provider constants apply (openai/anthropic renderings)")
    p.add_argument("--tool-choice", default="auto", choices=tool_choices(),
                   help="Anthropic tool_choice, which sets the tool-use system prompt size")
    p.add_argument("--by", default="tool", choices=("tool", "server", "part"), help="rows of the output")
    p.add_argument("--top", type=at_least(1), default=None, metavar="N", help="only the N largest rows")
    add_output_args(p)
    from ._counting import add_counting_args

    add_counting_args(p)


def run(args: argparse.Namespace) -> int:
    from ..core.text import plural
    from ..measuring.parts import PARTS, TEXT_COLUMNS, footprint_columns
    from ._common import emit, emit_rows, load_registry, say

    reg = load_registry(args)
    if not len(reg):
        say(f"warning: {', '.join(args.paths)}: no tools found; the tool definitions cost nothing")
    kw = dict(encoding=args.encoding, render=args.render, model=args.model, tool_choice=args.tool_choice)
    if args.by == "tool" and not (args.count_with or args.calibration or args.dry_run):
        columns, a = footprint_columns(reg, **kw)  # plain columns: no pandas, so it starts fast
    else:
        from ..measuring.footprint import footprint
        from ._counting import counted_table

        table = counted_table(reg, footprint(reg, **kw), args)  # --count-with / --calibration
        if table is None:  # a dry run
            return 0
        columns, a = {c: table[c].tolist() for c in table.columns}, table.attrs
    tokens = columns["tokens"]
    model = f", {a['model']}" if a.get("model") else ""
    header = (f"{plural(columns['kind'].count('tool'), 'tool')} in {plural(len(reg.servers), 'server')}: "
              f"{sum(tokens):,} tokens per request ({a['render']} rendering, {a['encoding']}{model})\n"
              f"method: {a['method']}")
    if args.by != "tool":
        from ..measuring.footprint import by_part, by_server

        out = by_server(table) if args.by == "server" else by_part(table)
        if args.top is not None:
            out = out.nlargest(args.top, "tokens") if args.by == "server" else out.head(args.top)
        emit(out.reset_index(drop=True), args.format, args.output, header, wide=args.wide)
        return 0
    rows = range(len(tokens))
    if args.format == "table" or args.top is not None:  # largest first, ties in their order
        rows = sorted(rows, key=lambda i: -tokens[i])[:args.top]
    keep = [c for c in PARTS if any(columns[c])] if args.format == "table" else list(PARTS)
    # In a narrow text table the tool column says what a row is ("(instructions)"): no kind column.
    kind = [] if args.format == "table" and not args.wide else ["kind"]
    cols = ["server", "tool", *kind, "tokens", *keep]
    emit_rows(cols, [[columns[c][i] for c in cols] for i in rows], args.format, args.output, header,
              numeric=[c not in TEXT_COLUMNS for c in cols], wide=args.wide)
    return 0
