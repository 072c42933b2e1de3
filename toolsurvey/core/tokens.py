"""Tokenizers that work with no network: tiktoken encodings loaded from files shipped in the package."""

from __future__ import annotations

import base64
import hashlib
import marshal
import threading
from functools import cache
from importlib import resources
from pathlib import Path

import tiktoken

from ..errors import InputError
from .choices import DEFAULT_ENCODING

# The sha256 tiktoken itself checks after downloading each file (tiktoken_ext/openai_public.py).
SHIPPED = {
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
}

# tiktoken's split patterns and special tokens for the shipped encodings, as in
# tiktoken_ext/openai_public.py; tests/core/test_tokens.py checks they still agree with tiktoken.
_O200K_PAT = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_CL100K_PAT = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_SPECS = {
    "o200k_base": (_O200K_PAT, {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}),
    "cl100k_base": (
        _CL100K_PAT,
        {
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
    ),
}

_lock = threading.Lock()


def shipped_ranks(name: str) -> dict[bytes, int]:
    """Read a shipped .tiktoken file and verify its sha256; raises InputError if it does not match."""
    data = resources.files("toolsurvey").joinpath("encodings", f"{name}.tiktoken").read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != SHIPPED[name]:
        raise InputError(
            f"the shipped {name}.tiktoken has sha256 {digest}, expected {SHIPPED[name]}; "
            "reinstall toolsurvey"
        )
    ranks = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


# The binary rank cache: parsing the base64 text and hashing it costs about half a second per
# process; reading the ranks back with `marshal` (C speed, and unlike pickle it runs no code) a small
# fraction of that. The header carries the shipped file's sha256 (the file was verified against it
# when the cache was written) and the sha256 of the body, so a stale, truncated or altered cache is
# detected and rebuilt.
_MAGIC = b"toolsurvey-ranks-marshal-%d\n" % marshal.version


def cache_path(name: str) -> Path:
    """Where the binary ranks of a shipped encoding are cached (the user cache directory)."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("toolsurvey")) / "encodings" / f"{name}-{SHIPPED[name][:16]}.ranks"


def _pack(ranks: dict[bytes, int], source_sha: str) -> bytes:
    body = marshal.dumps(ranks)
    return _MAGIC + source_sha.encode() + hashlib.sha256(body).hexdigest().encode() + body


def _unpack(data: bytes, source_sha: str) -> dict[bytes, int] | None:
    """The ranks in a cache file, or None if it is not an intact cache of the file with `source_sha`."""
    start = len(_MAGIC)
    if data[:start] != _MAGIC or data[start:start + 64] != source_sha.encode():
        return None
    body = memoryview(data)[start + 128:]
    if hashlib.sha256(body).hexdigest().encode() != data[start + 64:start + 128]:
        return None
    ranks = marshal.loads(body)
    return ranks if type(ranks) is dict else None


def cached_ranks(name: str) -> dict[bytes, int]:
    """The ranks of a shipped encoding, from the binary cache when it is intact, else from the
    verified shipped file (then written to the cache; a cache directory that cannot be written is
    skipped). Raises InputError if the shipped file's hash is wrong."""
    path = cache_path(name)
    try:
        ranks = _unpack(path.read_bytes(), SHIPPED[name])
    except (OSError, ValueError, EOFError, TypeError):  # unreadable or not marshal data
        ranks = None
    if ranks is not None:
        return ranks
    ranks = shipped_ranks(name)
    try:
        from .writing import atomic_write

        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, _pack(ranks, SHIPPED[name]))
    except OSError:  # read-only home, full disk: counting works, just without the speed-up
        pass
    return ranks


@cache
def _load(name: str) -> tiktoken.Encoding:
    if name in SHIPPED:
        pat_str, special = _SPECS[name]
        return tiktoken.Encoding(
            name, pat_str=pat_str, mergeable_ranks=cached_ranks(name), special_tokens=special
        )
    try:
        return tiktoken.get_encoding(name)
    except ValueError:
        raise InputError(
            f"unknown encoding {name!r}; expected one of {', '.join(tiktoken.list_encoding_names())}"
        ) from None
    except Exception as e:  # tiktoken fetches other encodings over the network
        raise InputError(
            f"could not load encoding {name!r} ({e}); offline, use one of: {', '.join(SHIPPED)}"
        ) from None


def get_encoding(name: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    """The tiktoken Encoding `name`, from the shipped file when there is one; raises InputError."""
    with _lock:
        return _load(name)


def count(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Tokens in `text`; special-token strings in third-party text count as ordinary text."""
    return len(get_encoding(encoding).encode_ordinary(text))


def count_many(texts: list[str], encoding: str = DEFAULT_ENCODING) -> list[int]:
    """Tokens of each string, like `count` on each."""
    encode = get_encoding(encoding).encode_ordinary
    return [len(encode(t)) for t in texts]


@cache
def splitter(name: str = DEFAULT_ENCODING):
    """The compiled pre-split of encoding `name` (a `regex` pattern): tiktoken encodes each piece it
    matches on its own, so no token crosses a piece's end. Raises InputError for an unknown encoding."""
    import regex

    return regex.compile(_SPECS[name][0] if name in _SPECS else get_encoding(name)._pat_str)


@cache
def token_widths(name: str = DEFAULT_ENCODING):
    """Per token id of encoding `name`: how many characters start in it, and whether it starts inside
    one (with a UTF-8 continuation byte). Two numpy arrays, for finding where tokens start in a text."""
    import numpy as np

    if name in SHIPPED:
        ranks = cached_ranks(name)
    else:
        enc = get_encoding(name)
        ranks = {enc.decode_single_token_bytes(i): i for i in range(enc.n_vocab) if i not in enc.special_tokens_set}
    keys = list(ranks)
    ids = np.fromiter(ranks.values(), np.int64, len(keys))
    lengths = np.fromiter(map(len, keys), np.int64, len(keys))
    cont = (np.frombuffer(b"".join(keys), np.uint8) & 0xC0) == 0x80
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    size = int(ids.max()) + 1
    chars, inside = np.zeros(size, np.int64), np.zeros(size, bool)
    chars[ids] = lengths - np.add.reduceat(cont.astype(np.int64), offsets)
    inside[ids] = cont[offsets]
    return chars, inside
