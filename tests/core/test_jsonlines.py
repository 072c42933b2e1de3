"""The reusable JSON Lines reader: plain or gzip, every unreadable line counted with its number."""

from __future__ import annotations

import gzip

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolsurvey.core.jsonlines import Skips, documents, json_lines


def test_bad_lines_are_counted_and_the_rest_read(tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_bytes(b'{"a": 1}\n\n{bad\n\xff\xfe\n[2]\n{"a": 3')
    skips = Skips()
    assert list(json_lines(p, skips)) == [(1, {"a": 1}), (5, [2])]
    assert [(s.line, s.reason.split(" (")[0]) for s in skips.items] == [
        (3, "not valid JSON"), (4, "not UTF-8 text"), (6, "truncated last line")]
    assert skips.summary() == "3 line(s) skipped: 1 invalid JSON, 1 not UTF-8, 1 truncated last line"


def test_gzip_is_read_directly_and_a_cut_one_ends_with_one_warning(tmp_path):
    body = b"".join(b'{"n": %d}\n' % i for i in range(5000))
    whole, cut = tmp_path / "whole.jsonl.gz", tmp_path / "cut.jsonl.gz"
    whole.write_bytes(gzip.compress(body))
    cut.write_bytes(gzip.compress(body)[:2000])
    skips = Skips()
    assert len(list(json_lines(whole, skips))) == 5000 and not skips.items
    read = list(json_lines(cut, skips))
    assert 0 < len(read) < 5000 and skips.reasons["corrupt gzip"] == 1
    assert skips.items[0].file == str(cut)


def test_a_pretty_printed_json_document_is_read_whole(tmp_path):
    p = tmp_path / "doc.json"
    p.write_text('{\n  "resourceSpans": []\n}\n')
    assert list(documents(p, Skips())) == [(1, {"resourceSpans": []})]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from([b'{"usage": 1}', b'{"a": 2}', b"", b"  ", b'{"b": "usage"}', b'{"usage"}{"x":1}',
                                 b'{"c": "' + b"y" * 40 + b'"}']), max_size=30),
       st.booleans(), st.integers(1, 64), st.sampled_from([(), (b'"usage"',), (b'"usage"', b'"b"')]))
def test_raw_lines_splits_across_blocks_as_a_plain_split_does(tmp_path, monkeypatch, lines, cut, block, markers):
    import toolsurvey.core.jsonlines as jl

    data = b"\n".join(lines) + (b"" if cut else b"\n")
    p = tmp_path / "x.jsonl"
    p.write_bytes(data)
    monkeypatch.setattr(jl, "BLOCK", block)
    skips = Skips()
    got = [(n, raw) for n, raw, _ in jl.raw_lines(p, skips, markers)]
    parts = data.split(b"\n")
    whole, tail = parts[:-1], parts[-1]  # newline-terminated lines, and what follows the last newline
    want = [(i, x) for i, x in enumerate(whole, 1) if x.strip() and (not markers or any(m in x for m in markers))]
    if tail.strip():
        want.append((len(whole) + 1, tail))  # a last line with no newline is always given (it may be cut short)
    assert got == want
    assert skips.unparsed == (len(whole) - len([w for w in want if w[0] <= len(whole)]) if markers else 0)
