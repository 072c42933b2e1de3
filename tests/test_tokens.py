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

from toolsurvey import tokens
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
