"""Model prices: LiteLLM's community price file (a dated snapshot ships with the package), the
bundled overrides for fields it lacks, price files and per-model overrides, merged field by field."""

from __future__ import annotations

import gzip
import json
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from functools import cache
from pathlib import Path
from typing import Any

from ..core.assumptions import bundled_bytes, bundled_toml, reject_non_finite
from ..errors import InputError, ProviderError
from .litellm import (
    LITELLM_URL,
    cache_dir,
    chat_entry,
    entry_row,
    litellm_rows,
    litellm_source,
    model_prefixes,
    provider_map,
)

PER_MILLION = 1_000_000
PRICE_FIELDS = ("input", "output", "cache_write", "cache_read", "context_window", "min_cache_tokens")
EXTRA_FIELDS = ("cache_write_1h", "cache_storage")  # optional: 1-hour cache write; explicit cache storage
ADD_MODEL_HINT = ("add it with prices={'MODEL': {'input': ..., 'output': ..., 'cache_write': ..., "
                  "'cache_read': ..., 'context_window': ..., 'min_cache_tokens': ...}} "
                  "(or a [prices.MODEL] table in the scenario file), or load a LiteLLM price file")
_INT_FIELDS = ("context_window", "min_cache_tokens")


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
    cache_write_1h: float | None = None   # Anthropic's 1-hour cache write, per million tokens
    cache_storage: float | None = None    # explicit cache storage, per million tokens per hour (Gemini)
    origins: Mapping[str, str] = field(default_factory=dict, compare=False)  # field -> where it came from

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["origins"] = dict(self.origins)
        return d


_KNOWN_FIELDS = frozenset(f.name for f in fields(Price)) - {"model"}


def _number(model: str, f: str, v: Any, origin: str) -> float | int:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 or v != v:
        raise InputError(f"prices for {model!r} ({origin}): {f} must be a non-negative number, found {v!r}")
    return int(v) if f in _INT_FIELDS else float(v)


def _price(model: str, row: Mapping[str, Any], origin: str) -> Price:
    """A Price from a mapping with every field of PRICE_FIELDS; raises InputError naming what is wrong."""
    missing = [f for f in PRICE_FIELDS if f not in row]
    if missing:
        raise InputError(f"prices for {model!r} ({origin}) miss {', '.join(missing)}; "
                         f"every model needs {', '.join(PRICE_FIELDS)}")
    known = _KNOWN_FIELDS
    unknown = sorted(set(row) - known - {"aliases"})
    if unknown:
        raise InputError(f"prices for {model!r} ({origin}): unknown field(s) {', '.join(unknown)}; "
                         f"expected {', '.join(sorted(known - {'origins'}))}")
    values: dict[str, Any] = {f: _number(model, f, row[f], origin) for f in PRICE_FIELDS}
    for f in EXTRA_FIELDS:
        if row.get(f) is not None:
            values[f] = _number(model, f, row[f], origin)
    if values["context_window"] <= 0:
        raise InputError(f"prices for {model!r} ({origin}): context_window must be positive")
    origins = dict(row.get("origins") or {}) or {f: origin for f in (*PRICE_FIELDS, *EXTRA_FIELDS) if f in row}
    return Price(model=model, provider=str(row.get("provider", "")), source=str(row.get("source", origin)),
                 as_of=str(row.get("as_of", "")), note=str(row.get("note", "")), origins=origins, **values)


def _merge(prices: dict[str, Price], rows: Mapping[str, Mapping[str, Any]], origin: str,
           defaults: Any = None) -> None:
    """Update `prices` with partial `rows` field by field: a field a row does not give keeps its old
    value, so a loaded file never drops what the row it replaces had. `defaults(model, row)` fills the
    fields a new model still lacks. Raises InputError for a row that stays incomplete."""
    for model, row in rows.items():
        old = prices.get(model)
        merged: dict[str, Any] = {}
        if old is not None:
            merged = {k: v for k, v in old.as_dict().items() if k != "model" and v is not None}
        origins = dict(merged.pop("origins", {}))
        given = {k: v for k, v in row.items() if v is not None}
        label = given.pop("_origin", origin)
        per_field = given.pop("_origins", {})
        for k in (*PRICE_FIELDS, *EXTRA_FIELDS):
            if k in given:
                origins[k] = per_field.get(k, label)
        merged.update(given)
        if defaults is not None:
            for k, (v, why) in defaults(model, merged).items():
                if k not in merged:
                    merged[k], origins[k] = v, why
        merged["origins"] = origins
        if old is not None and "note" in given and old.note and given["note"] != old.note:
            merged["note"] = f"{old.note} {given['note']}"
        prices[model] = _price(model, merged, label)


def _gaps(model: str, row: Mapping[str, Any]) -> dict[str, tuple[Any, str]]:
    """Values for the fields a model's rows left out: no cache discount or premium (the input price),
    and the provider's documented minimum cacheable length (0 for a provider toolsurvey does not know)."""
    from .constants import provider_constants

    out: dict[str, tuple[Any, str]] = {}
    if "input" in row:
        for k in ("cache_write", "cache_read"):
            out[k] = (row["input"], "not recorded: the input price (no cache premium or discount)")
    spec = provider_constants().get("caching", {}).get(str(row.get("provider", "")), {})
    if "min_cache_tokens" in spec:
        out["min_cache_tokens"] = (spec["min_cache_tokens"], f"the provider's documented minimum ({spec['source']}, "
                                                             f"{spec['as_of']})")
    else:
        out["min_cache_tokens"] = (0, "not recorded: 0 (any length is cached)")
    return out


# ---------------------------------------------------------------- the default table

@cache
def _default_sources(cached: tuple[str, float] | None) -> tuple[dict, dict[str, dict], dict[str, str]]:
    """LiteLLM's document, the bundled override rows (each field's origin recorded) and the source of
    the default table."""
    src = litellm_source()
    if src["path"]:
        try:
            doc = _parse_json(Path(src["path"]).read_text("utf-8"), src["path"])
            litellm_rows(doc, src["path"])
        except (InputError, OSError) as e:
            raise InputError(f"the fetched price file is unusable ({e}); run `toolsurvey prices update` "
                             f"again, or delete {src['path']} to use the bundled snapshot") from None
    else:
        doc = _fast_json(gzip.decompress(bundled_bytes(bundled_toml("prices.toml")["litellm"]["file"])))
    rows = _toml_rows(bundled_toml("prices.toml"), "toolsurvey/assumptions/prices.toml")
    for row in rows.values():
        row["_origins"] = {k: row["_origin"] for k in row}
    return doc, rows, src


def _default_row(name: str, doc: dict, bundled: dict[str, dict], src: dict[str, str], providers) -> dict | None:
    """One model's partial row of the default table: LiteLLM's values win, a bundled row only fills the
    fields LiteLLM lacks (and keeps its note); None when it has no input price (nothing to fill)."""
    b = bundled.get(name)
    merged = {**b, "_origins": dict(b["_origins"])} if b else None
    if chat_entry(name, doc.get(name)):
        row = entry_row(doc[name], providers, src["source"], src["as_of"])
        merged = merged or {"_origins": {}}
        merged.update(row)
        merged["_origins"].update({k: src["label"] for k in row})
        merged["_origin"] = src["label"]
    return merged if merged is not None and "input" in merged else None


def _default_names(doc: dict, bundled: dict[str, dict]) -> list[str]:
    """The default table's models, in its order: the bundled rows', then LiteLLM's other chat models."""
    return ([n for n in bundled if "input" in bundled[n] or chat_entry(n, doc.get(n))]
            + [n for n, row in doc.items() if n not in bundled and chat_entry(n, row)])


@cache
def _default_rows(cached: tuple[str, float] | None) -> tuple[dict[str, dict], str]:
    """The default table's partial rows, not yet checked and completed (see `_default_prices`), and
    the label of their source."""
    doc, bundled, src = _default_sources(cached)
    providers = provider_map()
    return {n: _default_row(n, doc, bundled, src, providers) for n in _default_names(doc, bundled)}, src["label"]


@cache
def _default_prices(cached: tuple[str, float] | None) -> dict[str, Price]:
    """The default table: the bundled overrides, then LiteLLM's file on top (its values win, the
    overrides fill only what it lacks), then provider defaults for anything still missing."""
    rows, label = _default_rows(cached)
    prices: dict[str, Price] = {}
    _merge(prices, rows, label, _gaps)
    return prices


def _fast_json(raw: bytes) -> Any:
    try:
        import orjson
    except ImportError:
        return json.loads(raw)
    return orjson.loads(raw)


def _cache_stamp() -> tuple[str, float] | None:
    cached = cache_dir() / "model_prices_and_context_window.json"
    return (str(cached), cached.stat().st_mtime) if cached.is_file() else None


def bundled_prices() -> dict[str, Price]:
    """The default price table: LiteLLM's file (user cache or shipped snapshot) + the bundled overrides."""
    return dict(_default_prices(_cache_stamp()))


# Chat models with tool calling that are not the general model an agent runs on, by the class their
# name says: LiteLLM's metadata does not tell them apart (a robotics model "supports_function_calling").
SPECIALISED = {
    "robotics": r"robotics",  # embodied reasoning for robots: gemini-robotics-er-*
    "computer use": r"computer-use",  # drives a screen through the computer-use tool: computer-use-preview
    "web search": r"\bsearch\b",  # answers through a built-in web search: gpt-4o-search-preview, gpt-5-search-api
    "speech": r"audio|\btts\b",  # speech in or out: gpt-audio, stepaudio-*, ...-tts
    "voice sessions": r"realtime|\blive\b",  # gpt-realtime, gemini-live-*
    "image generation": r"\bimage\b",  # gemini-2.5-flash-image, gpt-image-1
}
_SPECIALISED = re.compile("|".join(SPECIALISED.values()))


def tool_calling_models() -> dict[str, str]:
    """The models of LiteLLM's price file an agent can run on, name -> provider: `mode` "chat" with
    `supports_function_calling`, less speech models (`supports_audio_output`), the SPECIALISED classes
    by name (robotics, computer use, web search, speech, voice sessions, image generation), fine-tune
    templates ("ft:") and a "provider/" name where the model is also listed without it."""
    doc, providers = _default_sources(_cache_stamp())[0], provider_map()
    rows = {n: r for n, r in doc.items()
            if isinstance(r, dict) and r.get("mode") == "chat" and r.get("supports_function_calling") is True
            and not r.get("supports_audio_output") and not _SPECIALISED.search(n.lower()) and not n.startswith("ft:")}
    return {n: providers.get(str(r.get("litellm_provider", "")), str(r.get("litellm_provider", "")))
            for n, r in rows.items() if "/" not in n or n.split("/", 1)[1] not in rows}


class LazyPrices(Mapping):
    """The default price table, each row built when first asked for: `bundled_prices()` builds all
    3,000-odd rows (about 80 ms), a trace of a few models needs a few."""

    def __init__(self) -> None:
        self._doc, self._bundled, self._src = _default_sources(_cache_stamp())
        self._names: list[str] | None = None  # all of them, only when iterated (close matches of a typo)
        self._built: dict[str, Price] = {}

    def __getitem__(self, model: str) -> Price:
        if model not in self._built:
            if model not in self:
                raise KeyError(model)
            row = _default_row(model, self._doc, self._bundled, self._src, provider_map())
            _merge(self._built, {model: row}, self._src["label"], _gaps)
        return self._built[model]

    def __contains__(self, model: object) -> bool:
        b = self._bundled.get(model)  # type: ignore[call-overload]
        return (b is not None and "input" in b) or chat_entry(str(model), self._doc.get(model))  # type: ignore[call-overload]

    def _all(self) -> list[str]:
        if self._names is None:
            self._names = _default_names(self._doc, self._bundled)
        return self._names

    def __iter__(self):
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


def _toml_rows(doc: Mapping[str, Any], origin: str) -> dict[str, dict]:
    """Partial rows from `[models.NAME]` tables, each field labelled with the row's source and date."""
    models = doc.get("models")
    if not isinstance(models, dict) or not models:
        raise InputError(f"{origin}: expected [models.NAME] tables, found none")
    out = {}
    for name, row in models.items():
        if not isinstance(row, dict):
            raise InputError(f"{origin}: [models.{name}] must be a table of fields")
        label = f"{origin}: {row.get('source', origin)}" + (f" ({row['as_of']})" if row.get("as_of") else "")
        out[name] = {**row, "_origin": label}
    return out


def _parse_json(text: str, origin: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{origin}: not valid JSON ({e.msg} at line {e.lineno})") from None


def _read(source: str) -> tuple[str, str]:
    """The text of a path or http(s) URL; raises InputError when it cannot be read, ProviderError
    when the server cannot be reached or fails."""
    if source.startswith(("http://", "https://")):
        from ..core.http import fetch  # streamed, with a byte cap and a deadline for the whole answer

        try:
            body, _ = fetch(source, {}, timeout=30)
        except (InputError, ProviderError) as e:  # its message names only the redacted URL
            raise type(e)(f"cannot fetch prices: {e}") from e
        return body.decode("utf-8", "replace"), source
    from ..core.files import read_text

    return read_text(source, "prices file", "a prices TOML or JSON file"), source


def load_prices(source: str | os.PathLike | None = None, *, base: Mapping[str, Price] | None = None,
                overrides: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Price]:
    """The default prices, updated field by field with a price file (toolsurvey TOML or LiteLLM JSON,
    path or URL) and then with per-model overrides (whole rows, or fields of a known model).

    A field the file does not give keeps its value. Raises InputError for unreadable files,
    unknown formats and new rows missing a field.
    """
    prices = dict(base if base is not None else bundled_prices())
    if source is not None:
        text, origin = _read(os.fspath(source))
        if text.lstrip().startswith("{"):
            _merge(prices, litellm_rows(_parse_json(text, origin), origin), origin, _gaps)
        else:
            try:
                doc = tomllib.loads(text)
            except tomllib.TOMLDecodeError as e:
                raise InputError(f"{origin}: not valid TOML ({e})") from None
            reject_non_finite(doc, origin)
            _merge(prices, _toml_rows(doc, origin), origin)
    for model, row in (overrides or {}).items():
        if not isinstance(row, Mapping):
            raise InputError(f"price override for {model!r} must be a table of fields, found {row!r}")
        old = prices.get(model)
        row = dict(row)
        row.setdefault("source", f"{old.source} + user override".lstrip(" +") if old else "user override")
        _merge(prices, {model: {**row, "_origin": "user override"}}, "price override")
    return prices


_DATED = re.compile(r"(?:[-@]\d{8}|[-@]\d{4}-\d{2}-\d{2}|-latest)$")


def resolve_model(model: str, prices: Mapping[str, Price]) -> str | None:
    """The price-table name of `model`: itself, without a provider prefix, or without a date
    suffix (claude-sonnet-4-5-20250929 -> claude-sonnet-4-5); None if none of those is known."""
    tries, prefixes = [model], model_prefixes()
    for p in prefixes:
        if model.startswith(p):
            tries.append(model[len(p):])
    tries += [p + model for p in prefixes]
    tries += [_DATED.sub("", t) for t in list(tries) if _DATED.search(t)]
    return next((t for t in tries if t in prices), None)


def price_for(model: str, prices: Mapping[str, Price]) -> Price:
    """The Price of `model` (dated ids and provider prefixes resolve to their row); raises
    InputError naming close matches and how to add one."""
    name = resolve_model(model, prices)
    if name is None:
        import difflib

        close = difflib.get_close_matches(model, list(prices), n=8, cutoff=0.6)
        hint = f"close matches: {', '.join(close)}" if close else f"{len(prices):,} models known"
        raise InputError(f"unknown model {model!r} ({hint}; `toolsurvey prices show` lists them). "
                         f"To add one, {ADD_MODEL_HINT}")
    p = prices[name]
    return p if name == model else replace(p, model=model, note=f"{p.note} Priced as {name}.".strip())


def update_prices(url: str = LITELLM_URL, *, today: str | None = None) -> tuple[Path, int]:
    """Fetch LiteLLM's current price file into the user cache (then the default source) and return
    its path and how many chat models it prices. Raises ProviderError when it cannot be fetched,
    InputError when it is not a LiteLLM price file; the file in use is left as it was."""
    import datetime

    from ..core.writing import atomic_write

    try:
        text, origin = _read(url)
    except (InputError, ProviderError) as e:
        raise type(e)(f"{e}; offline? The default prices stay as they were ({litellm_source()['label']})") from e
    rows = litellm_rows(_parse_json(text, origin), origin)  # refuse anything that is not the price file
    folder = cache_dir()
    day = today or datetime.datetime.now(datetime.UTC).date().isoformat()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path = atomic_write(folder / "model_prices_and_context_window.json", text)
        atomic_write(folder / "model_prices_and_context_window.meta.json",
                     json.dumps({"url": url, "fetched": day}) + "\n")
    except OSError as e:
        raise InputError(f"cannot write the price cache in {folder}: {e.strerror}") from None
    return path, len(rows)
