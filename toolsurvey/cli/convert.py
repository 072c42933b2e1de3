"""`toolsurvey convert`: write tools in another format (MCP, OpenAI, Anthropic, Gemini, registry)."""

from __future__ import annotations

import argparse

HELP = "convert tool definitions between MCP, OpenAI, Anthropic, Gemini and registry files"


def configure(p: argparse.ArgumentParser) -> None:
    from ..inputs.formats import FORMATS
    from ._common import add_output_file_arg, add_registry_args

    add_registry_args(p)
    p.add_argument("--to", required=True, choices=FORMATS, help="the format to write")
    add_output_file_arg(p)


def run(args: argparse.Namespace) -> int:
    import json

    from ..errors import InputError
    from ..inputs.formats import dump
    from ._common import load_registry, say, write

    reg = load_registry(args)
    if args.to != "registry" and len(reg.servers) > 1:
        say(f"note: {len(reg.servers)} servers flattened into one {args.to} tool list; "
            "use --to registry to keep them apart")
    try:  # a Registry built in Python may hold NaN; JSON has no way to write it
        text = json.dumps(dump(reg, args.to), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    except ValueError as e:
        raise InputError(f"cannot write JSON: {e}") from None
    write(text, args.output)
    return 0
