"""`toolsurvey calibrate`: how far the offline counts are from a provider's exact counts, by part."""

from __future__ import annotations

import argparse

HELP = "measure the ratio of a provider's exact token counts to the offline estimates, by part"


def configure(p: argparse.ArgumentParser) -> None:
    from ._common import add_registry_args
    from ._counting import add_endpoint_args

    add_registry_args(p)
    p.add_argument("--provider", required=True, metavar="PROVIDER:MODEL",
                   help="whose endpoint counts exactly, e.g. anthropic:claude-sonnet-4-5, openai:gpt-5, "
                        "gemini:gemini-2.5-flash")
    p.add_argument("-o", "--output", metavar="FILE", help="write the calibration JSON to FILE (atomically)")
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="what to print on standard output (default: %(default)s)")
    add_endpoint_args(p)


def run(args: argparse.Namespace) -> int:
    import json
    import sys

    from ..measuring.calibration import VARIANTS, calibrate, calibration_table, save_calibration
    from ._common import fit, load_registry, render_table, say
    from ._counting import dry_run_kwargs, dry_run_text, endpoint_kwargs

    reg = load_registry(args)
    if args.dry_run:
        from ..measuring.counting.exact import dry_run

        info = dry_run(reg, args.provider, **dry_run_kwargs(args))
        info["to_send"] += len(VARIANTS) * info["parts"]  # one all-tools request per removed part
        info["requests"] += len(VARIANTS) * info["parts"]
        sys.stdout.write(fit(dry_run_text(info)))
        return 0
    cal = calibrate(reg, args.provider, **endpoint_kwargs(args))
    if args.output:
        save_calibration(cal, args.output)
        say(f"wrote {args.output}")
    if args.format == "json":
        sys.stdout.write(json.dumps(cal.as_dict(), indent=2, ensure_ascii=False) + "\n")
        return 0
    r = cal.per_tool_ratio
    sys.stdout.write(fit(
        f"{cal.provider}:{cal.model} vs offline {cal.encoding} ({cal.render} rendering), "
        f"{cal.registry['tools']:,} tools, {cal.date}\n"
        f"requests: {cal.requests['sent']:,} sent, {cal.requests['cached']:,} from the cache\n"
        f"per-tool ratio exact/offline: median {r['median']:.3f}, p10 {r['p10']:.3f}, p90 {r['p90']:.3f}")
        + "\n\n" + render_table(calibration_table(cal)) + "\n")
    if not args.output:
        say("(pass -o FILE to save the calibration for `footprint --calibration FILE`)")
    return 0
