"""`toolsurvey simulate`: cost per task across steps, visible tools, strategies, caching and models."""

from __future__ import annotations

import argparse

HELP = "simulate what the tool surface costs per task and per month, across a grid of scenarios"

COLUMNS = ["model", "strategy", "caching", "visible", "steps", "mean_visible", "wrong_rate", "success",
           "expected_requests", "tool_tokens_per_task", "input_tokens_per_task", "cost_per_task",
           "cost_per_completed_task", "cost_per_month", "fits", "within_limits"]


def configure(p: argparse.ArgumentParser) -> None:
    from ..core.choices import CACHE_TTLS, CACHING, STRATEGIES
    from ._args import above, at_least
    from ._common import add_output_args
    from ._measure import add_render_arg

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
    p.add_argument("--retrieval-k", dest="retrieval_k", type=at_least(1), help="tools retrieved per task")
    p.add_argument("--search", help="tool_search: the provider's documented search (anthropic-bm25, anthropic-regex, "
                                    "openai; providers.toml [search.*]) or custom")
    p.add_argument("--search-quality", dest="search_quality", type=at_least(0, float, 1),
                   help="hit rate of one search at its k (default 1: every search finds the needed tool)")
    p.add_argument("--queries", metavar="FILE", help="measure search_quality: bm25 hit@k of these queries on the registry")
    p.add_argument("--max-searches", dest="max_searches", type=at_least(1), help="searches for one tool before a task fails")
    p.add_argument("--tasks-per-day", dest="tasks_per_day", type=above(0), help="completed tasks per day")
    p.add_argument("--system-prompt-tokens", dest="system_prompt_tokens", type=at_least(0, float))
    p.add_argument("--response-tokens", dest="response_tokens", type=at_least(0, float), help="tokens per tool result")
    p.add_argument("--usage", metavar="LOG", help="tool-call log: its mean result replaces the scenario's, as "
                                                  "`report` and `plan` do (--response-tokens still wins)")
    add_render_arg(p, "how tool definitions are measured (auto: the model's provider rendering)", auto=True)
    p.add_argument("--tool-tokens", dest="tool_tokens", type=at_least(0, float), help="average-size mode: tokens per tool")
    p.add_argument("--registry-size", dest="registry_size", type=at_least(1), help="average-size mode: tools in the registry")
    p.add_argument("--accuracy-curve", dest="accuracy_curve", metavar="FILE",
                   help="an accuracy curve in accuracy.toml's format, e.g. one `toolsurvey eval --visible ... --fit` "
                        "measured (default: the scenario's, else the bundled curve)")
    p.add_argument("--calibration", metavar="FILE",
                   help="calibration file from `toolsurvey calibrate`: scale offline counts to a provider's exact ones")
    p.add_argument("--prices", dest="price_file", metavar="FILE_OR_URL",
                   help="price file: toolsurvey TOML or LiteLLM model_prices_and_context_window.json")
    p.add_argument("--no-accuracy", dest="accuracy", action="store_false", default=None,
                   help="turn off the accuracy effect of catalog size (wrong calls 0, success 1)")
    p.add_argument("--samples", type=at_least(1, int, 1_000_000), help="Monte Carlo draws for a single scenario (prints p50/p90/p99)")
    p.add_argument("--seed", type=int)
    add_output_args(p)


def parse_list(text: str, name: str, *, kind=int, low: int = 1, high: int | None = None) -> list:
    """`5`, `1-20` or `6,12,25` (ranges allowed inside lists), each value in [low, high] and at most
    MAX_VALUES values, checked before any range is expanded; raises InputError otherwise."""
    from ..errors import InputError
    from ._args import MAX_VALUES

    out: list = []
    for part in (x.strip() for x in text.split(",")):
        try:
            if kind is int and "-" in part.lstrip("-"):
                a, b = (int(x) for x in part.split("-", 1))
                if b < a:
                    raise ValueError
                bounds = (a, b)
            else:
                out.append(kind(part))
                bounds = (out[-1], out[-1]) if kind is int else None
        except ValueError:
            raise InputError(f"--{name}: expected N, A-B or a comma list, found {text!r}") from None
        if kind is not int and not out[-1]:
            raise InputError(f"--{name}: expected names, found an empty one in {text!r}")
        if bounds and (bounds[0] < low or (high is not None and bounds[1] > high)):
            limit = f"from {low} to {high:,}" if high is not None else f"{low} or more"
            raise InputError(f"--{name}: expected values {limit}, found {part!r}")
        if bounds and len(out) + bounds[1] - bounds[0] + 1 > MAX_VALUES:
            raise InputError(f"--{name}: at most {MAX_VALUES:,} values, found {text!r}")
        if bounds and bounds[0] != bounds[1]:
            out.extend(range(bounds[0], bounds[1] + 1))
    return out


def grid(args: argparse.Namespace) -> tuple[object, dict]:
    """The base scenario and the swept fields from the options."""
    from ..model.scenario import Scenario, load_scenario, read_files
    from ._args import MAX_STEPS

    base = load_scenario(args.scenario) if args.scenario else Scenario()
    axes: dict = {}
    if args.model is not None:
        axes["model"] = parse_list(args.model, "model", kind=str)
    if args.steps is not None:
        axes["steps"] = parse_list(args.steps, "steps", high=MAX_STEPS)
    if args.visible is not None:
        axes["visible"] = parse_list(args.visible, "visible", low=0)
    if args.strategy is not None:
        axes["strategy"] = parse_list(args.strategy, "strategy", kind=str)
    if args.caching is not None:
        axes["caching"] = parse_list(args.caching, "caching", kind=str)
    for k in ("search", "search_quality", "max_searches", "retrieval_k", "tasks_per_day", "system_prompt_tokens", "response_tokens", "render", "cache_ttl",
              "tool_tokens", "registry_size", "price_file", "accuracy", "accuracy_curve", "samples", "seed", "calibration"):
        v = getattr(args, k)
        if v is not None:
            axes[k] = v
    if args.phases:
        axes["phases"] = args.phases
    if args.core:
        axes["core"] = tuple(parse_list(args.core, "core", kind=str))
    # A price or calibration file is read once, here at the edge (a phases path stays a path: sweep
    # takes a tuple for an axis, and reads the path once as a fixed value).
    return base, {**axes, **read_files({k: axes[k] for k in ("price_file", "calibration") if k in axes})}


def run(args: argparse.Namespace) -> int:
    import json
    import warnings

    from ..model.simulate import simulate
    from ..model.sweeps import sweep
    from ._common import fit, load_registry, print_warnings, render_table, say, write

    base, axes = grid(args)  # option values checked before the registry is read
    reg = load_registry(args) if args.paths else None
    if args.usage:
        from ..advice.baseline import baseline

        base = baseline(reg, base, args.usage)
    if args.queries:
        base = measured_quality(reg, base, args.queries, axes)
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
            f"accuracy: {acc}", f"prices: {prices}", f"rules: {a['rules']}",
            *(f"{k.replace('_', ' ')}: {a[k]}" for k in ("search_quality", "search_rules") if a.get(k))])
        text = fit(header, args.wide) + "\n\n" + _table(out, args.wide) + "\n"
        if one is not None:
            text += f"\nMonte Carlo ({one.percentiles.attrs['samples']:,} tasks, seed {one.percentiles.attrs['seed']}):\n"
            text += render_table(one.percentiles.reset_index(names=""), wide=args.wide) + "\n"
        write(text, args.output)
    if not table["fits"].all():
        say("note: scenarios that exceed the context window are not priced (empty cost)")
    return 0


def measured_quality(reg, base, queries: str, axes: dict):
    """`base` with search_quality measured by a BM25 evaluation of `queries` on `reg` (replacing any
    --search-quality); raises InputError without a registry."""
    import dataclasses

    from ..errors import InputError
    from ..measuring.retrieval.evaluation import retrieval_eval

    if reg is None:
        raise InputError("--queries needs a registry to search")
    axes.pop("search_quality", None)
    return dataclasses.replace(base, search_quality=retrieval_eval(reg, queries))


def _table(out, wide: bool) -> str:
    """The scenarios as a text table; to fit the width, one scenario is shown as field/value rows and
    the columns that are the same on every row are named once above the table (all of them with --wide)."""
    import pandas as pd

    from ..present.units import cell
    from ._common import fit, render_table

    if wide:
        return render_table(out, wide=True)
    if len(out) == 1:
        row = out.iloc[0]
        return render_table(pd.DataFrame({"": list(out.columns), "value": [cell(v, c) for c, v in row.items()]}))
    same = [c for c in out.columns if out[c].nunique(dropna=False) == 1]
    line = "every row: " + ", ".join(f"{c} {cell(out[c].iloc[0], c) or '-'}" for c in same)
    return (fit(line) + "\n\n" if same else "") + render_table(out.drop(columns=same))
