"""`toolsurvey eval --defer MODE`: deferred loading with the model in the loop, run from the command
line (measuring.selection.defer), its log and its figures."""

from __future__ import annotations

import json


def run_defer(args, reg, estimate_lines, options: dict, output, gate) -> int:
    """`--defer MODE`: each query with the definitions deferred behind a search, its log and its figures.
    `estimate_lines`, `options`, `output` and `gate` are eval's own (its estimate's lines, the asking
    options, its views, the --fail-under gate), so the run says and checks what a plain eval does."""
    from ..errors import InputError
    from ..measuring.selection.defer import plan_defer
    from ..measuring.selection.run import check_cost
    from ._common import fit, print_warnings, say, write
    from ._progress import Bar

    for flag, given in (("--baseline", args.baseline), ("--batch", args.batch), ("--max-drop", args.max_drop),
                        ("--visible", args.visible), ("--description-tokens", args.description_tokens)):
        if given is not None and given is not False:
            raise InputError(f"{flag} is not taken with --defer; run them separately")
    plan = plan_defer(reg, args.queries, args.model, args.defer, rounds=args.defer_rounds, k=args.search_k,
                      list_names=not args.no_deferred_names, **options)
    lines = estimate_lines(plan)
    if args.dry_run:
        print_warnings(plan.warnings)
        if plan.estimate.cost is not None and plan.estimate.cost > args.max_cost:
            lines.append(f"over --max-cost ${args.max_cost:,.2f}: a run would stop here unless --yes")
        lines.append(f"method: {plan.estimate.method}")
        write(fit("\n".join(lines)) + "\n", args.output)
        return 0
    for line in lines:
        say(line)
    print_warnings(plan.warnings)
    check_cost(plan.estimate, args.max_cost, args.yes, plan.client.custom_url, args.model)
    with Bar(f"asking {args.model} (--defer {args.defer})", len(plan.jobs), quiet=args.quiet) as bar:
        def progress(done, total):
            bar.advance(done - bar.done, total=total)
        try:
            ev = plan.run(args.ask_concurrency, progress)
        finally:
            plan.client.close()
    if args.log:
        write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ev.records), args.log)
    print_warnings(ev.warnings)
    write(output(ev, None, None, args), args.output)
    return gate(ev, None, args, say)
