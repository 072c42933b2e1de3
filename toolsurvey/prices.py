"""Model prices: the bundled table, user overrides and the LiteLLM community price file."""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from importlib import resources
from typing import Any

from .errors import InputError

PER_MILLION = 1_000_000
PRICE_FIELDS = ("input", "output", "cache_write", "cache_read", "context_window", "min_cache_tokens")
ADD_MODEL_HINT = ("add it with prices={'MODEL': {'input': ..., 'output': ..., 'cache_write': ..., "
                  "'cache_read': ..., 'context_window': ..., 'min_cache_tokens': ...}} "
                  "(or a [prices.MODEL] table in the scenario file), or load a LiteLLM price file")


@dataclass(frozen=True)
class Price:
    """What one model charges, in dollars per million tokens, and how much it can read."""

    model: str
    input: float
    output: float
    cache_write: float
    cache_read: float
    context_window: int
    min_cache_tokens: int
    provider: str = ""
    source: str = ""
    as_of: str = ""
    note: str = ""  # what is uncertain about this row, if anything

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _price(model: str, row: Mapping[str, Any], origin: str) -> Price:
    """A Price from a mapping with every field of PRICE_FIELDS; raises InputError naming what is wrong."""
    missing = [f for f in PRICE_FIELDS if f not in row]
    if missing:
        raise InputError(f"prices for {model!r} ({origin}) miss {', '.join(missing)}; "
                         f"every model needs {', '.join(PRICE_FIELDS)}")
    known = {f.name for f in fields(Price)} - {"model"}
    unknown = sorted(set(row) - known - {"aliases"})
    if unknown:
        raise InputError(f"prices for {model!r} ({origin}): unknown field(s) {', '.join(unknown)}; "
                         f"expected {', '.join(sorted(known))}")
    values: dict[str, Any] = {}
    for f in PRICE_FIELDS:
        v = row[f]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 or v != v:
            raise InputError(f"prices for {model!r} ({origin}): {f} must be a non-negative number, found {v!r}")
        values[f] = int(v) if f in ("context_window", "min_cache_tokens") else float(v)
    if values["context_window"] <= 0:
        raise InputError(f"prices for {model!r} ({origin}): context_window must be positive")
    return Price(model=model, provider=str(row.get("provider", "")), source=str(row.get("source", origin)),
                 as_of=str(row.get("as_of", "")), note=str(row.get("note", "")), **values)


def bundled_prices() -> dict[str, Price]:
    """The price table shipped in toolsurvey/assumptions/prices.toml."""
    text = resources.files("toolsurvey").joinpath("assumptions/prices.toml").read_text("utf-8")
    return _from_toml(tomllib.loads(text), "toolsurvey/assumptions/prices.toml")


def _from_toml(doc: Mapping[str, Any], origin: str) -> dict[str, Price]:
    models = doc.get("models")
    if not isinstance(models, dict) or not models:
        raise InputError(f"{origin}: expected [models.NAME] tables, found none")
    return {name: _price(name, row, origin) for name, row in models.items()}


def from_litellm(doc: Mapping[str, Any], origin: str = "LiteLLM price file") -> dict[str, Price]:
    """Prices from LiteLLM's `model_prices_and_context_window.json` (per-token costs become per-million).

    Entries without input and output costs (images, embeddings priced otherwise, `sample_spec`)
    are skipped; a missing cache price means the provider has no cache discount (input price),
    and a missing minimum cacheable length means 0 (LiteLLM does not record it).
    """
    if not isinstance(doc, dict):
        raise InputError(f"{origin}: expected a JSON object of model name -> prices, found {type(doc).__name__}")
    out: dict[str, Price] = {}
    for name, row in doc.items():
        if name == "sample_spec" or not isinstance(row, dict):
            continue
        if row.get("mode") not in (None, "chat", "responses", "completion"):
            continue
        cin, cout = row.get("input_cost_per_token"), row.get("output_cost_per_token")
        window = row.get("max_input_tokens") or row.get("max_tokens")
        if not isinstance(cin, (int, float)) or not isinstance(cout, (int, float)) or not window:
            continue
        write = row.get("cache_creation_input_token_cost", cin)
        read = row.get("cache_read_input_token_cost", cin)
        out[name] = _price(name, {
            "input": cin * PER_MILLION, "output": cout * PER_MILLION,
            "cache_write": (write if write is not None else cin) * PER_MILLION,
            "cache_read": (read if read is not None else cin) * PER_MILLION,
            "context_window": int(window), "min_cache_tokens": 0,
            "provider": row.get("litellm_provider", ""), "source": origin, "as_of": "",
        }, origin)
    if not out:
        raise InputError(f"{origin}: no chat model with input_cost_per_token, output_cost_per_token "
                         "and max_input_tokens found; is this LiteLLM's model_prices_and_context_window.json?")
    return out


def _read(source: str) -> tuple[str, str]:
    """The text of a path or http(s) URL; raises InputError when it cannot be read."""
    if source.startswith(("http://", "https://")):
        from .payloads import fetch  # streamed, with a byte cap and a deadline for the whole answer

        try:
            body, _ = fetch(source, {}, timeout=30)
        except InputError as e:
            raise InputError(f"cannot fetch prices: {e}") from None
        return body.decode("utf-8", "replace"), source
    from .formats import read_text

    return read_text(source, "prices file", "a prices TOML or JSON file"), source


def load_prices(source: str | os.PathLike | None = None, *, base: Mapping[str, Price] | None = None,
                overrides: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Price]:
    """The bundled prices, updated with a price file (toolsurvey TOML or LiteLLM JSON, path or URL)
    and then with per-model overrides (whole rows, or fields of a known model).

    Raises InputError for unreadable files, unknown formats and rows missing a field.
    """
    prices = dict(base if base is not None else bundled_prices())
    if source is not None:
        text, origin = _read(os.fspath(source))
        if text.lstrip().startswith("{"):
            try:
                doc = json.loads(text)
            except json.JSONDecodeError as e:
                raise InputError(f"{origin}: not valid JSON ({e.msg} at line {e.lineno})") from None
            prices.update(from_litellm(doc, origin))
        else:
            try:
                doc = tomllib.loads(text)
            except tomllib.TOMLDecodeError as e:
                raise InputError(f"{origin}: not valid TOML ({e})") from None
            prices.update(_from_toml(doc, origin))
    for model, row in (overrides or {}).items():
        if not isinstance(row, Mapping):
            raise InputError(f"price override for {model!r} must be a table of fields, found {row!r}")
        old = prices[model].as_dict() if model in prices else {}
        old.pop("model", None)
        merged = {**old, **row}
        merged.setdefault("source", "user override")
        if old:
            merged["source"] = f"{old.get('source', '')} + user override".lstrip(" +")
        prices[model] = _price(model, merged, "price override")
    return prices


def price_for(model: str, prices: Mapping[str, Price]) -> Price:
    """The Price of `model`; raises InputError listing the known models and how to add one."""
    try:
        return prices[model]
    except KeyError:
        raise InputError(f"unknown model {model!r}; known models: {', '.join(sorted(prices))}. "
                         f"To add one, {ADD_MODEL_HINT}") from None
