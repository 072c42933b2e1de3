"""Independent oracles for the measurement tests: tiktoken's own constructors on the shipped files,
compact JSON built here, a port of the OpenAI cookbook's tool token count, and the release and data
dates read from pyproject.toml and the data files with a plain scan, and the Wilson interval from its
textbook formula."""

from __future__ import annotations

import json
import math
import re
import tomllib
from functools import cache
from pathlib import Path

import tiktoken
import tiktoken.load
import tiktoken_ext.openai_public as public

ROOT = Path(__file__).resolve().parent.parent
ENCODINGS = ROOT / "toolsurvey" / "encodings"
ASSUMPTIONS = ROOT / "toolsurvey" / "assumptions"


def tiktoken_spec(name: str) -> dict:
    """tiktoken's own constructor arguments for `name`, reading the ranks from the shipped file
    with tiktoken's own loader (which checks the hash tiktoken expects)."""
    real = tiktoken.load.load_tiktoken_bpe

    def from_shipped(url, expected_hash=None):
        return real(str(ENCODINGS / f"{name}.tiktoken"), expected_hash=expected_hash)

    public.load_tiktoken_bpe = from_shipped
    try:
        return getattr(public, name)()
    finally:
        public.load_tiktoken_bpe = real


@cache
def encoding(name: str = "o200k_base") -> tiktoken.Encoding:
    return tiktoken.Encoding(**tiktoken_spec(name))


def ntok(text: str, name: str = "o200k_base") -> int:
    return len(encoding(name).encode(text, disallowed_special=()))


def compact(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def num_tokens_for_tools(functions: list[dict], model: str) -> int:
    """The OpenAI cookbook's `num_tokens_for_tools` (How to count tokens with tiktoken), tools part
    only, ported literally: flat schemas, string enums, constants per model."""
    if model in ("gpt-4o", "gpt-4o-mini"):
        func_init, prop_init, prop_key, enum_init, enum_item, func_end = 7, 3, 3, -3, 3, 12
        enc = encoding("o200k_base")
    elif model in ("gpt-3.5-turbo", "gpt-4"):
        func_init, prop_init, prop_key, enum_init, enum_item, func_end = 10, 3, 3, -3, 3, 12
        enc = encoding("cl100k_base")
    else:
        raise NotImplementedError(model)
    count = 0
    if functions:
        for f in functions:
            count += func_init
            function = f["function"]
            f_desc = function["description"]
            if f_desc.endswith("."):
                f_desc = f_desc[:-1]
            count += len(enc.encode(function["name"] + ":" + f_desc))
            props = function["parameters"]["properties"]
            if len(props) > 0:
                count += prop_init
                for key in list(props.keys()):
                    count += prop_key
                    p_type = props[key]["type"]
                    p_desc = props[key]["description"]
                    if "enum" in props[key].keys():
                        count += enum_init
                        for item in props[key]["enum"]:
                            count += enum_item
                            count += len(enc.encode(item))
                    if p_desc.endswith("."):
                        p_desc = p_desc[:-1]
                    count += len(enc.encode(f"{key}:{p_type}:{p_desc}"))
        count += func_end
    return count


def expected_provenance() -> dict[str, str]:
    """The version in pyproject.toml and the dates in the data files, read here: the snapshot's in
    prices.toml, the newest `as_of` line of providers.toml, the accuracy curve's."""
    prices = tomllib.loads((ASSUMPTIONS / "prices.toml").read_text("utf-8"))["litellm"]
    providers = re.findall(r'^as_of = "(\d{4}-\d\d-\d\d)"', (ASSUMPTIONS / "providers.toml").read_text("utf-8"), re.M)
    accuracy = tomllib.loads((ASSUMPTIONS / "accuracy.toml").read_text("utf-8"))
    return {"version": tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["version"],
            "prices": f"LiteLLM {prices['version']} snapshot", "prices_as_of": prices["as_of"],
            "providers_as_of": max(providers), "accuracy_curve_as_of": accuracy["as_of"]}


def version_lines(p: dict) -> list[str]:
    """How `toolsurvey --version` words the fields a JSON output carries under `produced_by`."""
    return [f"toolsurvey {p['version']}", f"prices: {p['prices']}, as of {p['prices_as_of']}",
            f"providers.toml: as of {p['providers_as_of']}", f"accuracy curve: as of {p['accuracy_curve_as_of']}"]


def wilson(k: int, n: int) -> tuple[float | None, float | None]:
    """The Wilson score interval at 95% (z = 1.959963984540054), from its textbook formula: the eval
    tests' oracle for every interval toolsurvey prints; (None, None) when nothing was counted."""
    if n == 0:
        return None, None
    z = 1.959963984540054
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)
