"""The description-length sweep's variants (measuring.selection.descriptions): the variant list parsed
as documented, and the cut's promises checked with tiktoken itself on the sample registry's
descriptions and on generated text: the kept text is a prefix of at most N tokens, the marker names
the full count, nothing shown is longer than the description, and a lower N never shows more."""

from __future__ import annotations

import pytest
from _oracle import ntok
from conftest import DATA
from hypothesis import given, settings
from hypothesis import strategies as st

import toolsurvey as ts
from toolsurvey.errors import InputError
from toolsurvey.measuring.selection.descriptions import FULL, NONE, cut_description, parse_variants, variant

MARK = " …["


def test_variants_parse_as_documented():
    assert parse_variants("full,40,none,10,40") == [NONE, 10, 40, FULL]
    assert parse_variants("0,20") == [NONE, 20]
    assert parse_variants([80, "FULL"]) == [80, FULL]
    for bad in ("10,x", "-1", "2.5", ""):
        with pytest.raises(InputError, match="--description-tokens"):
            parse_variants(bad)


def check(text: str, n: int) -> str:
    shown = cut_description(text, n)
    assert ntok(shown) <= ntok(text)
    if shown != text:
        kept, marker = shown.rsplit(MARK, 1)
        assert text.startswith(kept) and ntok(kept) <= n
        assert marker == f"{ntok(text)} tokens total]"
    return shown


def test_the_sample_registrys_descriptions_at_every_length():
    reg = ts.load(str(DATA / "registries" / "ops_assistant.json"))
    for t in reg:
        prev = None
        for n in (80, 40, 20, 10, 5, 1):
            shown = ntok(check(t.description, n))
            assert prev is None or shown <= prev
            prev = shown


@settings(max_examples=150, deadline=None)
@given(st.text(st.sampled_from("abcdefgh ,.()`é中\n"), min_size=0, max_size=300), st.integers(1, 60))
def test_generated_text(text, n):
    check(text, n)


def test_a_variant_counts_what_it_shows():
    reg = ts.load(str(DATA / "registries" / "ops_assistant.json"))
    v = variant(reg, 10)
    assert v.mean_tokens == pytest.approx(sum(ntok(d) if d else 0 for d in v.shown.values()) / len(reg), abs=1e-12)
    assert v.cut == sum(1 for t in reg if v.shown[t.key] != t.description)
    assert variant(reg, NONE).mean_tokens == 0 and all(d is None for d in variant(reg, NONE).shown.values())
    assert variant(reg, FULL).registry is reg
