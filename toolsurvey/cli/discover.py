"""`toolsurvey discover`: read the tools of running MCP servers into a snapshot file."""

from __future__ import annotations

import argparse
import sys

HELP = "start or connect to MCP servers and save their tools as a snapshot (a registry file)"

_EPILOG = """examples:
  toolsurvey discover -- npx -y @modelcontextprotocol/server-filesystem /tmp
  toolsurvey discover http://127.0.0.1:8000/mcp --header "Authorization: Bearer $TOKEN"
  toolsurvey discover --config .mcp.json --server memory -o snapshot.json
  toolsurvey discover --client claude-code -o snapshot.json   # the servers Claude Code starts here
  toolsurvey footprint snapshot.json --by server

exit status: 0 every server read; 1 some server failed (the snapshot keeps the others and the
error); 2 bad arguments or config."""


def configure(p: argparse.ArgumentParser) -> None:
    from ..providers.clients import name_templates
    from ._servers import add_client_args, add_discovery_args

    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.epilog = _EPILOG
    p.add_argument("target", nargs="*", metavar="URL | -- COMMAND ARGS",
                   help="a Streamable HTTP URL, or after '--' the command that starts a stdio server")
    p.add_argument("--config", metavar="FILE",
                   help="an mcpServers JSON file (Claude Desktop, Claude Code .mcp.json, Cursor, VS Code)")
    add_client_args(p)
    p.add_argument("--server", action="append", default=[], metavar="NAME",
                   help="with --config or --client: only this server (repeatable)")
    p.add_argument("--name", help="server name for a single URL or command (default: derived from it)")
    p.add_argument("--header", action="append", default=[], metavar="'NAME: VALUE'",
                   help="HTTP header for a URL (repeatable); values are never printed or saved")
    p.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                   help="environment variable for a stdio command (repeatable); values are never saved")
    p.add_argument("--prefix", metavar="TEMPLATE",
                   help=f"rename tools as a client shows them, e.g. 'mcp__{{server}}__{{tool}}' "
                        f"or a client: {', '.join(name_templates())}")
    add_discovery_args(p)
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="standard output: a summary table, or the snapshot JSON (default: %(default)s)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the snapshot to FILE (atomically; - for standard output)")


def run(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from ..core.http import is_url, parse_header
    from ..errors import InputError
    from ..inputs.configs import parse_env
    from ..inputs.discovery.names import name_problems
    from ..inputs.discovery.run import discover, failures
    from ..inputs.discovery.snapshots import save_snapshot, snapshot
    from ._common import print_warnings, say, write
    from ._progress import Bar
    from ._servers import client_config, server_progress

    target = args.target
    to_stdout = args.output == "-"
    if args.output and not to_stdout and not Path(args.output).resolve().parent.is_dir():
        raise InputError(f"cannot write {args.output}: its folder does not exist")
    if len(target) > 1 and all(is_url(t) for t in target):
        raise InputError("one URL at a time; to discover several servers, list them in a --config file")
    if (args.project or args.inputs) and not args.client:
        raise InputError("--project and --input apply to --client, which is not given")
    client = None
    if args.client:
        if target or args.config:
            raise InputError("give one of a target (URL or command), --config or --client")
        client = client_config(args)
    with Bar("discovering servers", quiet=args.quiet) as bar:
        reg = discover(target or None, config=args.config, client=client, servers=[] if client else args.server,
                       name=args.name, headers=dict(map(parse_header, args.header)),
                       env=dict(map(parse_env, args.env)), prefix=args.prefix, connect_timeout=args.connect_timeout,
                       list_timeout=args.list_timeout, max_pages=args.max_pages, concurrency=args.concurrency,
                       on_progress=server_progress(sys.stderr, bar))
    print_warnings([w for w in reg.warnings if not _is_failure(w, reg)])
    print_warnings(name_problems(reg))
    if args.output and not to_stdout:
        save_snapshot(reg, args.output)
        say(f"wrote {args.output}")
    if to_stdout or (args.format == "json" and not args.output):
        write(json.dumps(snapshot(reg), indent=2, ensure_ascii=False, allow_nan=False) + "\n", None)
    elif args.format == "table":
        write(_summary(reg), None)
    failed = failures(reg)
    if failed:
        say(f"{len(failed)} of {len(reg.servers)} server{'s' * (len(reg.servers) != 1)} failed: {', '.join(failed)}")
    return 1 if failed else 0


def _is_failure(warning: str, reg) -> bool:
    from ..inputs.discovery.run import failures

    return any(warning == f"server {n!r}: {e}" for n, e in failures(reg).items())


def _summary(reg) -> str:
    """One row per server: status, tools, tokens (compact JSON, o200k_base), identity, protocol."""
    import pandas as pd

    from ..measuring.footprint import footprint
    from ._common import fit, render_table

    table = footprint(reg)
    tokens = table.groupby("server")["tokens"].sum().to_dict()
    rows = []
    for name, s in reg.servers.items():
        info = s.info.get("serverInfo") or {}
        rows.append({"server": name, "status": "failed" if "error" in s.info else "ok",
                     "tools": len(s.tools), "tokens": int(tokens.get(name, 0)),
                     "reports as": f"{info.get('name', '')} {info.get('version', '')}".strip(),
                     "protocol": s.info.get("protocolVersion", "")})
    from ..core.text import plural

    header = (f"{plural(len(reg), 'tool')} from {plural(len(reg.servers), 'server')}: {int(table.tokens.sum()):,} tokens "
              f"per request ({table.attrs['render']} rendering, {table.attrs['encoding']}, instructions included)")
    return fit(header) + "\n\n" + render_table(pd.DataFrame(rows)) + "\n"
