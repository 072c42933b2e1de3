"""`toolsurvey eval`: ask a model which tool it would call for each query, and count what it did."""

from __future__ import annotations

import argparse
import json

HELP = ("measure tool selection: ask a model (a provider's API or any OpenAI-compatible server) which tool "
        "it calls for each query; accuracy, skips, false and invalid calls, per tool and as a confusion matrix")
FORMATS = ("table", "csv", "json", "markdown")
APIS = ("openai-chat", "openai-responses", "anthropic-messages")


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, found {text!r}")
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


def configure(p: argparse.ArgumentParser) -> None:
    from ._common import add_output_args, add_registry_args
    from ._progress import add_quiet_arg

    add_registry_args(p)
    p.add_argument("--queries", metavar="FILE", required=True, nargs="+",
                   help="one or more files (ids unique across them): "
                        'JSON Lines of {"id", "query", "gold": [tool names] or [] when no tool should fire, "args"?: {...}}')
    p.add_argument("--model", required=True, help="the model id, as the provider or the --base-url server names it")
    p.add_argument("--base-url", metavar="URL",
                   help="an OpenAI-compatible server (vLLM, Ollama, llama.cpp, LM Studio, LiteLLM); its key is optional")
    p.add_argument("--api", choices=APIS, help="the API to ask (default: by the model; openai-chat with --base-url)")
    p.add_argument("--system", metavar="TEXT", help="a system prompt sent with every query")
    p.add_argument("--repeat", type=_positive, default=1, metavar="N", help="ask each query N times and report agreement")
    p.add_argument("--concurrency", type=_positive, default=1, metavar="N", help="requests in flight at once (default: 1)")
    p.add_argument("--max-cost", type=_dollars, default=1.0, metavar="DOLLARS",
                   help="send nothing when the estimate is over this (default: $1)")
    p.add_argument("--yes", action="store_true", help="send whatever the estimate")
    p.add_argument("--dry-run", action="store_true", help="print the estimate and send nothing (no key needed)")
    p.add_argument("--batch", action="store_true",
                   help="through the provider's batch API at half price; waits for it, and a re-run resumes it")
    p.add_argument("--no-cache", action="store_true", help="ask again even when an answer to the same request is cached")
    p.add_argument("--cache-dir", metavar="DIR", help="where answers are cached (default: the user cache folder)")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS", help="per request (default: 120)")
    p.add_argument("--log", metavar="FILE", help="write one JSON line per answer: the verdict and what came back")
    p.add_argument("--baseline", nargs="+", metavar="PATH",
                   help="an older registry: run the same queries and model on it, and compare")
    p.add_argument("--fail-under", type=_share, metavar="ACC", help="exit 1 when accuracy is under ACC (0.8 or 80%%)")
    p.add_argument("--max-drop", type=float, metavar="POINTS",
                   help="with --baseline: exit 1 when accuracy drops by more than POINTS percentage points")
    add_quiet_arg(p)
    add_output_args(p, FORMATS)


def _plan(args, reg):
    from ..measuring.selection.run import plan_eval

    return plan_eval(reg, args.queries, args.model, api=args.api, base_url=args.base_url, system=args.system,
                     repeat=args.repeat, cache=not args.no_cache, cache_dir=args.cache_dir, timeout=args.timeout,
                     dry_run=args.dry_run, batch=args.batch)


def _estimate_lines(plan, label: str = "") -> list[str]:
    from ..present.units import money, number

    e = plan.estimate
    cached = e.total - e.requests
    head = f"{label}estimate: {number(e.requests)} of {number(e.total)} requests to send" + (
        f" ({number(cached)} answered from the cache)" if cached else "")
    tokens = (f"{number(e.input_tokens)} input tokens ({number(e.tools_tokens)} of tool definitions per request, "
              f"counted with {e.method}), {number(e.output_tokens)} output tokens assumed")
    if e.cost is None:
        return [head, tokens, f"no price is known for {plan.client.model!r}: the run is counted in tokens only"]
    return [head, tokens, f"{money(e.cost)} at {e.price.model}'s rates ({e.price.source}, {e.price.as_of}); "
                          f"{money(e.cost_cached)} with the tool definitions cached"]


def _run(plan, args, label: str = ""):
    from ..measuring.selection.run import check_cost
    from ._common import print_warnings, say
    from ._progress import Bar

    for line in _estimate_lines(plan, label):
        say(line)
    print_warnings(plan.warnings)
    check_cost(plan.estimate, args.max_cost, args.yes, plan.client.custom_url, args.model)
    with Bar(f"{label}asking {args.model}", len(plan.jobs), quiet=args.quiet) as bar:
        def progress(done, total):
            bar.advance(done - bar.done, total=total)
        try:
            return plan.run(args.concurrency, progress, batch=args.batch)
        finally:
            plan.client.close()


def run(args: argparse.Namespace) -> int:
    from ._common import load_registry, print_warnings, say, write

    if args.max_drop is not None and not args.baseline:
        from ..errors import InputError
        raise InputError("--max-drop compares with a baseline; pass --baseline OLD_REGISTRY too")
    reg = load_registry(args)
    if args.dry_run:
        plan = _plan(args, reg)
        print_warnings(plan.warnings)
        from ._common import fit

        lines = _estimate_lines(plan)
        if plan.estimate.cost is not None and plan.estimate.cost > args.max_cost:
            lines.append(f"over --max-cost ${args.max_cost:,.2f}: a run would stop here unless --yes")
        write(fit("\n".join(lines)) + "\n", args.output)
        return 0
    ev = _run(_plan(args, reg), args)
    base = None
    if args.baseline:
        from ..inputs.formats import load

        old = load(*args.baseline, format=args.input_format)
        print_warnings(old.warnings)
        base = _run(_plan(args, old), args, "baseline ")
    if args.log:
        write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ev.records), args.log)
    print_warnings(ev.warnings)
    comparison = None
    if base is not None:
        from ..model.selection_compare import compare_evals

        comparison = compare_evals(old, base, reg, ev)
    write(_output(ev, base, comparison, args), args.output)
    return _gate(ev, base, args, say)


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


def _gate(ev, base, args, say) -> int:
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
