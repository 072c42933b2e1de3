"""Measurement options shared by diff, check and report (the same as `footprint`'s)."""

from __future__ import annotations

import argparse


def add_measure_args(p: argparse.ArgumentParser) -> None:
    from ._args import text

    p.add_argument("--encoding", default=None, help="tiktoken encoding (default: o200k_base, or the model family's)")
    p.add_argument("--render", default=None, choices=("json", "sent", "openai", "anthropic"),
                   help="how tools are turned into prompt text (default: the scenario's, else json)")
    p.add_argument("--model", type=text, default=None, help="model whose provider constants apply (openai/anthropic renderings); "
                        "with --scenario, also the model priced")


def measure_kwargs(args: argparse.Namespace) -> dict:
    return {"encoding": args.encoding, "render": args.render, "model": args.model}
