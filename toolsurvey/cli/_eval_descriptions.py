"""`toolsurvey eval --description-tokens`: the description-length sweep run from the command line
(measuring.selection.descriptions), its table, its log and its fitted effect (--fit-descriptions)."""

from __future__ import annotations

import json


def run_descriptions(args, reg, estimate_lines, options: dict, gate) -> int:
    """`--description-tokens`: the description-length sweep, its table, its log and its fitted effect.
    `estimate_lines`, `options` and `gate` are eval's own (its estimate's lines, the asking options,
    the --fail-under gate), so the sweep says and checks what a plain eval does."""
    from ..core.tokens import DEFAULT_ENCODING
    from ..errors import InputError
    from ..measuring.selection.descriptions import DescriptionEval, plan_descriptions
    from ..measuring.selection.run import check_cost
    from ._common import fit, print_warnings, say, write
    from ._progress import Bar

    for flag, given in (("--baseline", args.baseline), ("--batch", args.batch), ("--max-drop", args.max_drop)):
        if given:
            raise InputError(f"{flag} is not taken with --description-tokens; run the sweep and the comparison separately")
    plan, variants, cuts = plan_descriptions(reg, args.queries, args.model, args.description_tokens,
                                             **options)
    from ..measuring.selection.descriptions import variant_lines

    lines = variant_lines(cuts, len(reg)) + estimate_lines(plan)
    if args.dry_run:
        print_warnings(plan.warnings)
        if plan.estimate.cost is not None and plan.estimate.cost > args.max_cost:
            lines.append(f"over --max-cost ${args.max_cost:,.2f}: a run would stop here unless --yes")
        write(fit("\n".join(lines)) + "\n", args.output)
        return 0
    for line in lines:
        say(line)
    print_warnings(plan.warnings)
    check_cost(plan.estimate, args.max_cost, args.yes, plan.client.custom_url, args.model)
    with Bar(f"asking {args.model}", len(plan.jobs), quiet=args.quiet) as bar:
        def progress(done, total):
            bar.advance(done - bar.done, total=total)
        try:
            ev = plan.run(args.ask_concurrency, progress)
        finally:
            plan.client.close()
    de = DescriptionEval(ev, variants, DEFAULT_ENCODING, len(reg), cuts)
    doc = None
    if args.fit_descriptions:
        from ..inputs.queries import file_digests
        from ..model.measured_description import fit_description_effect

        doc, de.warnings = fit_description_effect(de, file_digests(args.queries), task_calls=args.task_calls)
    if args.log:
        write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ev.records), args.log)
    if doc is not None:
        from ..present.curve_file import effect_toml

        write(effect_toml(doc), args.fit_descriptions)
        say(f"wrote the measured description effect to {args.fit_descriptions} ({len(doc['points'])} points); "
            f"{doc['success_rule']}")
    print_warnings(ev.warnings + de.warnings)
    write(_descriptions_output(de, args), args.output)
    return gate(de.eval, None, args, say)


def _descriptions_output(de, args) -> str:
    from ..present import selection as sel

    if args.format == "json":
        return json.dumps(de.to_json(), indent=2, ensure_ascii=False) + "\n"
    if args.format == "csv":
        return sel.descriptions_csv(de)
    return sel.descriptions_markdown(de) if args.format == "markdown" else sel.descriptions_text(de)
