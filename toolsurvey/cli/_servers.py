"""Options and output shared by the commands that start MCP servers (discover, context): the
client whose config to read, the discovery limits, and one progress line per server."""

from __future__ import annotations

import argparse
import sys

CLIENT_HELP = "read the servers this client starts in the project, from its own config files"


def add_client_args(p: argparse.ArgumentParser, *, required: bool = False) -> None:
    from ..inputs.clients.read import CLIENTS

    p.add_argument("--client", choices=CLIENTS, required=required, metavar="NAME",
                   help=f"{CLIENT_HELP}: {', '.join(CLIENTS)}")
    p.add_argument("--project", metavar="DIR", default=None,
                   help="with --client: the project folder the client runs in (default: the current folder)")
    p.add_argument("--input", action="append", default=[], metavar="ID=VALUE", dest="inputs",
                   help="with --client vscode: the value of an ${input:ID} VS Code would ask for (repeatable)")


def add_discovery_args(p: argparse.ArgumentParser) -> None:
    from ..inputs.discovery.run import (
        DEFAULT_CONCURRENCY,
        DEFAULT_CONNECT_TIMEOUT,
        DEFAULT_LIST_TIMEOUT,
        DEFAULT_MAX_PAGES,
    )
    from ._args import above, at_least
    from ._progress import add_quiet_arg

    p.add_argument("--connect-timeout", type=above(0), default=DEFAULT_CONNECT_TIMEOUT, metavar="SECONDS",
                   help="per server: start and answer initialize within this (default: %(default)g)")
    p.add_argument("--list-timeout", type=above(0), default=DEFAULT_LIST_TIMEOUT, metavar="SECONDS",
                   help="per server: return every tools/list page within this (default: %(default)g)")
    p.add_argument("--max-pages", type=at_least(1), default=DEFAULT_MAX_PAGES, metavar="N",
                   help="stop a server whose tools/list has more pages than this (default: %(default)s)")
    p.add_argument("--concurrency", type=at_least(1), default=DEFAULT_CONCURRENCY, metavar="N",
                   help="servers started at once (default: %(default)s)")
    add_quiet_arg(p)


def client_config(args: argparse.Namespace):
    """The client's config for the project, its servers picked with --server, its warnings and notes
    (the files read, the servers left out) printed; raises InputError as read_client does, for an
    --input that is not ID=VALUE, and when the client starts no server."""
    from ..errors import InputError
    from ..inputs.clients.read import read_client
    from ._common import print_warnings, say

    inputs = {}
    for text in args.inputs:
        key, sep, value = text.partition("=")
        if not sep or not key:
            raise InputError(f"--input {text!r}: expected ID=VALUE")
        inputs[key] = value
    if inputs and args.client != "vscode":
        raise InputError("--input gives VS Code's ${input:ID} values; it applies to --client vscode")
    cfg = read_client(args.client, args.project, servers=args.server, inputs=inputs)
    print_warnings(cfg.warnings)
    for line in cfg.lines():
        say(f"note: {line}")
    if not cfg.servers:
        raise InputError(f"{cfg.label} starts no MCP server in {cfg.project}"
                         + (f" ({len(cfg.left_out)} left out: see the notes above)" if cfg.left_out else ""))
    return cfg


def discover_client(cfg, args: argparse.Namespace):
    """Start the client's servers (a progress line per server on standard error), as `discover`."""
    from ..inputs.discovery.run import discover
    from ._progress import Bar

    with Bar("discovering servers", quiet=args.quiet) as bar:
        return discover(client=cfg, connect_timeout=args.connect_timeout, list_timeout=args.list_timeout,
                        max_pages=args.max_pages, concurrency=args.concurrency,
                        on_progress=server_progress(sys.stderr, bar))


def server_progress(stream, bar):
    """Print one line per server as it ends (works in logs, not only terminals), above `bar`, the
    progress bar of the servers a terminal shows."""
    from ._common import fit, visible_lines

    state = {"started": 0, "ended": 0}

    def show(event: str, name: str, detail: str) -> None:
        if event == "start":
            state["started"] += 1
            bar.advance(0, total=state["started"])
            return
        state["ended"] += 1
        mark = "ok" if event == "done" else "FAILED"
        line = fit(visible_lines(f"[{state['ended']}/{state['started']}] {name}: {mark} - {detail}"), stream=stream)
        bar.advance(1)
        if bar.console is not None:
            bar.console.print(line, markup=False, highlight=False, soft_wrap=True)
        else:
            print(line, file=stream, flush=True)

    return show


def from_snapshot(path: str, cfg):
    """The snapshot's servers that the client starts (others dropped); one it lacks counts as failed."""
    from ..core.registry import Server
    from ..inputs.formats import load

    reg = load(path)
    reg.servers = {s.name: reg.servers.get(s.name) or Server(s.name, (), None, {"error": f"not in {path}"})
                   for s in cfg.servers}
    return reg
