"""Measurement options shared by diff, check and report (the same as `footprint`'s)."""

from __future__ import annotations

import argparse


def add_encoding_arg(p: argparse.ArgumentParser, what: str = "tiktoken encoding", by_model: bool = True) -> None:
    from ..core.choices import DEFAULT_ENCODING

    family = ", or the model family's" if by_model else ""
    p.add_argument("--encoding", default=None, help=f"{what} (default: {DEFAULT_ENCODING}{family})")


def add_render_arg(p: argparse.ArgumentParser, help: str, default: str | None = None, auto: bool = False) -> None:
    """--render: the renderings providers/ has, and `auto` (the model's provider's) where asked."""
    from ..providers.catalog import AUTO, rendering_names

    p.add_argument("--render", default=default, choices=(*rendering_names(), *([AUTO] if auto else [])), help=help)


def add_measure_args(p: argparse.ArgumentParser) -> None:
    from ._args import text

    add_encoding_arg(p)
    add_render_arg(p, "how tools are turned into prompt text (default: the scenario's, else json)")
    p.add_argument("--model", type=text, default=None, help="model whose provider constants apply (openai/anthropic renderings); "
                        "with --scenario, also the model priced; check also checks its provider's request limits")


def measure_kwargs(args: argparse.Namespace) -> dict:
    return {"encoding": args.encoding, "render": args.render, "model": args.model}


def add_plan_inputs(p: argparse.ArgumentParser) -> None:
    """What a plan reads besides the registry (plan, fix): the usage log, phases, scenario, model and the
    scenario options."""
    from ._args import text

    p.add_argument("--usage", metavar="LOG", help="tool-call log (CSV or JSONL), or agent traces, for unused tools and result sizes")
    p.add_argument("--phases", metavar="FILE", help="phases TOML file for phase gating")
    p.add_argument("--scenario", metavar="FILE", help="scenario TOML file: model, steps, caching, prices, ...")
    p.add_argument("--model", type=text, default=None, help="the model priced (overrides the scenario's)")
    add_scenario_options(p)


def add_scenario_options(p: argparse.ArgumentParser) -> None:
    """The scenario fields `report` and `plan` take as options, as `simulate` does (model: --model)."""
    from ..core.choices import CACHING
    from ._args import above, at_least

    p.add_argument("--tasks-per-day", dest="tasks_per_day", type=above(0), help="completed tasks per day")
    p.add_argument("--caching", choices=CACHING, default=None,
                   help="prompt caching (default: auto, the provider's own behaviour)")
    p.add_argument("--system-prompt-tokens", dest="system_prompt_tokens", type=at_least(0, float),
                   help="tokens of the system prompt on every request")
    p.add_argument("--accuracy-curve", dest="accuracy_curve", metavar="FILE",
                   help="an accuracy curve in accuracy.toml's format, e.g. one `toolsurvey eval --visible ... --fit` "
                        "measured (default: the scenario's, else the bundled curve)")


def scenario_options(args: argparse.Namespace) -> dict:
    return {k: getattr(args, k) for k in ("tasks_per_day", "caching", "system_prompt_tokens", "accuracy_curve")}
