"""Measure a Registry: exact tokens per tool and per part, under a named rendering."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

import numpy as np
import pandas as pd

from . import render as R
from .errors import InputError
from .registry import Registry
from .tokens import DEFAULT_ENCODING, get_encoding

# Row-level parts besides the tool parts: the per-request overhead and server instructions.
PARTS = R.PARTS + ("instructions", "overhead")
DEFAULT_MODEL = {"openai": "gpt-4o", "anthropic": "claude-sonnet-4-5"}
_INDEX = {p: i for i, p in enumerate(PARTS)}
_JSON_RENDERINGS = ("json", "sent", "anthropic")


@cache
def _byte_lengths(encoding: str) -> np.ndarray:
    """Length in bytes of every token id of `encoding` (0 for ids that are not tokens)."""
    enc = get_encoding(encoding)
    out = np.zeros(enc.n_vocab, dtype=np.int64)
    ranks = getattr(enc, "_mergeable_ranks", None)
    if isinstance(ranks, dict) and ranks:  # 30x faster than asking for each id's bytes
        out[np.fromiter(ranks.values(), np.int64, len(ranks))] = np.fromiter(map(len, ranks), np.int64, len(ranks))
        for text, i in enc._special_tokens.items():
            out[i] = len(text.encode("utf-8"))
        return out
    for i in range(enc.n_vocab):
        try:
            out[i] = len(enc.decode_single_token_bytes(i))
        except KeyError:
            pass
    return out


def _as_tiktoken_sees(text: str) -> str:
    """`text` with unpaired surrogates replaced by U+FFFD, as tiktoken does before encoding."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _normalized(segs: R.Segments) -> tuple[R.Segments, str]:
    """Segments and their joined text free of unpaired surrogates. If tiktoken would pair two
    halves that sit in different segments, the whole chunk goes to its first segment's part."""
    fixed = [(_as_tiktoken_sees(t), p) for t, p in segs]
    text = _as_tiktoken_sees("".join(t for t, _ in segs))
    if text != "".join(t for t, _ in fixed):
        return [(text, segs[0][1])], text
    return fixed, text


class Counter:
    """Counts rendered tools with one encoding, attributing each token to the part it starts in."""

    def __init__(self, encoding: str = DEFAULT_ENCODING):
        enc = get_encoding(encoding)
        self.encoding = encoding
        self._encode = enc.encode_ordinary
        self._to_numpy = enc.encode_to_numpy
        self._lengths = _byte_lengths(encoding)

    def tokens(self, text: str) -> np.ndarray:
        """Token ids of `text`, special-token strings counted as ordinary text."""
        try:  # a numpy buffer straight from tiktoken: no Python list of ints is built
            return self._to_numpy(text, disallowed_special=())
        except UnicodeEncodeError:
            return self._to_numpy(_as_tiktoken_sees(text), disallowed_special=())

    def count(self, text: str) -> int:
        """Tokens in `text`."""
        return len(self.tokens(text))

    def total(self, rendered: R.Rendered) -> int:
        """Tokens of one rendered tool, without the part breakdown."""
        return sum(rendered.constants.values()) + sum(
            self.count("".join(t for t, _ in segs)) for segs in rendered.chunks)

    def parts(self, rendered: R.Rendered) -> dict[str, int]:
        """Tokens per part of one rendered tool; they add up to `total(rendered)`."""
        row = self.parts_many([rendered])[0]
        return {p: int(n) for p, n in zip(R.PARTS, row, strict=True)}

    def owners(self, tokens: np.ndarray, seg_bytes) -> np.ndarray:
        """Index of the segment holding each token's first byte, the segments (byte lengths) laid end to end."""
        lengths = self._lengths[tokens]
        starts = np.cumsum(lengths) - lengths  # byte offset of each token in all segments end to end
        return np.searchsorted(np.cumsum(seg_bytes), starts, side="right")

    def counts(self, texts: Iterable[str]) -> list[int]:
        """Tokens of each text."""
        encode = self._encode
        return [len(encode(t)) for t in texts]

    def parts_many(self, rendered: Iterable[R.Rendered]) -> np.ndarray:
        """Tokens per part (columns in `render.PARTS` order) of each rendered tool.

        Every chunk is encoded whole; a token belongs to the segment holding its first byte. The
        attribution runs once over all tools' tokens (numpy), not once per tool.
        """
        rendered = list(rendered)
        n_parts = len(R.PARTS)
        out = np.zeros((len(rendered), n_parts), dtype=np.int64)
        arrays, seg_bytes, seg_code = [], [], []
        for row, r in enumerate(rendered):
            for part, n in r.constants.items():
                out[row, _INDEX[part]] += n
            for segs in r.chunks:
                text = "".join([t for t, _ in segs])
                if text.isascii():
                    seg_bytes.extend([len(t) for t, _ in segs])
                else:
                    try:
                        sizes = [len(t.encode("utf-8")) for t, _ in segs]
                    except UnicodeEncodeError:
                        segs, text = _normalized(segs)
                        sizes = [len(t.encode("utf-8")) for t, _ in segs]
                    seg_bytes.extend(sizes)
                seg_code.extend([row * n_parts + _INDEX[p] for _, p in segs])
                arrays.append(self.tokens(text))
        if arrays:
            segment = self.owners(np.concatenate(arrays), seg_bytes)
            codes = np.asarray(seg_code, dtype=np.int64)[segment]
            out += np.bincount(codes, minlength=out.size).reshape(out.shape)
        return out


def footprint(reg: Registry, *, encoding: str | None = None, render: str = "json",
              model: str | None = None, tool_choice: str = "auto", parts: bool = True) -> pd.DataFrame:
    """One row per tool with its tokens by part, plus rows for server instructions and the
    per-request overhead, so that `table.tokens.sum()` is the tokens one request carries.

    `parts=False` skips the part breakdown (faster): tool rows then carry only `tokens`.
    Raises InputError for an unknown rendering, encoding or model.
    """
    if render not in R.RENDERINGS:
        raise InputError(f"unknown rendering {render!r}; expected one of: {', '.join(R.RENDERINGS)}")
    model = model or DEFAULT_MODEL.get(render)
    overhead, note, renderer = 0, R.RENDERINGS[render], None
    if render == "openai":
        family, consts = R.openai_family(model)
        encoding = encoding or consts["encoding"]
        overhead = consts["func_end"] if len(reg) else 0
        renderer = lambda t: R.render_openai(t, consts)  # noqa: E731
        note += f"; constants of the {family} family ({R.provider_constants()['openai']['source']})"
    elif render == "anthropic":
        if tool_choice not in ("auto", "none", "any", "tool"):
            raise InputError(f"unknown tool_choice {tool_choice!r}; expected auto, none, any or tool")
        family, consts = R.anthropic_family(model)
        overhead = consts["auto" if tool_choice in ("auto", "none") else "any"] if len(reg) else 0
        renderer = R.render_anthropic
        note += f"; tool-use system prompt of the {family} family for tool_choice={tool_choice}"
        if consts.get("assumed"):  # a family Anthropic's table does not list
            note += f" ({' '.join(consts['assumed'].split())})"
    else:
        renderer = R.render_json if render == "json" else R.render_sent
    encoding = encoding or DEFAULT_ENCODING
    counter = Counter(encoding)

    tools = reg.tools
    instructions = [(s.name, s.instructions) for s in reg.servers.values() if s.instructions]
    n, k = len(tools), len(instructions) + (1 if overhead else 0)
    counts = np.zeros((n + k, len(PARTS)), dtype=np.int64)
    if parts:
        counts[:n, :len(R.PARTS)] = counter.parts_many(renderer(t) for t in tools)
        tool_tokens = counts[:n].sum(axis=1)
    elif render in _JSON_RENDERINGS:  # straight from the JSON text, no segments
        texts = (R.compact_json(R.json_object(t, render)) for t in tools)
        tool_tokens = np.array(counter.counts(texts), dtype=np.int64)
    else:
        tool_tokens = np.array([counter.total(renderer(t)) for t in tools], dtype=np.int64)
    for i, (_, text) in enumerate(instructions):
        counts[n + i, _INDEX["instructions"]] = counter.count(text)
    if overhead:
        counts[-1, _INDEX["overhead"]] = overhead

    table = pd.DataFrame({
        "server": [t.server for t in tools] + [s for s, _ in instructions] + ["(request)"] * bool(overhead),
        "tool": [t.name for t in tools] + ["(instructions)"] * len(instructions)
                + ["(provider overhead)"] * bool(overhead),
        "kind": ["tool"] * n + ["instructions"] * len(instructions) + ["overhead"] * bool(overhead),
        **{p: counts[:, i] for i, p in enumerate(PARTS)},
        "tokens": np.concatenate([tool_tokens, counts[n:].sum(axis=1)]).astype(np.int64),
    })
    table.attrs.update(encoding=encoding, render=render, model=model if render in DEFAULT_MODEL else None,
                       tool_choice=tool_choice if render == "anthropic" else None, method=note,
                       parts=parts, warnings=list(reg.warnings), sources=list(reg.sources))
    from ._rich import Footprint

    return Footprint.of(table)


def tools_only(table: pd.DataFrame) -> pd.DataFrame:
    """The per-tool rows of a footprint table."""
    return table[table["kind"] == "tool"]


def request_total(table: pd.DataFrame) -> int:
    """Tokens one request carries for the whole tool surface (tools, instructions, overhead)."""
    return int(table["tokens"].sum())


def by_server(table: pd.DataFrame) -> pd.DataFrame:
    """Per server: tools, tokens (with instructions), share of the request, median and p90 per tool."""
    t = table[table["kind"] != "overhead"]
    tools = tools_only(table).groupby("server", sort=False)["tokens"]
    out = pd.DataFrame({
        "tools": tools.size(),
        "tokens": t.groupby("server", sort=False)["tokens"].sum(),
        "median": tools.median(),
        "p90": tools.quantile(0.9),
    }).fillna(0)
    out["tools"] = out["tools"].astype("int64")
    total = request_total(table)
    out["share"] = out["tokens"] / total if total else 0.0
    out = out.sort_values("tokens", ascending=False)
    out.index.name = "server"
    return out.reset_index()[["server", "tools", "tokens", "share", "median", "p90"]]


def by_part(table: pd.DataFrame) -> pd.DataFrame:
    """Tokens per part across the request, with their share; raises InputError for a totals-only table."""
    if table.attrs.get("parts") is False:
        raise InputError("this footprint was measured with parts=False; measure with parts=True for parts")
    sums = table[list(PARTS)].sum()
    total = int(sums.sum())
    out = pd.DataFrame({"part": sums.index, "tokens": sums.values.astype("int64")})
    out["share"] = out["tokens"] / total if total else 0.0
    return out[out["tokens"] != 0].reset_index(drop=True)
