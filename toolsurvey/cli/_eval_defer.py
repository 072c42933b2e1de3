"""`toolsurvey eval --defer MODE`: deferred loading with the model in the loop, run from the command
line (measuring.selection.defer), its log and its figures."""

from __future__ import annotations


def run_defer(args, reg, output) -> int:
    """`--defer MODE`: each query with the definitions deferred behind a search, its log and its figures;
    `output` is eval's own view of an eval (table, CSV, JSON or Markdown)."""
    from ..errors import InputError
    from ..measuring.selection.defer import plan_defer
    from ._common import print_warnings, write
    from ._eval_asking import estimate_lines, estimate_then_ask, gate, options, write_log

    for flag, given in (("--baseline", args.baseline), ("--batch", args.batch), ("--max-drop", args.max_drop),
                        ("--visible", args.visible), ("--description-tokens", args.description_tokens)):
        if given is not None and given is not False:
            raise InputError(f"{flag} is not taken with --defer; run them separately")
    plan = plan_defer(reg, args.queries, args.model, args.defer, rounds=args.defer_rounds, k=args.search_k,
                      list_names=not args.no_deferred_names, **options(args))
    ev = estimate_then_ask(plan, args, [*estimate_lines(plan), f"method: {plan.estimate.method}"])
    if ev is None:
        return 0
    write_log(ev, args)
    print_warnings(ev.warnings)
    write(output(ev, None, None, args), args.output)
    return gate(ev, None, args)
