"""Measure tool results: tokens per payload, the distribution per tool, and what each JSON field costs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd

from ..core import jsontree as _jsontree
from ..core.choices import DEFAULT_CAP
from ..core.deprecation import deprecated
from ..core.http import is_url
from ..core.tokens import DEFAULT_ENCODING, get_encoding
from ..errors import InputError
from ..inputs import jsonstream as _jsonstream
from ..inputs.payload_sources import JSONFile, payload_stream
from ..inputs.payloads import MCP_METHOD, Payload
from .parts import as_tiktoken_sees, segment_tokens
from .trimming.pipeline import trim_many
from .trimming.steps import parse_paths

MEASURE_METHOD = (
    "a JSON result (file, trace object, URL answering JSON) is counted as compact JSON (no spaces, UTF-8 "
    "kept), as an agent re-serializing it would send it; a text result (a trace string, an MCP text "
    "block, a non-JSON file or response) is counted as given. " + MCP_METHOD
)
ATTRIBUTION_METHOD = {
    "offsets": (
        "each payload's compact JSON is encoded once and every token is attributed to the fragment its "
        "first byte falls in; a member's fragment is its comma, quoted key, colon and scalar value, and a "
        "container also owns its brackets, so the fragments' tokens add up exactly to the payload's. "
        "tokens include everything beneath a path; list items fold into `path[]`. (formatting) is the "
        "difference between a JSON text result as received and its compact form; (images) and (text) are "
        "images and non-JSON text."
    ),
    "fragments": (
        "each fragment (comma, quoted key, colon, scalar value; brackets to their container) is encoded "
        "on its own and the counts summed; the sum differs from the payload's count (see attrs['gap'])."
    ),
}
SPECIAL_PATHS = ("(formatting)", "(images)", "(text)")


class _Enc:
    """Counts texts and whole payloads (text blocks plus image estimates) with one encoding."""

    def __init__(self, encoding: str):
        enc = get_encoding(encoding)
        self.encoding = encoding
        self.encode = enc.encode_ordinary
        self._to_numpy = enc.encode_to_numpy

    def count(self, text: str) -> int:
        """Tokens in `text`, special-token strings counted as ordinary text."""
        try:  # a numpy buffer straight from tiktoken: no Python list of ints is built
            return len(self._to_numpy(text, disallowed_special=()))
        except UnicodeEncodeError:
            return len(self._to_numpy(as_tiktoken_sees(text), disallowed_special=()))

    def payload(self, p: Payload) -> int:
        return sum(self.count(b) for b in p.blocks) + p.image_tokens


def _payloads(sources: tuple, kw: dict, caller: str) -> tuple[Iterator[Payload | JSONFile], list[str]]:
    """`payload_stream` of `sources` (inputs/ reads them); fetching a URL from here still works, deprecated."""
    if kw.get("headers") is not None or kw.get("timeout") is not None or any(
            isinstance(s, str) and is_url(s) for s in sources):
        deprecated(f"{caller}(URL, headers=..., timeout=...)",
                   f"{caller}(read_payloads(URL, headers=..., timeout=...)[0]): fetching is an input's job", stacklevel=4)
    if kw.get("timeout") is None:
        kw = {**kw, "timeout": 30.0}
    return payload_stream(sources, **kw)


def _read_whole(p: JSONFile, warnings: list[str]) -> Payload:
    """A large JSON file that streaming cannot count exactly (see `_jsonstream`), read whole instead."""
    q, w = p.load()
    warnings += w + [f"{q.source}: {x}" for x in q.notes]
    return q


def _streamed_size(p: JSONFile, enc: _Enc) -> tuple[int, int] | None:
    """(UTF-8 bytes, tokens) of a large JSON file's compact JSON, or None if it cannot be streamed."""
    nbytes = tokens = 0
    try:
        for texts, _, _ in _jsonstream.fragments(p.path, _jsontree.PathTable()):
            joined = "".join(texts)
            nbytes += _utf8_len(joined)
            tokens += enc.count(joined)
    except _jsonstream.NotStreamable:
        return None
    return nbytes, tokens


def measure_responses(*sources: Any, encoding: str | None = None, cap: int = DEFAULT_CAP,
                      tool: str | None = None, server: str | None = None, headers: Any = None,
                      timeout: float | None = None, trimming: dict | None = None) -> pd.DataFrame:
    """One row per tool result with its tokens as the model receives it and whether it exceeds `cap`.

    `sources` are payloads: Payloads (a list of them, as `read_payloads` gives, which also fetches
    http(s) URLs) or JSON values; or paths, folders and .jsonl traces, which inputs/ reads one result
    at a time as they are measured. An http(s) URL here (with `headers`, `timeout`) still works and
    is deprecated. `trimming` holds `trim()` options and adds the trimmed size of each result.
    Warnings are in `attrs`. Raises InputError for unreadable sources or bad options.
    """
    if cap <= 0:
        raise InputError(f"cap must be a positive number of tokens, found {cap}")
    # trimming compares each result before and after: it needs them all, parsed
    payloads, warnings = _payloads(sources, dict(tool=tool, server=server, headers=headers, timeout=timeout,
                                                 stream_json=trimming is None), "measure_responses")
    if trimming is not None:
        payloads = list(payloads)
    enc = _Enc(encoding or DEFAULT_ENCODING)
    names = ["tool", "server", "source", "kind", "timestamp", "bytes", "tokens"]
    cols: dict[str, list] = {c: [] for c in names}  # columns, not row dicts: a row per result adds up
    for p in payloads:
        size = _streamed_size(p, enc) if isinstance(p, JSONFile) else None
        if isinstance(p, JSONFile) and size is None:
            p = _read_whole(p, warnings)
        nbytes, tokens = size or (sum(map(_utf8_len, p.blocks)), enc.payload(p))
        for c, v in zip(names, (p.tool, p.server, p.source, p.kind, p.timestamp, nbytes, tokens), strict=True):
            cols[c].append(v)
    table = pd.DataFrame(cols, columns=names)
    table["over_cap"] = table["tokens"] > cap
    steps = None
    if trimming is not None:
        trimmed, steps, trim_warnings = trim_many(payloads, encoding=enc.encoding, **trimming)
        table["trimmed"] = trimmed
        warnings = warnings + trim_warnings
    table.attrs.update(encoding=enc.encoding, cap=cap, method=MEASURE_METHOD, warnings=warnings,
                       trim_steps=steps)
    return table


def response_stats(table: pd.DataFrame) -> pd.DataFrame:
    """Per tool: results, total, mean, p50, p90 and max tokens, and how many (and what share) exceed the cap."""
    g = table.groupby("tool", sort=False)
    out = pd.DataFrame({
        "payloads": g.size(),
        "tokens": g["tokens"].sum(),
        "mean": g["tokens"].mean(),
        "p50": g["tokens"].median(),
        "p90": g["tokens"].quantile(0.9),
        "max": g["tokens"].max(),
        "over_cap": g["over_cap"].sum().astype("int64"),
    })
    out["over_cap_share"] = out["over_cap"] / out["payloads"]
    if "trimmed" in table:
        # a result with no trimmed size (the keep list matched nothing in it) is left out of the ratio
        out["trimmed"] = g["trimmed"].sum(min_count=1)
        trimmed_from = table["tokens"].where(table["trimmed"].notna()).groupby(table["tool"], sort=False).sum()
        out["ratio"] = trimmed_from / out["trimmed"].where(out["trimmed"] > 0)
    out.index.name = "tool"
    return out.sort_values("tokens", ascending=False).reset_index()


def _utf8_len(text: str) -> int:
    """UTF-8 bytes of `text`. A lone surrogate (a JSON "\\ud800" escape) counts 3 bytes, as the
    U+FFFD tiktoken encodes in its place, so byte offsets stay aligned with the tokens."""
    return len(text.encode("utf-8", "surrogatepass"))


def _attribute(texts: list[str], enc: _Enc) -> np.ndarray:
    """Tokens per fragment: encode the joined text, give each token to the fragment it starts in (a
    batch at a time, so a large result never holds all its tokens' offsets at once)."""
    out = np.zeros(len(texts), dtype=np.int64)
    start = size = 0
    for i, t in enumerate(texts):
        if size >= _jsontree.BATCH_CHARS and _jsontree.may_cut(texts[i - 1], t):
            out[start:i] = _attribute_batch(texts[start:i], enc)
            start, size = i, 0
        size += len(t)
    out[start:] = _attribute_batch(texts[start:], enc)
    return out


def _attribute_batch(texts: list[str], enc: _Enc) -> np.ndarray:
    joined = "".join(texts)
    sizes = map(len, texts) if joined.isascii() else map(_utf8_len, texts)
    return np.asarray(segment_tokens(enc.encode(joined), sizes, enc.encoding), dtype=np.int64)


def _streamed_fields(p: JSONFile, table: _jsontree.PathTable, enc: _Enc, method: str, max_depth: int
                     ) -> tuple[np.ndarray, np.ndarray, int, int] | None:
    """Own tokens and occurrences per path id of a large JSON file's compact JSON, read as a stream,
    with the tokens of its fragments (as `method` counts them) and of the whole; None, with `table`
    as it was, when the file cannot be streamed exactly."""
    before = len(table)
    own, occ = np.zeros(0), np.zeros(0, dtype=np.int64)
    frag_tokens = whole = 0
    try:
        for texts, pids, occs in _jsonstream.fragments(p.path, table, max_depth=max_depth):
            if method == "offsets":
                per_frag = _attribute_batch(texts, enc)
                whole += int(per_frag.sum())
            else:
                per_frag = np.fromiter((enc.count(t) for t in texts), np.int64, len(texts))
                whole += enc.count("".join(texts))
            frag_tokens += int(per_frag.sum())
            n = len(table)
            own = np.pad(own, (0, n - len(own))) + np.bincount(
                np.fromiter(pids, np.int64, len(pids)), weights=per_frag, minlength=n)
            occ = np.pad(occ, (0, n - len(occ))) + np.bincount(np.fromiter(occs, np.int64, len(occs)), minlength=n)
    except _jsonstream.NotStreamable:
        table.truncate(before)
        return None
    return own, occ, frag_tokens, whole


class _ToolAcc:
    """Per-path sums for one tool across its payloads."""

    def __init__(self) -> None:
        self.table = _jsontree.PathTable()
        self.own = np.zeros(64)
        self.occurrences = np.zeros(64, dtype=np.int64)
        self.samples = np.zeros(64, dtype=np.int64)
        self.special = dict.fromkeys(SPECIAL_PATHS, 0)
        self.special_samples = dict.fromkeys(SPECIAL_PATHS, 0)
        self.payloads = 0
        self.measured = 0

    def add(self, own: np.ndarray, occ: np.ndarray) -> None:
        n = len(self.table)
        if n > len(self.own):
            grow = max(n, 2 * len(self.own)) - len(self.own)
            self.own = np.concatenate([self.own, np.zeros(grow)])
            self.occurrences = np.concatenate([self.occurrences, np.zeros(grow, dtype=np.int64)])
            self.samples = np.concatenate([self.samples, np.zeros(grow, dtype=np.int64)])
        self.own[:len(own)] += own
        self.occurrences[:len(occ)] += occ
        self.samples[:len(occ)] += occ > 0

    def add_special(self, path: str, tokens: int) -> None:
        if tokens:
            self.special[path] += tokens
            self.special_samples[path] += 1

    def rows(self, name: str) -> list[tuple]:
        """One row per path seen (tokens include everything beneath it), then the special paths."""
        t, n, total = self.table, len(self.table), self.measured
        incl = self.own[:n].copy()
        for i in range(n - 1, 0, -1):
            incl[t.parent[i]] += incl[i]
        rows = [(name, t.name(i), t.depth[i], incl[i], self.own[i], int(self.samples[i]),
                 int(self.occurrences[i]), self.payloads, total) for i in range(n) if self.occurrences[i]]
        rows += [(name, path, 0, self.special[path], self.special[path], self.special_samples[path],
                  self.special_samples[path], self.payloads, total)
                 for path in SPECIAL_PATHS if self.special_samples[path]]
        return rows


def field_costs(*sources: Any, encoding: str | None = None, method: str = "offsets", max_depth: int = 32,
                tool: str | None = None, server: str | None = None, headers: Any = None,
                timeout: float | None = None) -> pd.DataFrame:
    """Tokens per JSON path across all results of each tool: total beneath the path, its share of the
    tool's tokens, how often it is present, and the mean per occurrence. `sources` as
    `measure_responses` takes them. Warnings and the method are in `attrs`. Raises InputError for
    unreadable sources or an unknown method.
    """
    if method not in ATTRIBUTION_METHOD:
        raise InputError(f"unknown attribution method {method!r}; expected one of: {', '.join(ATTRIBUTION_METHOD)}")
    payloads, warnings = _payloads(sources, dict(tool=tool, server=server, headers=headers, timeout=timeout,
                                                 stream_json=True), "field_costs")
    enc = _Enc(encoding or DEFAULT_ENCODING)
    accs: dict[str, _ToolAcc] = {}
    gap = 0
    for p in payloads:
        gap += _add_payload(accs.setdefault(p.tool, _ToolAcc()), p, enc, method, max_depth, warnings)
    out = _field_table(accs)
    out.attrs.update(encoding=enc.encoding, method=ATTRIBUTION_METHOD[method], warnings=warnings,
                     gap=gap if method == "fragments" else 0,
                     totals={k: a.measured for k, a in accs.items()})
    return out


def _add_payload(acc: _ToolAcc, p: Payload | JSONFile, enc: _Enc, method: str, max_depth: int,
                 warnings: list[str]) -> int:
    """Add one result's tokens per path to its tool's sums; returns how far its fragments' tokens
    are from its own count (0 but with the "fragments" method)."""
    streamed = _streamed_fields(p, acc.table, enc, method, max_depth) if isinstance(p, JSONFile) else None
    if isinstance(p, JSONFile) and streamed is None:
        p = _read_whole(p, warnings)
    acc.payloads += 1
    acc.add_special("(images)", p.image_tokens)
    if streamed is not None:
        own, occ, frag_tokens, measured = streamed
        gap = frag_tokens - measured
    elif not p.is_json:
        measured = enc.payload(p)
        acc.measured += measured
        acc.add_special("(text)", measured - p.image_tokens)
        return 0
    else:
        own, occ, frag_tokens, measured, gap = _parsed_fields(p, acc.table, enc, method, max_depth)
    acc.measured += measured
    acc.add(own, occ)
    # text results that are JSON but not compact (pretty-printed, say) cost more than their fields
    acc.add_special("(formatting)", measured - p.image_tokens - frag_tokens if method == "offsets" else 0)
    return gap


def _parsed_fields(p: Payload, table: _jsontree.PathTable, enc: _Enc, method: str, max_depth: int
                   ) -> tuple[np.ndarray, np.ndarray, int, int, int]:
    """Own tokens and occurrences per path id of a parsed JSON result, with the tokens of its
    fragments (as `method` counts them), of the whole result, and the gap between the two."""
    texts, pids, occ = _jsontree.fragments(p.value, table, max_depth=max_depth)
    gap = 0
    if method == "offsets":
        per_frag = _attribute(texts, enc)
        # a result sent as compact JSON is its fragments: no need to encode it a second time
        same = len(p.blocks) == 1 and p.blocks[0] == "".join(texts)
        measured = int(per_frag.sum()) + p.image_tokens if same else enc.payload(p)
    else:
        per_frag = np.fromiter((enc.count(t) for t in texts), np.int64, len(texts))
        gap = int(per_frag.sum()) - enc.count("".join(texts))
        measured = enc.payload(p)
    n = len(table)
    own = np.bincount(np.fromiter(pids, np.int64, len(pids)), weights=per_frag, minlength=n)
    occurrences = np.bincount(np.fromiter(occ, np.int64, len(occ)), minlength=n)
    return own, occurrences, int(per_frag.sum()), measured, gap


def _field_table(accs: dict[str, _ToolAcc]) -> pd.DataFrame:
    """The rows of every tool's paths, costliest first within each tool."""
    rows = [row for name, acc in accs.items() for row in acc.rows(name)]
    out = pd.DataFrame(rows, columns=["tool", "path", "depth", "tokens", "own", "samples", "occurrences",
                                      "payloads", "tool_tokens"])
    out[["tokens", "own"]] = out[["tokens", "own"]].round().astype("int64")
    out["share"] = out["tokens"] / out["tool_tokens"].where(out["tool_tokens"] != 0)
    out["present_share"] = out["samples"] / out["payloads"]
    out["per_occurrence"] = out["tokens"] / out["occurrences"]
    out["per_sample"] = out["tokens"] / out["payloads"]
    out = out.sort_values(["tool", "tokens"], ascending=[True, False], kind="stable").reset_index(drop=True)
    return out[["tool", "path", "depth", "tokens", "own", "share", "present_share", "occurrences", "per_occurrence",
                "per_sample", "payloads"]]


def rank_fields(costs: pd.DataFrame, keep: str | list[str] | None = None) -> pd.DataFrame:
    """The recommendation view: each tool's record-level fields, costliest first, with the cumulative
    share, and (given `keep` paths) whether each field is kept whole, in part, or dropped."""
    wanted = [_jsontree.path_parts(p) for p in parse_paths(keep)] if keep else None
    rows = costs[~costs["path"].isin(("(root)",)) & ~costs["path"].str.endswith("[]")].copy()
    parts = rows["path"].map(_jsontree.path_parts)
    rows = rows[(parts.map(len) == 1) | rows["path"].isin(SPECIAL_PATHS)].copy()
    rows = rows.sort_values(["tool", "tokens"], ascending=[True, False], kind="stable")
    rows["cumulative_share"] = rows.groupby("tool")["share"].cumsum()
    cols = ["tool", "path", "tokens", "share", "cumulative_share", "present_share", "per_sample"]
    if wanted is not None:
        def status(path: str) -> str:
            f = _jsontree.path_parts(path)
            if any(w == f for w in wanted):
                return "kept"
            return "part" if any(w[:len(f)] == f for w in wanted) else "dropped"
        rows["keep"] = rows["path"].map(status)
        cols.append("keep")
    return rows[cols].reset_index(drop=True)
