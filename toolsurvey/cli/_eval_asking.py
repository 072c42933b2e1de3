"""What every `toolsurvey eval` run does around its plan, whichever kind it is (a plain eval, a
`--visible` or `--description-tokens` sweep, `--defer`): the estimate said before anything is sent,
`--dry-run`'s stop, the consent rules, the asking with a progress bar, the `--log` lines and the
`--fail-under` / `--max-drop` gate."""

from __future__ import annotations

import json


def options(args) -> dict:
    """The asking options a sweep or a deferred run passes to its plan."""
    return dict(api=args.api, base_url=args.base_url, system=args.system, repeat=args.repeat, cache=not args.no_cache,
                cache_dir=args.cache_dir, timeout=args.timeout, max_retries=args.retries, dry_run=args.dry_run)


def estimate_lines(plan, label: str = "", batch: bool = False) -> list[str]:
    from ..present.units import money, number

    e = plan.estimate
    cached = e.total - e.requests
    head = f"{label}estimate: {number(e.requests)} of {number(e.total)} requests to send" + (
        f" ({number(cached)} answered from the cache)" if cached else "")
    tokens = (f"{number(e.input_tokens)} input tokens ({number(e.tools_tokens)} of tool definitions per request, "
              f"counted with {e.method}), {number(e.output_tokens)} output tokens assumed")
    if e.cost is None:
        return [head, tokens, f"no price is known for {plan.client.model!r}: the run is counted in tokens only"]
    half = " (batch: half price)" if batch else ""
    return [head, tokens, f"{money(e.cost)} at {e.price.model}'s rates{half} ({e.price.source}, {e.price.as_of}); "
                          f"{money(e.cost_cached)} with the tool definitions cached"]


def ask(plan, args, label: str = ""):
    """The plan's answers, asked with a progress bar (`label` names a baseline's)."""
    from ._progress import Bar

    with Bar(f"{label}asking {args.model}", len(plan.jobs), quiet=args.quiet) as bar:
        def progress(done, total):
            bar.advance(done - bar.done, total=total)
        try:
            return plan.run(args.ask_concurrency, progress, **({"batch": True} if args.batch else {}))
        finally:
            plan.client.close()


def estimate_then_ask(plan, args, lines: list[str]):
    """Say `lines` (the estimate) and ask, within the consent rules (`check_cost`); under --dry-run,
    write them as the output and return None, sending nothing."""
    from ..measuring.selection.run import check_cost
    from ._common import fit, print_warnings, say, write

    if args.dry_run:
        print_warnings(plan.warnings)
        if plan.estimate.cost is not None and plan.estimate.cost > args.max_cost:
            lines = [*lines, f"over --max-cost ${args.max_cost:,.2f}: a run would stop here unless --yes"]
        write(fit("\n".join(lines)) + "\n", args.output)
        return None
    for line in lines:
        say(line)
    print_warnings(plan.warnings)
    check_cost(plan.estimate, args.max_cost, args.yes, plan.client.custom_url, args.model)
    return ask(plan, args)


def write_log(ev, args) -> None:
    """`--log FILE`: one JSON line per answer."""
    from ._common import write

    if args.log:
        write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ev.records), args.log)


def gate(ev, base, args) -> int:
    """Exit 1 under --fail-under, or with a baseline over --max-drop; else 0."""
    from ._common import say

    acc = ev.accuracy
    if args.fail_under is not None and (acc is None or acc < args.fail_under):
        say(f"eval: accuracy {acc if acc is None else f'{acc:.1%}'} is under --fail-under {args.fail_under:.1%}")
        return 1
    if args.max_drop is not None and base is not None and base.accuracy is not None and acc is not None:
        drop = (base.accuracy - acc) * 100
        if drop > args.max_drop:
            say(f"eval: accuracy dropped {drop:.1f} points ({base.accuracy:.1%} → {acc:.1%}), "
                f"more than --max-drop {args.max_drop:g}")
            return 1
    return 0
