"""`toolsurvey eval --description-tokens`: the description-length sweep run from the command line
(measuring.selection.descriptions), its table, its log and its fitted effect (--fit-descriptions)."""

from __future__ import annotations

import json


def run_descriptions(args, reg) -> int:
    """`--description-tokens`: the description-length sweep, its table, its log and its fitted effect."""
    from ..core.tokens import DEFAULT_ENCODING
    from ..errors import InputError
    from ..measuring.selection.descriptions import DescriptionEval, plan_descriptions, variant_lines
    from ._common import print_warnings, say, write
    from ._eval_asking import estimate_lines, estimate_then_ask, gate, options, write_log

    for flag, given in (("--baseline", args.baseline), ("--batch", args.batch), ("--max-drop", args.max_drop)):
        if given:
            raise InputError(f"{flag} is not taken with --description-tokens; run the sweep and the comparison separately")
    plan, variants, cuts = plan_descriptions(reg, args.queries, args.model, args.description_tokens,
                                             **options(args))
    ev = estimate_then_ask(plan, args, variant_lines(cuts, len(reg)) + estimate_lines(plan))
    if ev is None:
        return 0
    de = DescriptionEval(ev, variants, DEFAULT_ENCODING, len(reg), cuts)
    doc = None
    if args.fit_descriptions:
        from ..inputs.queries import file_digests
        from ..model.measured_description import fit_description_effect

        doc, de.warnings = fit_description_effect(de, file_digests(args.queries), task_calls=args.task_calls)
    write_log(ev, args)
    if doc is not None:
        from ..present.curve_file import effect_toml

        write(effect_toml(doc), args.fit_descriptions)
        say(f"wrote the measured description effect to {args.fit_descriptions} ({len(doc['points'])} points); "
            f"{doc['success_rule']}")
    print_warnings(ev.warnings + de.warnings)
    write(_descriptions_output(de, args), args.output)
    return gate(de.eval, None, args)


def _descriptions_output(de, args) -> str:
    from ..present import selection as sel

    if args.format == "json":
        return json.dumps(de.to_json(), indent=2, ensure_ascii=False) + "\n"
    if args.format == "csv":
        return sel.descriptions_csv(de)
    return sel.descriptions_markdown(de) if args.format == "markdown" else sel.descriptions_text(de)
