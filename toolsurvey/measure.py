"""Measure a Registry: exact tokens per tool and per part, under a named rendering."""

from __future__ import annotations

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


@cache
def _byte_lengths(encoding: str) -> np.ndarray:
    """Length in bytes of every token id of `encoding` (0 for ids that are not tokens)."""
    enc = get_encoding(encoding)
    out = np.zeros(enc.n_vocab, dtype=np.int64)
    for i in range(enc.n_vocab):
        try:
            out[i] = len(enc.decode_single_token_bytes(i))
        except KeyError:
            pass
    return out


class Counter:
    """Counts rendered chunks with one encoding, attributing each token to the part it starts in."""

    def __init__(self, encoding: str = DEFAULT_ENCODING):
        self.encoding = encoding
        self._encode = get_encoding(encoding).encode_ordinary
        self._lengths = _byte_lengths(encoding)

    def parts(self, rendered: R.Rendered) -> dict[str, int]:
        out = dict.fromkeys(R.PARTS, 0)
        for part, n in rendered.constants.items():
            out[part] += n
        for segs in rendered.chunks:
            segs = _merge_runs(segs)
            if len(segs) == 1:
                out[segs[0][1]] += len(self._encode(segs[0][0]))
                continue
            tokens = np.asarray(self._encode("".join(t for t, _ in segs)), dtype=np.int64)
            ends = np.cumsum([len(t.encode("utf-8", "surrogatepass")) for t, _ in segs])
            starts = np.cumsum(self._lengths[tokens]) - self._lengths[tokens]
            per_seg = np.bincount(np.searchsorted(ends, starts, side="right"), minlength=len(segs))
            for (_, part), n in zip(segs, per_seg, strict=True):
                out[part] += int(n)
        return out

    def total(self, rendered: R.Rendered) -> int:
        return sum(rendered.constants.values()) + sum(
            len(self._encode("".join(t for t, _ in segs))) for segs in rendered.chunks)


def _merge_runs(segs: R.Segments) -> R.Segments:
    out: R.Segments = []
    for text, part in segs:
        if out and out[-1][1] == part:
            out[-1] = (out[-1][0] + text, part)
        elif text:
            out.append((text, part))
    return out or [("", "structure")]


def footprint(reg: Registry, *, encoding: str | None = None, render: str = "json",
              model: str | None = None, tool_choice: str = "auto", parts: bool = True) -> pd.DataFrame:
    """One row per tool with its tokens by part, plus rows for server instructions and the
    per-request overhead, so that `table.tokens.sum()` is the tokens one request carries.

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
    else:
        renderer = R.render_json if render == "json" else R.render_sent
    encoding = encoding or DEFAULT_ENCODING
    counter = Counter(encoding)

    rows = []
    for tool in reg:
        rendered = renderer(tool)
        if parts:
            counts = counter.parts(rendered)
        else:
            counts = dict.fromkeys(R.PARTS, 0)
            counts["structure"] = counter.total(rendered)
        rows.append({"server": tool.server, "tool": tool.name, "kind": "tool", **counts})
    for server in reg.servers.values():
        if server.instructions:
            rows.append({"server": server.name, "tool": "(instructions)", "kind": "instructions",
                         "instructions": len(counter._encode(server.instructions))})
    if overhead:
        rows.append({"server": "(request)", "tool": "(provider overhead)", "kind": "overhead",
                     "overhead": overhead})
    table = pd.DataFrame(rows, columns=["server", "tool", "kind", *PARTS])
    table[list(PARTS)] = table[list(PARTS)].fillna(0).astype("int64")
    table["tokens"] = table[list(PARTS)].sum(axis=1)
    table.attrs.update(encoding=encoding, render=render, model=model if render in DEFAULT_MODEL else None,
                       tool_choice=tool_choice if render == "anthropic" else None, method=note,
                       warnings=list(reg.warnings), sources=list(reg.sources))
    return table


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
    """Tokens per part across the request, with their share."""
    sums = table[list(PARTS)].sum()
    total = int(sums.sum())
    out = pd.DataFrame({"part": sums.index, "tokens": sums.values.astype("int64")})
    out["share"] = out["tokens"] / total if total else 0.0
    return out[out["tokens"] != 0].reset_index(drop=True)
