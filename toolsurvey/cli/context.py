"""`toolsurvey context`: what an MCP client puts in the model's context, per server and per tool."""

from __future__ import annotations

import argparse

HELP = "what an MCP client (Claude Code, Codex, VS Code, ...) puts in the context, per server and tool"

_EPILOG = """examples:
  toolsurvey context --client claude-code                  # the servers Claude Code starts here
  ENABLE_TOOL_SEARCH=false toolsurvey context --client claude-code
  toolsurvey context --client codex --model gpt-5.4 --format json
  toolsurvey context --client vscode --input api-key=$KEY --format markdown -o context.md
  toolsurvey context --client cursor --snapshot snapshot.json   # tools saved by discover

exit status: 0; 1 when a server could not be read (its tools are not counted); 2 bad arguments
or config."""


def configure(p: argparse.ArgumentParser) -> None:
    from ._args import text
    from ._common import add_output_file_arg, add_wide_arg
    from ._servers import add_client_args, add_discovery_args

    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.epilog = _EPILOG
    add_client_args(p, required=True)
    p.add_argument("--server", action="append", default=[], metavar="NAME", help="only this server (repeatable)")
    p.add_argument("--model", type=text, default=None,
                   help="the model (default: the one the client's config names, else the client's default)")
    p.add_argument("--snapshot", metavar="FILE",
                   help="measure the tools saved by `discover` instead of starting the servers")
    p.add_argument("--by", choices=("both", "server", "tool"), default="both",
                   help="the table(s) printed; csv takes server or tool (default: %(default)s)")
    add_discovery_args(p)
    p.add_argument("--format", choices=("table", "csv", "json", "markdown"), default="table",
                   help="output format (default: %(default)s)")
    add_output_file_arg(p)
    add_wide_arg(p)


def run(args: argparse.Namespace) -> int:
    import json
    import os

    from ..errors import InputError
    from ..inputs.discovery.run import failures
    from ..measuring.client_context import client_context
    from ..present.client_context import context_markdown
    from ._common import print_warnings, say, write
    from ._servers import client_config, discover_client, from_snapshot

    if args.format == "csv" and args.by == "both":
        raise InputError("csv is one table: pass --by server or --by tool")
    cfg = client_config(args)
    reg = from_snapshot(args.snapshot, cfg) if args.snapshot else discover_client(cfg, args)
    print_warnings([w for w in reg.warnings if not w.startswith("server ")])
    ctx = client_context(reg, cfg, model=args.model, environ=os.environ)
    for note in ctx.notes[len(cfg.lines()):]:  # the config's own notes are printed above
        say(f"note: {note}")
    if args.format == "json":
        write(json.dumps(ctx.as_dict(), indent=2, ensure_ascii=False) + "\n", args.output)
    elif args.format == "markdown":
        write(context_markdown(ctx), args.output)
    else:
        _tables(ctx, args)
    return 1 if failures(reg) else 0


def _tables(ctx, args: argparse.Namespace) -> None:
    """The text (or CSV) tables: the figures, per server, per tool, then the limits it breaks."""
    from ..present.client_context import SERVER_COLUMNS, TOOL_COLUMNS, server_rows, summary_lines, tool_rows
    from ._common import emit_rows, fit, text_table, write

    servers = (SERVER_COLUMNS, server_rows(ctx), [False, False] + [True] * 5)
    tools = (TOOL_COLUMNS, tool_rows(ctx), [False, False, False, True, True])
    if args.format == "csv":
        columns, rows, numeric = servers if args.by == "server" else tools
        emit_rows(columns, rows, "csv", args.output, numeric=numeric)
        return
    parts = [fit("\n".join(summary_lines(ctx)))]
    parts += [text_table(*servers)] if args.by in ("both", "server") else []
    parts += [text_table(*tools)] if args.by in ("both", "tool") else []
    parts += [fit("\n".join(f"over a limit: {x}" for x in ctx.limits))] if ctx.limits else []
    write("\n\n".join(parts) + "\n", args.output)

