"""A registry's footprint as plain columns: tokens per tool and per part, under a named rendering.

Plain Python (no pandas or numpy), so `toolsurvey footprint` starts as fast as tiktoken itself;
`measuring.footprint` turns these columns into its DataFrame. `segment_tokens` is the one rule for
which part (or JSON fragment, in `measuring.responses`) owns each token.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from functools import cache, partial
from itertools import accumulate
from operator import sub

from ..core.jsontree import compact
from ..core.registry import Registry
from ..core.tokens import DEFAULT_ENCODING, get_encoding
from ..providers import render as R
from ..providers.catalog import rendering

# Row-level parts besides the tool parts: the per-request overhead and server instructions.
PARTS = R.PARTS + ("instructions", "overhead")
TEXT_COLUMNS = ("server", "tool", "kind")


@cache
def byte_lengths(encoding: str) -> list[int]:
    """Length in bytes of every token id of `encoding` (0 for ids that are not tokens)."""
    enc = get_encoding(encoding)
    out = [0] * enc.n_vocab
    ranks = getattr(enc, "_mergeable_ranks", None)
    if isinstance(ranks, dict) and ranks:  # 30x faster than asking for each id's bytes
        for token, i in ranks.items():
            out[i] = len(token)
        for text, i in enc._special_tokens.items():
            out[i] = len(text.encode("utf-8"))
        return out
    for i in range(enc.n_vocab):
        try:
            out[i] = len(enc.decode_single_token_bytes(i))
        except KeyError:
            pass
    return out


def as_tiktoken_sees(text: str) -> str:
    """`text` with unpaired surrogates replaced by U+FFFD, as tiktoken does before encoding."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _normalized(segs: R.Segments) -> tuple[R.Segments, str]:
    """Segments and their joined text free of unpaired surrogates. If tiktoken would pair two
    halves that sit in different segments, the whole chunk goes to its first segment's part."""
    fixed = [(as_tiktoken_sees(t), p) for t, p in segs]
    text = as_tiktoken_sees("".join(t for t, _ in segs))
    if text != "".join(t for t, _ in fixed):
        return [(text, segs[0][1])], text
    return fixed, text


def segment_tokens(tokens: Sequence[int], sizes: Iterable[int], encoding: str) -> list[int]:
    """Tokens owned by each segment of a text: a token belongs to the segment holding its first byte.

    `tokens` encode the segments laid end to end with `encoding`; `sizes` are their UTF-8 lengths.
    """
    lengths = byte_lengths(encoding)
    # Byte offset of each token's start; the tokens starting before a segment's end belong to it or
    # to an earlier segment.
    starts = list(accumulate(map(lengths.__getitem__, tokens), initial=0))
    upto = list(map(partial(bisect_left, starts, hi=len(tokens)), accumulate(sizes)))
    return list(map(sub, upto, [0, *upto[:-1]]))


def parts_many(rendered: Iterable[R.Rendered], encoding: str = DEFAULT_ENCODING) -> list[dict[str, int]]:
    """Tokens per part of each rendered tool; a tool's parts add up to its tokens.

    Every chunk is encoded whole; a token belongs to the segment holding its first byte.
    """
    encode = get_encoding(encoding).encode_ordinary
    out = []
    for r in rendered:
        row = dict.fromkeys(R.PARTS, 0)
        for part, n in r.constants.items():
            row[part] += n
        for segs in r.chunks:
            text = "".join([t for t, _ in segs])
            if text.isascii():
                sizes = [len(t) for t, _ in segs]
            else:
                try:
                    sizes = [len(t.encode("utf-8")) for t, _ in segs]
                except UnicodeEncodeError:
                    segs, text = _normalized(segs)
                    sizes = [len(t.encode("utf-8")) for t, _ in segs]
            for (_, part), n in zip(segs, segment_tokens(encode(text), sizes, encoding), strict=True):
                row[part] += n
        out.append(row)
    return out


def footprint_columns(reg: Registry, *, encoding: str | None = None, render: str = "json",
                      model: str | None = None, tool_choice: str = "auto",
                      parts: bool = True) -> tuple[dict[str, list], dict]:
    """The columns of `measure.footprint`'s table (server, tool, kind, each part, tokens) and its attrs.

    Raises InputError for an unknown rendering, encoding, model or tool_choice.
    """
    r = rendering(render)
    model = model or r.default_model()
    note = r.method(model, tool_choice)
    renderer = r.renderer(model)
    overhead = r.overhead(model, tool_choice).tokens if len(reg) else 0
    encoding = encoding or r.encoding(model) or DEFAULT_ENCODING
    encode = get_encoding(encoding).encode_ordinary

    tools = reg.tools
    instructions = [(s.name, s.instructions) for s in reg.servers.values() if s.instructions]
    rows = [dict.fromkeys(PARTS, 0) for _ in range(len(tools) + len(instructions) + bool(overhead))]
    if parts:
        for row, counted in zip(rows, parts_many((renderer(t) for t in tools), encoding), strict=False):
            row.update(counted)
        tool_tokens = [sum(r.values()) for r in rows[:len(tools)]]
    elif r.json:  # straight from the JSON text, no segments
        tool_tokens = [len(encode(compact(r.json_object(t)))) for t in tools]
    else:
        tool_tokens = [sum(r.constants.values()) + sum(len(encode("".join(t for t, _ in segs))) for segs in r.chunks)
                       for r in map(renderer, tools)]
    for row, (_, text) in zip(rows[len(tools):], instructions, strict=False):
        row["instructions"] = len(encode(text))
    if overhead:
        rows[-1]["overhead"] = overhead

    columns = {
        "server": [t.server for t in tools] + [s for s, _ in instructions] + ["(request)"] * bool(overhead),
        "tool": [t.name for t in tools] + ["(instructions)"] * len(instructions)
                + ["(provider overhead)"] * bool(overhead),
        "kind": ["tool"] * len(tools) + ["instructions"] * len(instructions) + ["overhead"] * bool(overhead),
        **{p: [r[p] for r in rows] for p in PARTS},
        "tokens": tool_tokens + [sum(r.values()) for r in rows[len(tools):]],
    }
    attrs = dict(encoding=encoding, render=render, model=model if r.provider else None,
                 tool_choice=tool_choice if r.tool_choices else None, method=note,
                 parts=parts, warnings=list(reg.warnings), sources=list(reg.sources))
    return columns, attrs
