"""Offline encodings: the shipped files, their hashes, tiktoken's own settings, and counting with no network."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap

import pytest
import tiktoken_ext.openai_public as public
from _oracle import ENCODINGS, compact, encoding, ntok, tiktoken_spec
from _strategies import odd_text
from hypothesis import given, settings

from toolsurvey.core import tokens
from toolsurvey.errors import InputError

NAMES = ["o200k_base", "cl100k_base"]


@pytest.mark.parametrize("name", NAMES)
def test_shipped_files_have_the_hash_tiktoken_expects(name, monkeypatch):
    asked = {}

    def capture(url, expected_hash=None):
        asked["hash"] = expected_hash
        return {}

    monkeypatch.setattr(public, "load_tiktoken_bpe", capture)
    getattr(public, name)()
    data = (ENCODINGS / f"{name}.tiktoken").read_bytes()
    assert hashlib.sha256(data).hexdigest() == asked["hash"] == tokens.SHIPPED[name]


@pytest.mark.parametrize("name", NAMES)
def test_split_pattern_special_tokens_and_ranks_equal_tiktoken_own(name):
    spec = tiktoken_spec(name)  # tiktoken's constructor, fed the shipped ranks by tiktoken's loader
    enc = tokens.get_encoding(name)
    assert enc._pat_str == spec["pat_str"]
    assert enc._special_tokens == spec["special_tokens"]
    assert tokens.shipped_ranks(name) == spec["mergeable_ranks"]
    assert enc.n_vocab == encoding(name).n_vocab


@settings(max_examples=150, deadline=None)
@given(odd_text)
def test_count_equals_tiktoken_on_any_text(text):
    for name in NAMES:
        assert tokens.count(text, name) == ntok(text, name)


def test_known_strings_count_as_tiktoken_says():
    samples = ["", "hello world", "get_user_data: Gets user data.", "\u200b" * 7, "\U0001F680 deploy",
               "\u05e9\u05dc\u05d5\u05dd \u200f RTL", "<|endoftext|> is text here", "x" * 10_000]
    assert tokens.count_many(samples) == [ntok(s) for s in samples]
    assert tokens.count("hello world") == 2  # worked by hand: "hello", " world"


def test_corrupted_shipped_file_is_refused(tmp_path, monkeypatch):
    from importlib import resources

    pkg = tmp_path / "toolsurvey"
    (pkg / "encodings").mkdir(parents=True)
    good = (ENCODINGS / "cl100k_base.tiktoken").read_bytes()
    (pkg / "encodings" / "cl100k_base.tiktoken").write_bytes(good[:-10] + b"AAAA 99999\n")
    monkeypatch.setattr(resources, "files", lambda _pkg: pkg)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # no binary cache to skip the file
    tokens._load.cache_clear()
    try:
        with pytest.raises(InputError, match=r"cl100k_base.tiktoken has sha256 [0-9a-f]{64}, expected 2239"):
            tokens.get_encoding("cl100k_base")
    finally:
        tokens._load.cache_clear()


def test_unknown_encoding_names_the_known_ones():
    with pytest.raises(InputError, match="unknown encoding 'o300k'.*o200k_base"):
        tokens.get_encoding("o300k")


OFFLINE = textwrap.dedent("""
    import json, socket, sys

    def refuse(*args, **kwargs):
        raise OSError("network blocked by the test")

    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.create_connection = refuse
    import tiktoken
    try:
        tiktoken.get_encoding("o200k_base")
        fetched = True
    except Exception:
        fetched = False
    import toolsurvey as ts
    counts = [ts.count(sys.argv[1], name) for name in ("o200k_base", "cl100k_base")]
    table = ts.footprint(ts.load(sys.argv[2]))
    print(json.dumps({"fetched": fetched, "counts": counts, "total": int(table.tokens.sum())}))
""")


def test_counting_works_with_no_network_and_an_empty_cache(tmp_path):
    from conftest import DATA, ROOT

    cache = tmp_path / "empty-cache"
    cache.mkdir()
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(cache), "DATA_GYM_CACHE_DIR": str(cache),
           "PYTHONPATH": str(ROOT)}
    text = "Search the service catalogue \U0001F50E by team."
    sample = DATA / "registries" / "support_desk.json"
    out = subprocess.run([sys.executable, "-c", OFFLINE, text, str(sample)], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    result = __import__("json").loads(out.stdout)
    assert result["fetched"] is False  # tiktoken alone cannot load the encoding here
    assert result["counts"] == [ntok(text, "o200k_base"), ntok(text, "cl100k_base")]
    data = __import__("json").loads(sample.read_text(encoding="utf-8"))
    expected = sum(ntok(compact({"name": t["name"], "description": t["description"], "inputSchema": t["inputSchema"]}))
                   for entry in data["servers"].values() for t in entry["tools"])
    expected += ntok(data["servers"]["helpdesk"]["instructions"])
    assert result["total"] == expected
    assert list(cache.iterdir()) == []


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    """An empty user cache directory for this test, and encodings loaded afresh."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    tokens._load.cache_clear()
    yield tmp_path / "cache"
    tokens._load.cache_clear()


def test_binary_cache_holds_tiktoken_own_ranks_and_spares_the_shipped_file(own_cache, monkeypatch):
    text = "get_user_data: Gets user data. \u200b \U0001F680"
    assert tokens.count(text, "cl100k_base") == ntok(text, "cl100k_base")
    path = tokens.cache_path("cl100k_base")
    assert path.is_relative_to(own_cache) and path.exists()

    def refuse(name):
        raise AssertionError("the shipped file was parsed again")

    monkeypatch.setattr(tokens, "shipped_ranks", refuse)
    tokens._load.cache_clear()
    assert tokens.cached_ranks("cl100k_base") == tiktoken_spec("cl100k_base")["mergeable_ranks"]
    assert tokens.count(text, "cl100k_base") == ntok(text, "cl100k_base")


@pytest.mark.parametrize("damage", ["flip a byte", "truncate", "other source", "not a cache", "empty"])
def test_damaged_cache_is_detected_and_rebuilt(own_cache, damage):
    tokens.cached_ranks("cl100k_base")
    path = tokens.cache_path("cl100k_base")
    data = path.read_bytes()
    broken = {
        "flip a byte": data[:-5000] + bytes([data[-5000] ^ 1]) + data[-4999:],
        "truncate": data[: len(data) // 2],
        "other source": data.replace(tokens.SHIPPED["cl100k_base"].encode(), b"0" * 64, 1),
        "not a cache": b"\x00" * 300,
        "empty": b"",
    }[damage]
    path.write_bytes(broken)
    assert tokens.cached_ranks("cl100k_base") == tiktoken_spec("cl100k_base")["mergeable_ranks"]
    assert path.read_bytes() == data  # rebuilt


def test_unwritable_cache_directory_still_counts(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # the cache directory cannot be created
    tokens._load.cache_clear()
    try:
        assert tokens.count("hello world", "cl100k_base") == ntok("hello world", "cl100k_base") == 2
    finally:
        tokens._load.cache_clear()
    assert blocker.read_text() == "not a directory"


def test_token_starts_from_the_width_tables_match_tiktokens_own_offsets():
    import numpy as np

    from toolsurvey.core.tokens import splitter, token_widths

    text = 'Grüße 中文 🚀 "quoted", tabs\tand\nlines ﬁ é'
    enc = encoding("o200k_base")  # tiktoken's own constructor: its offsets are the oracle
    ids = enc.encode_ordinary(text)
    chars, inside = token_widths("o200k_base")
    before = np.concatenate([[0], np.cumsum(chars[ids])[:-1]])
    assert np.maximum(before - inside[ids], 0).tolist() == enc.decode_with_offsets(ids)[1]
    # the pre-split tiles the text, and no token crosses the end of one of its pieces
    ends = [m.end() for m in splitter("o200k_base").finditer(text)]
    assert ends[-1] == len(text)
    assert sum(len(enc.encode_ordinary(p)) for p in splitter("o200k_base").findall(text)) == len(ids)
