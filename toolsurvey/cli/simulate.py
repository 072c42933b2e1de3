"""`toolsurvey simulate`: cost per task across steps, visible tools, strategies, caching and models."""

from __future__ import annotations

import argparse

HELP = "simulate what the tool surface costs per task and per month, across a grid of scenarios"

COLUMNS = ["model", "strategy", "caching", "visible", "steps", "mean_visible", "wrong_rate", "success",
           "expected_requests", "tool_tokens_per_task", "input_tokens_per_task", "cost_per_task",
           "cost_per_completed_task", "cost_per_month", "fits", "within_limits"]


def configure(p: argparse.ArgumentParser) -> None:
    from .._choices import CACHE_TTLS, CACHING, STRATEGIES
    from ._common import add_output_args

    p.add_argument("paths", nargs="*", metavar="REGISTRY",
                   help="tool files or registry files (none: average-size mode with --tool-tokens and --registry-size)")
    p.add_argument("--input-format", dest="input_format", default=None, help="skip format detection")
    p.add_argument("--scenario", metavar="FILE", help="scenario TOML file; options below override its fields")
    p.add_argument("--model", help="model name(s), comma-separated (see toolsurvey/assumptions/prices.toml)")
    p.add_argument("--steps", help="requests per task: N, A-B or a comma list (e.g. 1-20)")
    p.add_argument("--visible", help="cap on visible tools: N, A-B or a comma list (e.g. 6,12,25,40)")
    p.add_argument("--strategy", help=f"comma list of: {', '.join(STRATEGIES)}")
    p.add_argument("--caching", help=f"comma list of: {', '.join(CACHING)}")
    p.add_argument("--cache-ttl", dest="cache_ttl", choices=CACHE_TTLS,
                   help="Anthropic's cache lifetime: 5m (1.25x write) or 1h (2x write)")
    p.add_argument("--phases", metavar="FILE", help="phases TOML file for --strategy phases")
    p.add_argument("--core", help="always-visible tools for retrieval/tool_search (comma-separated globs)")
    p.add_argument("--retrieval-k", dest="retrieval_k", type=int, help="tools retrieved per task")
    p.add_argument("--tasks-per-day", dest="tasks_per_day", type=float, help="completed tasks per day")
    p.add_argument("--system-prompt-tokens", dest="system_prompt_tokens", type=float)
    p.add_argument("--response-tokens", dest="response_tokens", type=float, help="tokens per tool result")
    p.add_argument("--usage", metavar="LOG", help="tool-call log: its mean result replaces the scenario's, as "
                                                  "`report` and `plan` do (--response-tokens still wins)")
    p.add_argument("--render", choices=("json", "sent", "openai", "anthropic", "auto"),
                   help="how tool definitions are measured (auto: the model's provider rendering)")
    p.add_argument("--tool-tokens", dest="tool_tokens", type=float, help="average-size mode: tokens per tool")
    p.add_argument("--registry-size", dest="registry_size", type=int, help="average-size mode: tools in the registry")
    p.add_argument("--calibration", metavar="FILE",
                   help="calibration file from `toolsurvey calibrate`: scale offline counts to a provider's exact ones")
    p.add_argument("--prices", dest="price_file", metavar="FILE_OR_URL",
                   help="price file: toolsurvey TOML or LiteLLM model_prices_and_context_window.json")
    p.add_argument("--no-accuracy", dest="accuracy", action="store_false", default=None,
                   help="turn off the accuracy effect of catalog size (wrong calls 0, success 1)")
    p.add_argument("--samples", type=int, help="Monte Carlo draws for a single scenario (prints p50/p90/p99)")
    p.add_argument("--seed", type=int)
    add_output_args(p)


def parse_list(text: str, name: str, *, kind=int) -> list:
    """`5`, `1-20` or `6,12,25` (ranges allowed inside lists); raises InputError otherwise."""
    from ..errors import InputError

    out: list = []
    for part in (x.strip() for x in text.split(",")):
        try:
            if kind is int and "-" in part.lstrip("-"):
                a, b = (int(x) for x in part.split("-", 1))
                if b < a:
                    raise ValueError
                out.extend(range(a, b + 1))
            else:
                out.append(kind(part))
        except ValueError:
            raise InputError(f"--{name}: expected N, A-B or a comma list, found {text!r}") from None
    return out


def grid(args: argparse.Namespace) -> tuple[object, dict]:
    """The base scenario and the swept fields from the options."""
    from ..scenario import Scenario, load_scenario

    base = load_scenario(args.scenario) if args.scenario else Scenario()
    axes: dict = {}
    if args.model:
        axes["model"] = parse_list(args.model, "model", kind=str)
    if args.steps:
        axes["steps"] = parse_list(args.steps, "steps")
    if args.visible:
        axes["visible"] = parse_list(args.visible, "visible")
    if args.strategy:
        axes["strategy"] = parse_list(args.strategy, "strategy", kind=str)
    if args.caching:
        axes["caching"] = parse_list(args.caching, "caching", kind=str)
    for k in ("retrieval_k", "tasks_per_day", "system_prompt_tokens", "response_tokens", "render", "cache_ttl",
              "tool_tokens", "registry_size", "price_file", "accuracy", "samples", "seed", "calibration"):
        v = getattr(args, k)
        if v is not None:
            axes[k] = v
    if args.phases:
        axes["phases"] = args.phases
    if args.core:
        axes["core"] = tuple(parse_list(args.core, "core", kind=str))
    return base, axes


def run(args: argparse.Namespace) -> int:
    import json
    import sys
    import warnings

    from ..simulation import simulate, sweep
    from ._common import load_registry, print_warnings, render_table, write

    reg = load_registry(args) if args.paths else None
    base, axes = grid(args)
    if args.usage:
        from ..advice import baseline

        base = baseline(reg, base, args.usage)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = sweep(reg, base, **axes)
        single = {k: v[0] if isinstance(v, list) else v for k, v in axes.items()}
        one = simulate(reg, base, **single) if len(table) == 1 and (axes.get("samples") or base.samples) else None
    print_warnings(sorted({str(w.message) for w in caught}))
    a = table.attrs["assumptions"]
    out = table[COLUMNS]
    if args.format == "csv":
        write(out.to_csv(index=False), args.output)
    elif args.format == "json":
        doc = {"assumptions": a, "rows": json.loads(out.to_json(orient="records")),
               "percentiles": json.loads(one.percentiles.to_json(orient="index")) if one else None}
        write(json.dumps(doc, indent=2, default=str, ensure_ascii=False) + "\n", args.output)
    else:
        curve = a["accuracy_curve"]
        acc = curve if isinstance(curve, str) else f"{curve['source']} ({curve.get('reading', curve['outside'])})"
        prices = "; ".join(f"{p['model']} ${p['input']:g}/${p['output']:g} in/out per M tokens, "
                           f"cache write ${p['cache_write']:g}, read ${p['cache_read']:g} ({p['source']}, {p['as_of']})"
                           + (f" [note: {p['note']}]" if p.get("note") else "")
                           for p in a["prices"].values())
        header = "\n".join([
            f"{len(out):,} scenario(s); tools measured by: {a['tool_tokens_method']}"
            + (f" ({a['tool_tokens_note']})" if a.get("tool_tokens_note") else ""),
            f"caching: {a.get('caching_used', a['caching'])}",
            f"per task: system {a['system_prompt_tokens']:g}, user {a['user_message_tokens']:g}, call "
            f"{a['call_tokens']:g}, result {a['response_tokens']}, answer {a['answer_tokens']:g} tokens; "
            f"month = {a['tasks_per_day']:g} tasks/day x {a['days_per_month']:g} days",
            f"accuracy: {acc}", f"prices: {prices}", f"rules: {a['rules']}"])
        text = header + "\n\n" + render_table(_money(out)) + "\n"
        if one is not None:
            text += f"\nMonte Carlo ({one.percentiles.attrs['samples']:,} tasks, seed {one.percentiles.attrs['seed']}):\n"
            text += render_table(one.percentiles.reset_index(names="")) + "\n"
        write(text, args.output)
    if not table["fits"].all():
        print("note: scenarios that exceed the context window are not priced (empty cost)", file=sys.stderr)
    return 0


def _money(df):
    """Dollar columns as text with enough decimals for cents-per-task figures."""
    df = df.copy()
    for c in df.columns:
        if c.startswith("cost_"):
            fmt = "${:,.0f}" if c == "cost_per_month" else "${:,.4f}"
            df[c] = [("" if v != v else fmt.format(v)) for v in df[c]]
    return df
