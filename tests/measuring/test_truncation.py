"""Truncation never backfires: the tokens after it never exceed the untrimmed size and never increase
as the limit decreases, counted independently (tiktoken's own constructor, compact JSON built by the
oracle), on the sample responses, the real payloads in tests/data, real agent traces and generated JSON."""

from __future__ import annotations

import json
import re

import pytest
from _oracle import compact, ntok
from _public_data import REAL_TOOLS, absent_reason, shared_path
from _strategies import odd_text
from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolsurvey as ts
from toolsurvey.inputs.payload_sources import read_payloads
from toolsurvey.measuring.trimming.pipeline import trim_many
from toolsurvey.measuring.trimming.truncation import marker, truncate_strings

SAMPLES = ROOT / "data" / "responses" / "list_issues"
# The limits of the table (10, 50, 75, 100, 400) and the small ones where markers cost most.
LIMITS = [0, 1, 2, 3, 5, 8, 10, 15, 20, 30, 40, 50, 60, 75, 100, 150, 200, 400]


def non_increasing_as_limit_decreases(totals: dict[int, int]) -> list[tuple[int, int, int, int]]:
    """The pairs of neighbouring limits (lower, its total, higher, its total) where a lower limit costs more."""
    ns = sorted(totals)
    return [(a, totals[a], b, totals[b]) for a, b in zip(ns, ns[1:], strict=False) if totals[a] > totals[b]]


def test_sample_responses_cost_less_as_the_limit_tightens_and_never_more_than_untrimmed():
    payloads, _ = read_payloads(SAMPLES)
    received = sum(ts.trim(p).tokens_before for p in payloads)
    totals = {n: sum(trim_many(payloads, truncate=n)[0]) for n in LIMITS}
    assert non_increasing_as_limit_decreases(totals) == []
    assert max(totals.values()) <= received == 78_832  # docs/responses.md's untrimmed figure
    # Each figure counted again from the texts the model would receive, with the oracle's tokenizer.
    for n in (10, 50, 75):
        assert totals[n] == sum(ntok(ts.trim(p, truncate=n).text) for p in payloads)


@pytest.mark.parametrize("path", sorted(REAL_TOOLS.glob("*.json")), ids=lambda p: p.stem)
def test_real_payloads_cost_less_as_the_limit_tightens(path):
    value = json.loads(path.read_text(encoding="utf-8"))
    untrimmed = ntok(compact(value))
    totals = {n: ntok(compact(truncate_strings(value, n)[0])) for n in LIMITS[::2] + [LIMITS[-1]]}
    assert non_increasing_as_limit_decreases(totals) == []
    assert max(totals.values()) <= untrimmed


def test_real_agent_traces_cost_less_as_the_limit_tightens():
    traces = shared_path("traces", "spotter")
    if traces is None:
        pytest.skip(absent_reason("traces", "spotter"))
    payloads, _ = read_payloads(*sorted(traces.rglob("*.jsonl"))[:6])
    assert len(payloads) > 50
    received = sum(ts.trim(p).tokens_before for p in payloads)
    totals = {n: sum(trim_many(payloads, truncate=n)[0]) for n in (0, 10, 50, 75, 100, 400)}
    assert non_increasing_as_limit_decreases(totals) == []
    assert max(totals.values()) <= received


# JSON with the odd text of the footprint tests, plus runs of words, punctuation, escapes, marks and
# CJK, where a cut most often lands next to something the tokenizer joins to it.
PARTS = ["the", " quick", "brown", "  ", " ", ".", ",", "(", ")", '"', "\\", "\n", "é", "\u0301", "中文字",
         "https://x.y/z", "123", "4567", "…", "'s", "A", "Zz", "\u00a0", "ﬁ", "\t", "\U0001F680", "\x01"]
strings = st.one_of(odd_text, st.lists(st.sampled_from(PARTS), max_size=30).map("".join), st.text(max_size=60))
json_values = st.recursive(st.one_of(st.none(), st.integers(), strings),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(strings, inner, max_size=4),
                           max_leaves=10)


@given(json_values, st.integers(0, 60), st.integers(0, 60), st.sampled_from(["chars", "tokens"]),
       st.sampled_from(["o200k_base", "cl100k_base"]))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_generated_json_costs_less_as_the_limit_tightens(value, a, b, unit, encoding):
    lower, higher = sorted((a, b))
    untrimmed = ntok(compact(value), encoding)
    low = ntok(compact(truncate_strings(value, lower, unit, encoding)[0]), encoding)
    high = ntok(compact(truncate_strings(value, higher, unit, encoding)[0]), encoding)
    assert low <= high <= untrimmed


@given(strings, st.integers(0, 60), st.integers(0, 60), st.sampled_from(["chars", "tokens"]))
@settings(max_examples=200, deadline=None)
def test_generated_text_results_cost_less_as_the_limit_tightens(text, a, b, unit):
    lower, higher = sorted((a, b))
    low = ntok(truncate_strings(text, lower, unit, json_text=False)[0])
    high = ntok(truncate_strings(text, higher, unit, json_text=False)[0])
    assert low <= high <= ntok(text)


@given(st.lists(st.sampled_from(PARTS[:6] + PARTS[12:15]), min_size=1, max_size=40).map("".join),
       st.integers(0, 40))
@settings(max_examples=200, deadline=None)
def test_a_cut_keeps_at_most_the_limit_and_says_the_full_size(text, limit):
    out, cut, whole = truncate_strings({"s": text}, limit)
    if out["s"] == text:
        return
    kept, size = re.fullmatch(r"(.*) …\[(\d+) chars total\]", out["s"], re.S).groups()
    assert text.startswith(kept) and int(size) == len(text)
    # more than the limit only where the text opens with punctuation the JSON quote joins (its first piece)
    assert len(kept) <= limit or (not text[:1].isalnum() and not text[:1].isspace())
    assert ntok(compact(out)) < ntok(compact({"s": text}))  # a cut always saves, net of its marker


def test_the_marker_costs_the_same_wherever_a_string_is_cut():
    # " …[1234 chars total]" then the JSON punctuation: its price does not depend on where the cut is
    assert marker(1234, "chars") == " …[1234 chars total]"
    enc = ts.get_encoding()
    pieces = [enc.decode([t]) for t in enc.encode_ordinary(marker(1234, "chars") + '"}')]
    assert pieces == [" …", "[", "123", "4", " chars", " total", "]", '"}']


def test_a_pretty_printed_result_is_compacted_first_so_truncation_shows_only_its_own_saving():
    value = [{"title": "a long title " * 20, "n": i} for i in range(3)]
    pretty = ts.Payload.from_text(json.dumps(value, indent=2), "t")
    t = ts.trim(pretty, truncate=20)
    names = [s["step"] for s in t.steps]
    assert names == ["as received", "compact JSON", "truncate 20 chars", "serialize json"]
    assert t.steps[1]["tokens"] == ntok(compact(value))
    assert t.steps[2]["saved"] == ntok(compact(value)) - ntok(compact(t.value)) > 0
