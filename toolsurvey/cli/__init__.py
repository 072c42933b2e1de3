"""The `toolsurvey` command: one sub-command per module in this package.

Here the underscore says which modules are commands: a module without one is a sub-command (it has
HELP, configure and run); `_args`, `_common`, `_counting`, `_measure`, `_progress` and `_servers`
are the commands' shared helpers, whose public names the commands import. Every line a command
prints goes through `_common` (`say`, `fit`, the tables), which fits it to the terminal, or to 100
columns, unless --wide. The commands import the engine inside `run()`, so parsing arguments (and
`--help`) loads no pandas.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import pkgutil
import signal
import sys

from ..errors import ToolsurveyError


def _commands(only: str | None = None) -> dict:
    """Sub-command name -> module, for every public module in this package (each has HELP, configure,
    run), or for `only` alone when it names one."""
    names = sorted(info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_"))
    if only in names:
        names = [only]
    return {name: importlib.import_module(f".{name}", __name__) for name in names}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser for every sub-command. Given `only`, a sub-command's name: one that knows that
    sub-command alone (its arguments, help and errors are the same; the other commands' modules are
    not imported); any other `only`: one whose sub-commands are listed but not configured
    (configuring may import the module that owns an option's choices)."""
    from ._args import Parser
    from ._common import add_wide_arg

    parser = Parser(
        prog="toolsurvey",
        description="What an agent's tool surface costs, and what would change it.")
    parser.add_argument("--version", action=_Version, nargs=0,
                        help="print the version and the dates of the bundled data (prices, providers, accuracy curve)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, mod in _commands(only).items():
        p = sub.add_parser(name.replace("_", "-"), help=mod.HELP, description=mod.HELP)
        if only is None or only == name.replace("_", "-"):
            mod.configure(p)
        p.add_argument("--max-input-bytes", type=_byte_count, default=None, metavar="N",
                       help="refuse an input file (registry, usage log, scenario, config) larger than this "
                            "(default: 128 MiB; accepts K, M, G suffixes)")
        with contextlib.suppress(argparse.ArgumentError):  # the commands with tables define it themselves
            add_wide_arg(p)
        p.set_defaults(_run=mod.run)
    return parser


class _Version(argparse.Action):
    """--version: the release and its data's dates (model/provenance.py), read only when asked."""

    def __call__(self, parser, namespace, values, option_string=None):
        from ..model.provenance import provenance, provenance_text

        print(provenance_text(provenance()))
        parser.exit()


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived: unwind like Ctrl-C, so temporary files and servers are cleaned up."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


_received: list[int] = []  # termination signals seen during this run


def _terminate(signum, frame):
    _received.append(signum)
    on_interrupt = signal.getsignal(signal.SIGINT)
    if callable(on_interrupt) and on_interrupt is not signal.default_int_handler:
        # asyncio.run's own Ctrl-C handler (discovery): it cancels the main task, so every server
        # is stopped and reaped on the way out; the run then ends with KeyboardInterrupt.
        on_interrupt(signal.SIGINT, frame)
        return
    raise Terminated(signum)


def _on_termination(handler) -> dict:
    """Install `handler` for SIGTERM and SIGHUP (main thread only); returns the previous handlers."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return {}
    sigs = [s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None]
    # Only where the default (dying) is in force: under nohup, SIGHUP stays ignored.
    return {s: signal.signal(s, handler) for s in sigs if signal.getsignal(s) == signal.SIG_DFL}


def _byte_count(text: str) -> int:
    units = {"k": 2**10, "m": 2**20, "g": 2**30}
    t = text.strip().lower().removesuffix("ib").removesuffix("b")
    scale = units.get(t[-1:], 1)
    try:
        n = int(t[:-1] if scale > 1 else t) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a byte count such as 1000000 or 256M, found {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive byte count, found {text!r}")
    return n


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (2 for bad input, with a one-line message)."""
    argv = sys.argv[1:] if argv is None else argv
    # Only the sub-command being run needs a parser: the first word, unless an option comes before it
    # (--help lists every sub-command).
    parser = build_parser(only=argv[0] if argv and not argv[0].startswith("-") else "")
    args = parser.parse_args(argv)
    from ..core.files import MAX_INPUT_BYTES, input_limit
    from ._common import output_width

    _received.clear()
    previous = _on_termination(_terminate)
    try:
        with input_limit(args.max_input_bytes or MAX_INPUT_BYTES), output_width(args.wide):
            return int(args._run(args) or 0)
    except KeyboardInterrupt as e:
        if not _received and not isinstance(e, Terminated):
            print("toolsurvey: interrupted", file=sys.stderr)
            return 130
        signum = e.signum if isinstance(e, Terminated) else _received[-1]
        print(f"toolsurvey: terminated by {signal.Signals(signum).name}", file=sys.stderr)
        return 128 + signum
    except ToolsurveyError as e:
        from ..present.markdown import visible

        print(f"toolsurvey {args.command}: error: {visible(e)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `toolsurvey footprint ... | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:  # a bug: say so in one line; TOOLSURVEY_DEBUG=1 shows the traceback
        if os.environ.get("TOOLSURVEY_DEBUG"):
            raise
        print(f"toolsurvey {args.command}: internal error: {type(e).__name__}: {e} "
              "(set TOOLSURVEY_DEBUG=1 for the traceback, and please report it)", file=sys.stderr)
        return 3
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def entry() -> None:
    sys.exit(main())
