"""measure_responses and field_costs, checked against tiktoken called directly and a second,
naive attribution written here."""

import base64
import bisect
import json
import math
import struct
import zlib

import numpy as np
import pytest
from _oracle import compact, ntok
from conftest import DATA
from hypothesis import given, settings
from hypothesis import strategies as st

import toolsurvey as ts
from toolsurvey.errors import InputError
from toolsurvey.providers.images import image_tokens

ENC = ts.get_encoding("o200k_base")


def png(w: int, h: int) -> str:
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(b"\0" * 10))
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + raw).decode()


# --- measurement ---------------------------------------------------------------------------------

def test_json_files_are_counted_as_compact_json_and_text_as_given(tmp_path):
    d = tmp_path / "get_thing"
    d.mkdir()
    value = {"id": 7, "name": "Zoë", "tags": ["a", "b"], "note": None}
    (d / "a.json").write_text(json.dumps(value, indent=4), encoding="utf-8")
    (d / "b.txt").write_text("  plain text result\nwith two lines  ", encoding="utf-8")
    t = ts.measure_responses(d)
    assert list(t["tool"]) == ["get_thing", "get_thing"]  # the folder names the tool
    assert list(t["tokens"]) == [ntok(compact(value)), ntok("  plain text result\nwith two lines  ")]
    assert list(t["kind"]) == ["json", "text"]


def test_per_tool_distribution_matches_numpy_and_cap_share(tmp_path):
    sizes = [1, 5, 20, 80, 300]
    lines = [json.dumps({"tool": "t", "result": "word " * n}) for n in sizes]
    lines.append(json.dumps({"tool": "u", "server": "s", "result": {"k": "v"}, "timestamp": "2026-01-01"}))
    (tmp_path / "tr.jsonl").write_text("\n".join(lines))
    table = ts.measure_responses(tmp_path / "tr.jsonl", cap=50)
    expected = [ntok("word " * n) for n in sizes]
    stats = ts.response_stats(table).set_index("tool")
    row = stats.loc["t"]
    assert row["payloads"] == 5 and row["tokens"] == sum(expected) and row["max"] == max(expected)
    assert row["p50"] == np.percentile(expected, 50) and math.isclose(row["p90"], np.percentile(expected, 90))
    assert row["over_cap"] == sum(e > 50 for e in expected) == 2
    assert row["over_cap_share"] == pytest.approx(0.4)
    u = table[table["tool"] == "u"].iloc[0]
    assert (u["server"], u["timestamp"], u["tokens"]) == ("s", "2026-01-01", ntok('{"k":"v"}'))


def test_jsonl_broken_lines_are_reported_with_line_numbers_and_the_rest_measured(tmp_path):
    p = tmp_path / "trace.jsonl"
    p.write_text('{"tool":"a","result":{"x":1}}\n{"tool":"a","result":\n\n[1,2]\n'
                 '{"tool":"b","result":"ok"}\n{"result":"no tool"}\n')
    t = ts.measure_responses(p)
    assert list(t["tool"]) == ["a", "b"]
    assert list(t["tokens"]) == [ntok('{"x":1}'), ntok("ok")]
    w = t.attrs["warnings"]
    assert any(f"{p}:2: not JSON" in x for x in w)
    assert any(f"{p}:4: expected an object" in x for x in w)
    assert any(f"{p}:6: expected an object" in x and "'result'" in x for x in w)
    assert len(w) == 3  # the blank line 3 is not an error


def test_non_json_text_in_a_json_file_is_measured_as_text_with_a_warning(tmp_path):
    p = tmp_path / "x.json"
    text = "Error: upstream timed out {not json"
    p.write_text(text)
    t = ts.measure_responses(p)
    assert t["kind"][0] == "text" and t["tokens"][0] == ntok(text)
    assert "not JSON" in t.attrs["warnings"][0] and "measured as text" in t.attrs["warnings"][0]


def test_invalid_utf8_is_replaced_and_warned_with_its_offset(tmp_path):
    p = tmp_path / "bad.json"
    p.write_bytes(b'{"name": "caf\xe9 \xff ok"}')  # byte 13 is the first bad one
    t = ts.measure_responses(p)
    assert t["tokens"][0] == ntok(compact({"name": "caf\ufffd \ufffd ok"}))
    assert "offset 13" in t.attrs["warnings"][0] and "not valid UTF-8" in t.attrs["warnings"][0]


def test_ten_thousand_levels_deep_is_measured_and_attributed(tmp_path):
    text = '{"a":' * 5000 + "[" * 5000 + '"x"' + "]" * 5000 + "}" * 5000
    (tmp_path / "deep.json").write_text(text)
    t = ts.measure_responses(tmp_path / "deep.json")
    assert t["kind"][0] == "json" and t["tokens"][0] == ntok(text)
    costs = ts.field_costs(tmp_path / "deep.json")
    assert costs[costs["path"] == "(root)"]["tokens"].iloc[0] == ntok(text)
    assert costs["depth"].max() == 32


def test_a_100_mb_payload_is_measured_exactly(tmp_path):
    rec = {"id": 123456, "title": "Crash when the cache is full", "url": "https://api.example.com/items/1",
           "body": "Steps: open, click, wait. " * 180}
    n = 100 * 1024 * 1024 // len(compact(rec)) + 1
    p = tmp_path / "big.json"
    p.write_text(compact([rec] * n))
    assert p.stat().st_size > 100 * 1024 * 1024
    # tokenization of a repeated record is periodic: T(k) = T(2) + (k - 2) * (T(3) - T(2))
    t2, t3, t4 = (ntok(compact([rec] * k)) for k in (2, 3, 4))
    assert t4 - t3 == t3 - t2
    t = ts.measure_responses(p)
    assert t["tokens"][0] == t2 + (n - 2) * (t3 - t2)
    assert bool(t["over_cap"][0])


# --- MCP results -----------------------------------------------------------------------------------

def test_mcp_result_counts_text_blocks_resources_and_images_by_the_stated_rule(tmp_path):
    result = {"content": [
        {"type": "text", "text": "Screenshot taken"},
        {"type": "image", "mimeType": "image/png", "data": png(1280, 800)},
        {"type": "image", "mimeType": "image/png", "data": png(3000, 2000)},
        {"type": "resource", "resource": {"uri": "docs://a", "mimeType": "text/plain", "text": "Error codes: E1"}},
        {"type": "audio", "mimeType": "audio/wav", "data": "AAAA"},
    ], "structuredContent": {"ignored": "because text blocks exist"}}
    p = tmp_path / "shot" / "r.json"
    p.parent.mkdir()
    p.write_text(json.dumps({"jsonrpc": "2.0", "id": 3, "result": result}))
    t = ts.measure_responses(p)
    # Anthropic: w*h/750 after fitting the long edge into 1568 px and the cost into ~1,600 tokens
    small = math.ceil(1280 * 800 / 750)  # 1,366: no scaling
    s = math.sqrt(1600 * 750 / (3000 * 2000))
    big = min(1600, math.ceil(int(3000 * s) * int(2000 * s) / 750))
    assert big <= 1600 and small == 1366
    assert t["kind"][0] == "mcp"
    assert t["tokens"][0] == ntok("Screenshot taken") + ntok("Error codes: E1") + small + big
    assert any("audio" in w for w in t.attrs["warnings"])


def test_structured_content_counts_only_without_a_text_block():
    t = ts.measure_responses({"content": [], "structuredContent": {"rows": [1, 2, 3]}})
    assert t["tokens"][0] == ntok('{"rows":[1,2,3]}')


def test_unreadable_image_is_counted_at_the_cap_with_a_note():
    n, note = image_tokens(base64.b64encode(b"not an image").decode(), "image/png")
    assert n == 1600 and "unreadable size" in note


# --- attribution -----------------------------------------------------------------------------------

def naive_fragments(v, path="", prefix="", out=None):
    """A second, recursive writing of the fragment rule: (text, path) pairs."""
    out = [] if out is None else out
    name = path or "(root)"
    if isinstance(v, dict) and v:
        out.append((prefix + "{", name))
        for i, (k, x) in enumerate(v.items()):
            naive_fragments(x, f"{path}.{k}" if path else k, ("," if i else "") + json.dumps(k, ensure_ascii=False) + ":", out)
        out.append(("}", name))
    elif isinstance(v, list) and v:
        out.append((prefix + "[", name))
        for i, x in enumerate(v):
            naive_fragments(x, path + "[]", "," if i else "", out)
        out.append(("]", name))
    else:
        out.append((prefix + json.dumps(v, ensure_ascii=False), name))
    return out


def naive_own(value) -> dict[str, int]:
    """Tokens per path: decode each token's bytes and give it to the fragment holding its first byte."""
    frags = naive_fragments(value)
    ends, acc = [], 0
    for text, _ in frags:
        acc += len(text.encode())
        ends.append(acc)
    own: dict[str, int] = {}
    pos = 0
    for tok in ENC.encode_ordinary("".join(t for t, _ in frags)):
        path = frags[bisect.bisect_right(ends, pos)][1]
        own[path] = own.get(path, 0) + 1
        pos += len(ENC.decode_single_token_bytes(tok))
    return own


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.text(max_size=30)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(["a", "b", "名前", "url", "x y"]), inner, max_size=4)),
    max_leaves=25)


@given(json_values)
@settings(max_examples=150, deadline=None)
def test_attribution_adds_up_exactly_and_matches_a_naive_implementation(value):
    costs = ts.field_costs(ts.Payload.from_value(value))  # (a str source would name a path)
    assert costs["own"].sum() == ntok(compact(value))
    own = costs.set_index("path")["own"]
    assert own[own != 0].to_dict() == naive_own(value)  # (a path can get no token: '[[[' is one)
    root = costs[costs["path"] == "(root)"]["tokens"].iloc[0]
    assert root == ntok(compact(value))


def test_field_costs_presence_occurrences_and_mean_per_occurrence_by_hand():
    a = [{"title": "one", "labels": [{"name": "bug"}, {"name": "ui"}]}, {"title": "two", "labels": []}]
    b = [{"title": "three"}]
    costs = ts.field_costs(ts.Payload.from_value(a, "list"), ts.Payload.from_value(b, "list")).set_index("path")
    name = costs.loc["[].labels[].name"]
    assert (name["occurrences"], name["present_share"]) == (2, 0.5)  # twice, in one of two samples
    assert costs.loc["[].title", "occurrences"] == 3
    assert costs.loc["[].labels", "present_share"] == 0.5
    total = ntok(compact(a)) + ntok(compact(b))
    assert costs.loc["[].title", "share"] == pytest.approx(costs.loc["[].title", "tokens"] / total)
    assert costs.loc["[].title", "per_occurrence"] == pytest.approx(costs.loc["[].title", "tokens"] / 3)


def test_pretty_json_text_results_reconcile_through_a_formatting_row():
    value = {"items": [{"id": 1, "name": "alpha"}, {"id": 2, "name": "beta"}]}
    pretty = json.dumps(value, indent=2)
    costs = ts.field_costs(ts.Payload.from_text(pretty, "t")).set_index("path")
    assert costs.loc["(formatting)", "tokens"] == ntok(pretty) - ntok(compact(value)) > 0
    assert costs["own"].sum() == ntok(pretty)


def test_fragment_method_gap_on_the_sample_data_is_small_and_stated():
    exact = ts.field_costs(DATA / "responses" / "list_issues")
    alone = ts.field_costs(DATA / "responses" / "list_issues", method="fragments")
    total = sum(exact.attrs["totals"].values())
    assert alone["own"].sum() - total == alone.attrs["gap"]
    # encoding each key/value fragment on its own overcounts: measured 4.5% on the sample issues
    assert 0.03 < alone.attrs["gap"] / total < 0.06


def test_other_encodings_count_with_that_encoding():
    value = {"text": "Ünïcödé and numbers 1234567"}
    t = ts.measure_responses(value, encoding="cl100k_base")
    assert t["tokens"][0] == len(ts.get_encoding("cl100k_base").encode_ordinary(compact(value)))
    assert t["tokens"][0] != ntok(compact(value))


def test_special_token_text_in_a_payload_counts_as_ordinary_text():
    t = ts.measure_responses({"x": "<|endoftext|>"})
    assert t["tokens"][0] == ntok(compact({"x": "<|endoftext|>"}))


def test_missing_path_and_bad_cap_are_input_errors(tmp_path):
    with pytest.raises(InputError, match="no such file or folder"):
        ts.measure_responses(tmp_path / "nope.json")
    with pytest.raises(InputError, match="empty path"):
        ts.measure_responses("")
    with pytest.raises(InputError, match="cap must be"):
        ts.measure_responses({"a": 1}, cap=0)
    with pytest.raises(InputError, match="unknown attribution method"):
        ts.field_costs({"a": 1}, method="guess")


def test_unknown_trimming_options_are_named():
    with pytest.raises(InputError, match="unknown trimming option.*kep"):
        ts.measure_responses({"a": 1}, trimming={"kep": "a"})


@pytest.mark.parametrize("header, size", [
    (b"GIF89a" + struct.pack("<HH", 640, 480) + b"\0" * 20, (640, 480)),
    (b"\xff\xd8\xff\xe0" + struct.pack(">H", 16) + b"JFIF\0" + b"\0" * 9
     + b"\xff\xc0" + struct.pack(">HBHH", 17, 8, 300, 500) + b"\0" * 10, (500, 300)),
    (b"RIFF\0\0\0\0WEBPVP8X" + b"\0" * 8 + (1023).to_bytes(3, "little") + (767).to_bytes(3, "little"), (1024, 768)),
])
def test_image_sizes_are_read_from_gif_jpeg_and_webp_headers(header, size):
    from toolsurvey.providers.images import image_size

    assert image_size(header) == size
    b64 = base64.b64encode(header).decode()
    wrapped = "data:image/x;base64," + "\n".join(b64[i:i + 20] for i in range(0, len(b64), 20))
    assert image_tokens(wrapped)[0] == math.ceil(size[0] * size[1] / 750)


def test_measuring_files_does_not_import_httpx():
    import subprocess
    import sys

    code = ("import sys, toolsurvey as ts; ts.field_costs(sys.argv[1]); "
            "assert 'httpx' not in sys.modules, 'httpx imported'")
    subprocess.run([sys.executable, "-c", code, str(DATA / "responses" / "list_issues")], check=True)


_SCALARS = st.one_of(st.integers(-10**6, 10**12), st.booleans(), st.none(), st.floats(allow_nan=False, allow_infinity=False),
                     st.text(alphabet=st.sampled_from("ab é,}]:0 \"\\'s"), max_size=12))
_VALUES = st.recursive(_SCALARS, lambda kids: st.lists(kids, max_size=6) | st.dictionaries(
    st.text(alphabet="abcé'1", max_size=5), kids, max_size=6), max_leaves=60)


@settings(max_examples=60, deadline=None)
@given(_VALUES)
def test_field_attribution_in_batches_counts_like_one_encode(value):
    # A large result is encoded a batch of fragments at a time; with a one-character batch every safe
    # cut is taken, and the per-field tokens still add up to tiktoken's count of the compact JSON.
    from toolsurvey.core import jsontree as _jsontree
    from toolsurvey.measuring import responses

    texts, _, _ = _jsontree.fragments(value, _jsontree.PathTable())
    with pytest.MonkeyPatch.context() as m:
        m.setattr(_jsontree, "BATCH_CHARS", 1)
        per = responses._attribute(texts, responses._Enc("o200k_base"))
    assert int(per.sum()) == ntok(compact(value))
