"""Description rules: missing, too short or too long, restating the name, outside the token band."""

from __future__ import annotations

from .rule import Ctx, Hit, short


def _band_gap(ctx: Ctx) -> int:
    """Tokens from the current description to the nearest edge of the token band (negative: add)."""
    lo, hi = ctx.cfg["description"]["min_tokens"], ctx.cfg["description"]["max_tokens"]
    n = ctx.desc_tokens()
    return n - lo if n < lo else (n - hi if n > hi else 0)


def check_description_missing(ctx: Ctx):
    if not ctx.desc.strip():
        found = "no description" if ctx.tool.description is None else "an empty description"
        yield Hit(f"{found}; the model has only the name to choose by", _band_gap(ctx))


def check_description_short(ctx: Ctx):
    n, lo = ctx.desc_words(), ctx.cfg["description"]["min_words"]
    if ctx.desc.strip() and n < lo:
        yield Hit(f"{n} words (< {lo}): {short(ctx.desc)}", _band_gap(ctx))


def check_description_long(ctx: Ctx):
    n, hi = ctx.desc_words(), ctx.cfg["description"]["max_words"]
    if n > hi:
        yield Hit(f"{n} words (> {hi}), {ctx.desc_tokens():,} tokens", _band_gap(ctx))


def check_description_restates_name(ctx: Ctx):
    if ctx.restates():
        yield Hit(f"{ctx.tool.name}: {short(ctx.desc)} says nothing the name does not", _band_gap(ctx))


def check_description_token_band(ctx: Ctx):
    c = ctx.cfg["description"]
    if not ctx.desc.strip() or not c["min_words"] <= ctx.desc_words() <= c["max_words"] or ctx.restates():
        return  # the word-count and restatement rules already report this description
    n = ctx.desc_tokens()
    if n < c["min_tokens"] or n > c["max_tokens"]:
        yield Hit(f"{n} tokens, outside the {c['min_tokens']}-{c['max_tokens']} band", _band_gap(ctx))
