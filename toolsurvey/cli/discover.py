"""`toolsurvey discover`: read the tools of running MCP servers into a snapshot file."""

from __future__ import annotations

import argparse
import sys

HELP = "start or connect to MCP servers and save their tools as a snapshot (a registry file)"

_EPILOG = """examples:
  toolsurvey discover -- npx -y @modelcontextprotocol/server-filesystem /tmp
  toolsurvey discover http://127.0.0.1:8000/mcp --header "Authorization: Bearer $TOKEN"
  toolsurvey discover --config .mcp.json --server memory -o snapshot.json
  toolsurvey footprint snapshot.json --by server

exit status: 0 every server read; 1 some server failed (the snapshot keeps the others and the
error); 2 bad arguments or config."""


def configure(p: argparse.ArgumentParser) -> None:
    from ..inputs.discovery.names import PREFIXES
    from ..inputs.discovery.run import (
        DEFAULT_CONCURRENCY,
        DEFAULT_CONNECT_TIMEOUT,
        DEFAULT_LIST_TIMEOUT,
        DEFAULT_MAX_PAGES,
    )
    from ._args import above, at_least

    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.epilog = _EPILOG
    p.add_argument("target", nargs="*", metavar="URL | -- COMMAND ARGS",
                   help="a Streamable HTTP URL, or after '--' the command that starts a stdio server")
    p.add_argument("--config", metavar="FILE",
                   help="an mcpServers JSON file (Claude Desktop, Claude Code .mcp.json, Cursor, VS Code)")
    p.add_argument("--server", action="append", default=[], metavar="NAME",
                   help="with --config: only this server (repeatable)")
    p.add_argument("--name", help="server name for a single URL or command (default: derived from it)")
    p.add_argument("--header", action="append", default=[], metavar="'NAME: VALUE'",
                   help="HTTP header for a URL (repeatable); values are never printed or saved")
    p.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                   help="environment variable for a stdio command (repeatable); values are never saved")
    p.add_argument("--prefix", metavar="TEMPLATE",
                   help=f"rename tools as a client shows them, e.g. 'mcp__{{server}}__{{tool}}' "
                        f"or a client: {', '.join(PREFIXES)}")
    p.add_argument("--connect-timeout", type=above(0), default=DEFAULT_CONNECT_TIMEOUT, metavar="SECONDS",
                   help="per server: start and answer initialize within this (default: %(default)g)")
    p.add_argument("--list-timeout", type=above(0), default=DEFAULT_LIST_TIMEOUT, metavar="SECONDS",
                   help="per server: return every tools/list page within this (default: %(default)g)")
    p.add_argument("--max-pages", type=at_least(1), default=DEFAULT_MAX_PAGES, metavar="N",
                   help="stop a server whose tools/list has more pages than this (default: %(default)s)")
    p.add_argument("--concurrency", type=at_least(1), default=DEFAULT_CONCURRENCY, metavar="N",
                   help="servers started at once (default: %(default)s)")
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="standard output: a summary table, or the snapshot JSON (default: %(default)s)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the snapshot to FILE (atomically; - for standard output)")
    from ._progress import add_quiet_arg

    add_quiet_arg(p)


def run(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from ..core.http import is_url, parse_header
    from ..errors import InputError
    from ..inputs.configs import parse_env
    from ..inputs.discovery.names import name_problems
    from ..inputs.discovery.run import discover, failures
    from ..inputs.discovery.snapshots import save_snapshot, snapshot
    from ._common import print_warnings, write
    from ._progress import Bar

    target = args.target
    to_stdout = args.output == "-"
    if args.output and not to_stdout and not Path(args.output).resolve().parent.is_dir():
        raise InputError(f"cannot write {args.output}: its folder does not exist")
    if len(target) > 1 and all(is_url(t) for t in target):
        raise InputError("one URL at a time; to discover several servers, list them in a --config file")
    with Bar("discovering servers", quiet=args.quiet) as bar:
        reg = discover(target or None, config=args.config, servers=args.server, name=args.name,
                       headers=dict(map(parse_header, args.header)), env=dict(map(parse_env, args.env)),
                       prefix=args.prefix, connect_timeout=args.connect_timeout, list_timeout=args.list_timeout,
                       max_pages=args.max_pages, concurrency=args.concurrency, on_progress=_progress(sys.stderr, bar))
    print_warnings([w for w in reg.warnings if not _is_failure(w, reg)])
    print_warnings(name_problems(reg))
    if args.output and not to_stdout:
        save_snapshot(reg, args.output)
        print(f"wrote {args.output}", file=sys.stderr)
    if to_stdout or (args.format == "json" and not args.output):
        write(json.dumps(snapshot(reg), indent=2, ensure_ascii=False, allow_nan=False) + "\n", None)
    elif args.format == "table":
        write(_summary(reg), None)
    failed = failures(reg)
    if failed:
        print(f"{len(failed)} of {len(reg.servers)} server{'s' * (len(reg.servers) != 1)} failed: {', '.join(failed)}",
              file=sys.stderr)
    return 1 if failed else 0


def _is_failure(warning: str, reg) -> bool:
    from ..inputs.discovery.run import failures

    return any(warning == f"server {n!r}: {e}" for n, e in failures(reg).items())


def _progress(stream, bar):
    """Print one line per server as it ends (works in logs, not only terminals), above `bar`, the
    progress bar of the servers a terminal shows."""
    from ..present.markdown import visible

    state = {"started": 0, "ended": 0}

    def show(event: str, name: str, detail: str) -> None:
        if event == "start":
            state["started"] += 1
            bar.advance(0, total=state["started"])
            return
        state["ended"] += 1
        mark = "ok" if event == "done" else "FAILED"
        line = visible(f"[{state['ended']}/{state['started']}] {name}: {mark} - {detail}")
        bar.advance(1)
        if bar.console is not None:
            bar.console.print(line, markup=False, highlight=False, soft_wrap=True)
        else:
            print(line, file=stream, flush=True)

    return show


def _summary(reg) -> str:
    """One row per server: status, tools, tokens (compact JSON, o200k_base), identity, protocol."""
    import pandas as pd

    from ..measuring.footprint import footprint
    from ._common import render_table

    table = footprint(reg)
    tokens = table.groupby("server")["tokens"].sum().to_dict()
    rows = []
    for name, s in reg.servers.items():
        info = s.info.get("serverInfo") or {}
        rows.append({"server": name, "status": "failed" if "error" in s.info else "ok",
                     "tools": len(s.tools), "tokens": int(tokens.get(name, 0)),
                     "reports as": f"{info.get('name', '')} {info.get('version', '')}".strip(),
                     "protocol": s.info.get("protocolVersion", "")})
    from ..present.units import plural

    header = (f"{plural(len(reg), 'tool')} from {plural(len(reg.servers), 'server')}: {int(table.tokens.sum()):,} tokens "
              f"per request ({table.attrs['render']} rendering, {table.attrs['encoding']}, instructions included)")
    return header + "\n\n" + render_table(pd.DataFrame(rows)) + "\n"
