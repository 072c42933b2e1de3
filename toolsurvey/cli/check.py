"""`toolsurvey check`: fail the build when the tool surface breaks a token budget."""

from __future__ import annotations

import argparse

HELP = "exit 1 (one line per breach) when tools exceed token budgets or grow too much; 0 when within budget"


def configure(p: argparse.ArgumentParser) -> None:
    from ._common import add_fail_on, add_output_args, add_registry_args
    from ._measure import add_measure_args

    add_registry_args(p)
    p.add_argument("--max-request-tokens", type=int, metavar="N", help="budget for all tool definitions in one request")
    p.add_argument("--max-tool-tokens", type=int, metavar="N", help="budget for any one tool's definition")
    p.add_argument("--max-server-tokens", type=int, metavar="N", help="budget for any one server's tools and instructions")
    p.add_argument("--baseline", metavar="PATH", help="the registry to compare with (e.g. main's), for --max-increase")
    p.add_argument("--max-increase", metavar="N|P%",
                   help="allowed growth of tokens per request over the baseline: tokens (500) or percent (5%%)")
    add_fail_on(p, "also fail on audit findings of this severity or above")
    add_measure_args(p)
    add_output_args(p, formats=("text", "json"))


def run(args: argparse.Namespace) -> int:
    from ..advice.budget import check_budget, parse_increase
    from ..core.text import plural
    from ..present.markdown import visible
    from ._common import fit, load_registry, say, write
    from ._measure import measure_kwargs

    frac, tokens = parse_increase(args.max_increase) if args.max_increase is not None else (None, None)
    reg = load_registry(args)
    baseline = None
    if args.baseline:
        baseline = load_registry(argparse.Namespace(paths=[args.baseline], input_format=args.input_format))
    breaches = check_budget(reg, max_request_tokens=args.max_request_tokens, max_tool_tokens=args.max_tool_tokens,
                     max_server_tokens=args.max_server_tokens, baseline=baseline, max_increase=frac,
                     max_increase_tokens=tokens, fail_on=args.fail_on, **measure_kwargs(args))
    if args.format == "json":
        write(_json(breaches, len(reg)), args.output)
    else:
        write("".join(fit(visible(b.message)) + "\n" for b in breaches), args.output)
    if breaches:
        say(f"toolsurvey check: {plural(len(breaches), 'budget breach', 'budget breaches')}")
        return 1
    say(f"toolsurvey check: within budget ({len(reg):,} tools)")
    return 0


def _json(breaches: list, tools: int) -> str:
    """The verdict as JSON: the release and data dates that produced it, and one object per breach."""
    import dataclasses
    import json

    from ..model.provenance import provenance

    doc = {"produced_by": provenance(), "tools": tools, "within_budget": not breaches,
           "breaches": [dataclasses.asdict(b) for b in breaches]}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
