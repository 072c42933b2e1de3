"""`toolsurvey eval`: ask a model which tool it would call for each query, and count what it did."""

from __future__ import annotations

import argparse
import json

from ._eval_asking import ask, estimate_lines, estimate_then_ask, gate, options, write_log

HELP = ("measure tool selection: ask a model (a provider's API or any OpenAI-compatible server) which tool "
        "it calls for each query; accuracy, skips, false and invalid calls, per tool and as a confusion matrix")
FORMATS = ("table", "csv", "json", "markdown")
APIS = ("openai-chat", "openai-responses", "anthropic-messages")
DESCRIPTION_DEFAULT = "none,10,20,40,80,full"


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, found {text!r}")
    return n


def _count(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 0, found {text!r}")
    return n


def _dollars(text: str) -> float:
    try:
        v = float(text.lstrip("$"))
    except ValueError:
        v = -1.0
    if not v >= 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"expected an amount of dollars such as 1 or 0.25, found {text!r}")
    return v


def _share(text: str) -> float:
    t = text.strip()
    try:
        v = float(t.rstrip("%")) / (100 if t.endswith("%") else 1)
    except ValueError:
        v = -1.0
    if not 0 <= v <= 1:
        raise argparse.ArgumentTypeError(f"expected a share between 0 and 1 (or a percentage such as 80%), found {text!r}")
    return v


def add_asking_args(p: argparse.ArgumentParser, concurrency: str = "--concurrency") -> None:
    """How the model is asked and what may be spent: the options `eval` and `fix --eval` share.
    `concurrency` names the flag for requests in flight (fix's --concurrency starts servers)."""
    p.add_argument("--base-url", metavar="URL",
                   help="an OpenAI-compatible server (vLLM, Ollama, llama.cpp, LM Studio, LiteLLM); its key is optional")
    p.add_argument("--api", choices=APIS, help="the API to ask (default: by the model; openai-chat with --base-url)")
    p.add_argument("--system", metavar="TEXT", help="a system prompt sent with every query")
    p.add_argument(concurrency, dest="ask_concurrency", type=_positive, default=1, metavar="N",
                   help="requests in flight at once (default: 1)")
    p.add_argument("--max-cost", type=_dollars, default=1.0, metavar="DOLLARS",
                   help="send nothing when the estimate is over this (default: $1)")
    p.add_argument("--yes", action="store_true", help="send whatever the estimate")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS", help="per request (default: 120)")


def configure(p: argparse.ArgumentParser) -> None:
    from ._common import add_output_args, add_registry_args
    from ._progress import add_quiet_arg

    add_registry_args(p)
    p.add_argument("--queries", metavar="FILE", required=True, nargs="+",
                   help="one or more files (ids unique across them): "
                        'JSON Lines of {"id", "query", "gold": [tool names] or [] when no tool should fire, "args"?: {...}}')
    p.add_argument("--model", required=True, help="the model id, as the provider or the --base-url server names it")
    add_asking_args(p)
    p.add_argument("--repeat", type=_positive, default=1, metavar="N", help="ask each query N times and report agreement")
    p.add_argument("--dry-run", action="store_true", help="print the estimate and send nothing (no key needed)")
    p.add_argument("--batch", action="store_true",
                   help="through the provider's batch API at half price; waits for it, and a re-run resumes it")
    p.add_argument("--no-cache", action="store_true", help="ask again even when an answer to the same request is cached")
    p.add_argument("--cache-dir", metavar="DIR", help="where answers are cached (default: the user cache folder)")
    p.add_argument("--retries", type=_count, default=None, metavar="N",
                   help="the SDK's retries on a timeout, 429 or 5xx, after retry-after (default: 2)")
    p.add_argument("--log", metavar="FILE", help="write one JSON line per answer: the verdict and what came back")
    p.add_argument("--baseline", nargs="+", metavar="PATH",
                   help="an older registry: run the same queries and model on it, and compare")
    p.add_argument("--fail-under", type=_share, metavar="ACC", help="exit 1 when accuracy is under ACC (0.8 or 80%%)")
    p.add_argument("--max-drop", type=float, metavar="POINTS",
                   help="with --baseline: exit 1 when accuracy drops by more than POINTS percentage points")
    sweep = p.add_argument_group("catalog-size sweep (docs/eval.md)")
    sweep.add_argument("--visible", metavar="SIZES",
                       help="ask each query with N tools in view for each size, e.g. 5,10,20,40,all: its gold tools "
                            "plus distractors from the registry")
    sweep.add_argument("--distractors", choices=("random", "nearest"), default="random",
                       help="with --visible: a seeded random draw (default), or the tools BM25 ranks highest for the query")
    sweep.add_argument("--seed", type=int, default=0, help="with --visible: the seed of the distractor draw (default: 0)")
    sweep.add_argument("--fit", metavar="FILE",
                       help="with --visible: write the measured curve in accuracy.toml's format, for "
                            "simulate/plan/report --accuracy-curve FILE")
    sweep.add_argument("--task-calls", type=_positive, default=1, metavar="K",
                       help="with --fit or --fit-descriptions: task success = (right tool share) ^ K, a task of K "
                            "useful calls (default: 1)")
    defer = p.add_argument_group("deferred loading, the model in the loop (docs/eval.md)")
    defer.add_argument("--defer", choices=("client", "anthropic-bm25", "anthropic-regex"), metavar="MODE",
                       help="hide the definitions behind a search: client (the harness runs BM25 on the model's "
                            "search, as Claude Code's ToolSearch; openai-chat), anthropic-bm25 or anthropic-regex "
                            "(Anthropic's server-side tool search, defer_loading on every tool)")
    defer.add_argument("--defer-rounds", type=_positive, default=3, metavar="N",
                       help="with --defer client: requests per query at most, searches included (default: 3)")
    defer.add_argument("--search-k", type=_positive, default=5, metavar="K",
                       help="with --defer client: tools one search loads (default: 5)")
    defer.add_argument("--no-deferred-names", action="store_true",
                       help="with --defer client: don't list the deferred tools' names in the system message "
                            "(Claude Code lists them)")
    desc = p.add_argument_group("description-length sweep (docs/eval.md)")
    desc.add_argument("--description-tokens", metavar="VARIANTS", nargs="?", const=DESCRIPTION_DEFAULT,
                      help="ask each query with every description cut at N tokens for each N, as it is ('full') and "
                           f"removed ('none'); alone: {DESCRIPTION_DEFAULT}")
    desc.add_argument("--fit-descriptions", metavar="FILE",
                      help="with --description-tokens: write the measured effect in description_effect.toml's "
                           "format, for description_sweep and notebook 02")
    add_quiet_arg(p)
    add_output_args(p, FORMATS)


def _plan(args, reg):
    from ..measuring.selection.run import plan_eval

    return plan_eval(reg, args.queries, args.model, api=args.api, base_url=args.base_url, system=args.system,
                     repeat=args.repeat, cache=not args.no_cache, cache_dir=args.cache_dir, timeout=args.timeout,
                     max_retries=args.retries,
                     dry_run=args.dry_run, batch=args.batch)


def _run_sweep(args, reg) -> int:
    """`--visible`: the catalog-size sweep, its table, its log and its fitted curve (--fit)."""
    from ..errors import InputError
    from ..measuring.selection.sweep import SweepEval, plan_sweep
    from ._common import print_warnings, say, write

    for flag, given in (("--baseline", args.baseline), ("--batch", args.batch), ("--max-drop", args.max_drop)):
        if given:
            raise InputError(f"{flag} is not taken with --visible; run the sweep and the comparison separately")
    plan, sizes = plan_sweep(reg, args.queries, args.model, args.visible, seed=args.seed,
                             distractors=args.distractors, **options(args))
    ev = estimate_then_ask(plan, args, estimate_lines(plan))
    if ev is None:
        return 0
    sw = SweepEval(ev, sizes, args.distractors, args.seed, len(reg))
    doc = None
    if args.fit:
        from ..inputs.queries import file_digests
        from ..model.measured_curve import fit_accuracy_curve

        doc, sw.warnings = fit_accuracy_curve(sw, file_digests(args.queries), task_calls=args.task_calls)
    write_log(ev, args)
    if doc is not None:
        from ..present.curve_file import curve_toml

        write(curve_toml(doc), args.fit)
        say(f"wrote the measured curve to {args.fit} ({len(doc['points'])} points); "
            f"{doc['success_rule']}")
    print_warnings(ev.warnings + sw.warnings)
    write(_sweep_output(sw, args), args.output)
    return gate(sw.eval, None, args)


def _check_sweep_flags(args) -> None:
    """Each sweep's own flags only with that sweep, and one sweep at a time."""
    from ..errors import InputError

    if args.visible is not None and args.description_tokens is not None:
        raise InputError("--visible and --description-tokens are two sweeps; run them one at a time "
                         "(a catalog-size sweep keeps every description as it is)")
    for flag in ("--fit", "--seed", "--distractors"):
        dest = flag[2:].replace("-", "_")
        if args.visible is None and getattr(args, dest) != {"fit": None, "seed": 0, "distractors": "random"}[dest]:
            raise InputError(f"{flag} belongs to the catalog-size sweep; pass --visible SIZES too (e.g. 5,10,20,all)")
    if args.fit_descriptions and args.description_tokens is None:
        raise InputError("--fit-descriptions belongs to the description-length sweep; pass --description-tokens too "
                         f"(e.g. {DESCRIPTION_DEFAULT})")
    if args.task_calls != 1 and args.visible is None and args.description_tokens is None:
        raise InputError("--task-calls belongs to a sweep's fitted curve; pass --visible SIZES --fit FILE or "
                         "--description-tokens --fit-descriptions FILE too")


def _sweep_output(sw, args) -> str:
    from ..present import selection as sel

    if args.format == "json":
        return json.dumps(sw.to_json(), indent=2, ensure_ascii=False) + "\n"
    if args.format == "csv":
        return sel.sweep_csv(sw)
    return sel.sweep_markdown(sw) if args.format == "markdown" else sel.sweep_text(sw)


def _plans(args, reg) -> list:
    """(label, plan, registry) of this registry and the baseline's, each estimated before anything is sent."""
    from ._common import print_warnings

    plans = [("", _plan(args, reg), reg)]
    if args.baseline:
        from ..inputs.formats import load

        old = load(*args.baseline, format=args.input_format)
        print_warnings(old.warnings)
        plans.append(("baseline ", _plan(args, old), old))
    for _, plan, _ in plans:
        print_warnings(plan.warnings)
    return plans


def _check(plans, args) -> None:
    """Stop unless the whole run (both registries' requests) may be sent: as check_cost says."""
    import dataclasses

    from ..measuring.selection.run import check_cost

    ests = [p.estimate for _, p, _ in plans]
    costs = [e.cost for e in ests]
    total = dataclasses.replace(ests[0], requests=sum(e.requests for e in ests),
                                cost=None if None in costs else sum(costs))
    check_cost(total, args.max_cost, args.yes, plans[0][1].client.custom_url, args.model)


def compare_registries(args, new, old, queries: list[str], model: str):
    """`eval NEW --baseline OLD` for another command (`fix --eval`): the same queries and model on both
    registries, each plan's estimate said before anything is sent, the consent rules of `_check`, the
    answer cache. `args` carries add_asking_args's options and --quiet. Returns (new eval, old eval,
    compare_evals)."""
    from ..model.selection_compare import compare_evals
    from ._common import print_warnings, say

    opts = argparse.Namespace(**{**vars(args), "queries": queries, "model": model, "repeat": 1, "no_cache": False,
                                 "cache_dir": None, "retries": None, "dry_run": False, "batch": False})
    plans = [("", _plan(opts, new), new), ("baseline ", _plan(opts, old), old)]
    said = list(dict.fromkeys(w for _, plan, _ in plans for w in plan.warnings))  # both registries share most
    print_warnings(said)
    for label, plan, _ in plans:
        for line in estimate_lines(plan, label):
            say(line)
    _check(plans, opts)
    base = ask(plans[1][1], opts, "baseline ")
    ev = ask(plans[0][1], opts)
    print_warnings([w for w in dict.fromkeys(ev.warnings + base.warnings) if w not in said])
    return ev, base, compare_evals(old, base, new, ev)


def run(args: argparse.Namespace) -> int:
    from ._common import fit, load_registry, print_warnings, say, write

    if args.max_drop is not None and not args.baseline:
        from ..errors import InputError
        raise InputError("--max-drop compares with a baseline; pass --baseline OLD_REGISTRY too")
    _check_sweep_flags(args)
    defer_flags = {"--defer-rounds": args.defer_rounds != 3, "--search-k": args.search_k != 5,
                   "--no-deferred-names": args.no_deferred_names}
    for flag, given in defer_flags.items():
        if given and args.defer != "client":
            from ..errors import InputError
            raise InputError(f"{flag} belongs to --defer client; pass --defer client too")
    if args.defer is not None:
        from ._eval_defer import run_defer

        return run_defer(args, load_registry(args), _output)
    if args.visible is not None:
        return _run_sweep(args, load_registry(args))
    if args.description_tokens is not None:
        from ._eval_descriptions import run_descriptions

        return run_descriptions(args, load_registry(args))
    plans = _plans(args, load_registry(args))
    lines = [line for label, plan, _ in plans for line in estimate_lines(plan, label, args.batch)]
    if args.dry_run:
        costs = [p.estimate.cost for _, p, _ in plans]
        if None not in costs and sum(costs) > args.max_cost:
            lines.append(f"over --max-cost ${args.max_cost:,.2f}: a run would stop here unless --yes")
        write(fit("\n".join(lines)) + "\n", args.output)
        return 0
    for line in lines:
        say(line)
    _check(plans, args)
    (_, plan, reg), *old = plans
    base = ask(old[0][1], args, "baseline ") if old else None
    ev = ask(plan, args)
    write_log(ev, args)
    print_warnings(ev.warnings + (base.warnings if base else []))
    comparison = None
    if base is not None:
        from ..model.selection_compare import compare_evals

        comparison = compare_evals(old[0][2], base, reg, ev)
    write(_output(ev, base, comparison, args), args.output)
    return gate(ev, base, args)


def _output(ev, base, comparison, args) -> str:
    from ..present import selection as sel

    if args.format == "json":
        doc = ev.to_json()
        if base is not None:
            doc = {**doc, "baseline": base.to_json(), "comparison": comparison}
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if args.format == "csv":
        return sel.records_csv(ev)
    text = sel.selection_markdown(ev) if args.format == "markdown" else sel.selection_text(ev)
    if comparison is not None:
        from ..present.selection import comparison_text

        text += "\n" + comparison_text(comparison, markdown=args.format == "markdown")
    return text
