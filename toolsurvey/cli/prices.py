"""`toolsurvey prices`: where each price comes from, and fetching LiteLLM's current price file."""

from __future__ import annotations

import argparse

HELP = "show a model's prices and where each figure came from, or update the LiteLLM price file"


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=("show", "update"),
                   help="show: a model's prices (no MODEL: the models of known providers); "
                        "update: fetch LiteLLM's current file into the user cache")
    p.add_argument("model", nargs="?", metavar="MODEL", help="model id (dated ids resolve, e.g. claude-sonnet-4-5-20250929)")
    p.add_argument("--prices", dest="price_file", metavar="FILE_OR_URL",
                   help="show: a price file applied over the defaults (toolsurvey TOML or LiteLLM JSON)")
    p.add_argument("--url", default=None, help="update: where to fetch from (default: LiteLLM's main branch)")


def run(args: argparse.Namespace) -> int:
    from ..errors import InputError
    from ..providers.caching import caching_rules
    from ..providers.catalog import provider_names
    from ..providers.limits import limits
    from ..providers.litellm import LITELLM_URL, litellm_source
    from ..providers.prices import load_prices, price_for, update_prices
    from ._common import fit, render_table

    if args.action == "update":
        if args.model:
            raise InputError("prices update takes no MODEL")
        path, n = update_prices(args.url or LITELLM_URL)
        print(fit(f"updated: {n:,} chat models from {args.url or LITELLM_URL}, saved to {path}; "
                  "it is now the default price source"))
        return 0
    prices = load_prices(args.price_file)
    src = litellm_source()
    if not args.model:
        import pandas as pd

        known = sorted((p for p in prices.values() if p.provider in provider_names()),
                       key=lambda p: (p.provider, p.model))
        print(fit(f"{len(prices):,} models priced; default source {src['label']} ({src['path'] or src['source']}). "
                  f"The {len(known):,} of providers with rendering, caching and limit rules:\n"))
        print(render_table(pd.DataFrame([{"provider": p.provider, "model": p.model, "input": p.input,
                                          "output": p.output, "cache_read": p.cache_read,
                                          "context_window": p.context_window} for p in known])))
        return 0
    p = price_for(args.model, prices)
    lines = [f"{p.model} ({p.provider or 'provider unknown'}), US dollars per million tokens"
             + (f"; note: {p.note}" if p.note else "")]
    for f in ("input", "output", "cache_write", "cache_write_1h", "cache_read", "cache_storage",
              "context_window", "min_cache_tokens"):
        v = getattr(p, f)
        shown = "-" if v is None else f"{v:,}" if isinstance(v, int) else f"{v:g}"
        lines.append(f"  {f:<17}{shown:>12}   {p.origins.get(f, 'not given' if v is None else '')}")
    rules = caching_rules(p.provider, p.model)
    if rules:
        lines.append(f"caching: auto = {rules.get('auto')}; {' '.join(str(rules.get('note', '')).split())} "
                     f"({rules.get('source')}, {rules.get('as_of')})")
    lim = limits(p.provider)
    if lim:
        shown = [f"{lim['max_tools']} tools" if "max_tools" in lim else "",
                 f"names of at most {lim['max_name_length']} characters" if "max_name_length" in lim else "",
                 f"matching {lim['name_pattern']}" if "name_pattern" in lim else ""]
        lines.append(f"limits: {', '.join(x for x in shown if x)} ({lim.get('source')}, {lim.get('as_of')})")
    print(fit("\n".join(lines)))
    return 0
