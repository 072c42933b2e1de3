"""The `toolsurvey` command: one sub-command per module in this package."""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from ..errors import ToolsurveyError


def _commands() -> dict:
    """Sub-command name -> module, for every public module in this package (each has HELP, configure, run)."""
    mods = {}
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            mods[info.name] = importlib.import_module(f".{info.name}", __name__)
    return dict(sorted(mods.items()))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser for every sub-command, or, given `only`, one whose other sub-commands are listed but
    not configured (configuring may import the module that owns an option's choices)."""
    parser = argparse.ArgumentParser(
        prog="toolsurvey",
        description="What an agent's tool surface costs, and what would change it.")
    from .. import __version__
    parser.add_argument("--version", action="version", version=f"toolsurvey {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, mod in _commands().items():
        p = sub.add_parser(name.replace("_", "-"), help=mod.HELP, description=mod.HELP)
        if only is None or only == name.replace("_", "-"):
            mod.configure(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (2 for bad input, with a one-line message)."""
    argv = sys.argv[1:] if argv is None else argv
    # Only the sub-command being run needs its options: the first word not starting with "-".
    parser = build_parser(only=next((a for a in argv if not a.startswith("-")), ""))
    args = parser.parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except ToolsurveyError as e:
        print(f"toolsurvey {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("toolsurvey: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `toolsurvey footprint ... | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:  # a bug: say so in one line; TOOLSURVEY_DEBUG=1 shows the traceback
        if os.environ.get("TOOLSURVEY_DEBUG"):
            raise
        print(f"toolsurvey {args.command}: internal error: {type(e).__name__}: {e} "
              "(set TOOLSURVEY_DEBUG=1 for the traceback, and please report it)", file=sys.stderr)
        return 3


def entry() -> None:
    sys.exit(main())
