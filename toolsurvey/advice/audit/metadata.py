"""Rules on what a tool declares beside its input: annotations and the output schema."""

from __future__ import annotations

from ...core.jsontree import compact
from ...core.tokens import count
from .rule import Ctx, Hit


def check_annotations_missing(ctx: Ctx):
    # readOnlyHint says whether the tool writes; destructiveHint only means something for a tool that
    # writes, so stating it counts as saying the tool is not read-only (MCP ToolAnnotations).
    ann = ctx.tool.annotations if isinstance(ctx.tool.annotations, dict) else {}
    if "readOnlyHint" not in ann and "destructiveHint" not in ann:
        yield Hit("annotations lack readOnlyHint" + ("" if ann else " (no annotations at all)"))
    elif ann.get("readOnlyHint") is False and "destructiveHint" not in ann:
        yield Hit("readOnlyHint is false but destructiveHint is not given")


def check_output_schema_heavy(ctx: Ctx):
    out = ctx.tool.output_schema
    if not isinstance(out, dict) or not out:
        return
    o, i = count(compact(out), ctx.encoding), count(compact(ctx.schema), ctx.encoding)
    if o > ctx.cfg["output_schema"]["max_ratio"] * i:
        yield Hit(f"output schema {o:,} tokens vs input schema {i:,} (when the client sends it)", o - i)
