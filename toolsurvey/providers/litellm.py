"""LiteLLM's community price file: its chat models as partial price rows, and which copy is in use
(the one `toolsurvey prices update` fetched into the user cache, or the snapshot shipped)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..core.assumptions import bundled_toml
from ..errors import InputError

LITELLM_URL = "https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json"
_PER_MILLION = 1_000_000  # LiteLLM prices a token, a price row a million

def provider_map() -> dict[str, str]:
    from .constants import provider_constants

    return dict(provider_constants().get("litellm_providers", {}).get("map", {}))


def model_prefixes() -> tuple[str, ...]:
    """The provider prefixes LiteLLM's file writes before some model names ("gemini/")."""
    from .constants import provider_constants

    return tuple(provider_constants().get("litellm_providers", {}).get("model_prefixes", ()))


_MONEY = {"input": "input_cost_per_token", "output": "output_cost_per_token",
          "cache_write": "cache_creation_input_token_cost", "cache_read": "cache_read_input_token_cost",
          "cache_write_1h": "cache_creation_input_token_cost_above_1hr"}


def chat_entry(name: str, row: Any) -> bool:
    """Whether an entry of LiteLLM's file is a chat model with input and output costs and a context window."""
    if name == "sample_spec" or not isinstance(row, dict) or row.get("mode") not in (None, "chat", "responses",
                                                                                    "completion"):
        return False
    window = row.get("max_input_tokens") or row.get("max_tokens")
    return _is_num(row.get(_MONEY["input"])) and _is_num(row.get(_MONEY["output"])) and _is_num(window) and window > 0


def entry_row(row: dict, providers: Mapping[str, str], origin: str, as_of: str) -> dict[str, Any]:
    """The partial price row of an entry `chat_entry` accepts (per-token costs become per-million)."""
    r: dict[str, Any] = {k: round(row[v] * _PER_MILLION, 10) for k, v in _MONEY.items() if _is_num(row.get(v))}
    r["context_window"] = int(row.get("max_input_tokens") or row.get("max_tokens"))
    if _is_num(row.get("prompt_cache_min_tokens")):
        r["min_cache_tokens"] = int(row["prompt_cache_min_tokens"])
    lp = str(row.get("litellm_provider", ""))
    r.update(provider=providers.get(lp, lp), source=origin, as_of=as_of)
    return r


def litellm_rows(doc: Mapping[str, Any], origin: str = "LiteLLM price file", as_of: str = "") -> dict[str, dict]:
    """The chat models of LiteLLM's `model_prices_and_context_window.json` as partial price rows
    (per-token costs become per-million); only the fields a row records are given.

    Entries without input and output costs or a context window (images, embeddings, `sample_spec`)
    are skipped. Raises InputError when the document is not such a file.
    """
    if not isinstance(doc, dict):
        raise InputError(f"{origin}: expected a JSON object of model name -> prices, found {type(doc).__name__}")
    providers = provider_map()
    out = {name: entry_row(row, providers, origin, as_of) for name, row in doc.items() if chat_entry(name, row)}
    if not out:
        raise InputError(f"{origin}: no chat model with input_cost_per_token, output_cost_per_token "
                         "and max_input_tokens found; is this LiteLLM's model_prices_and_context_window.json?")
    return out


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v


def cache_dir() -> Path:
    """Where `toolsurvey prices update` keeps the fetched LiteLLM file ($XDG_CACHE_HOME/toolsurvey)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "toolsurvey"


def litellm_source() -> dict[str, str]:
    """Which LiteLLM file the default prices come from: the one `toolsurvey prices update` fetched
    into the user cache, else the snapshot shipped in the package (version, date, licence)."""
    meta = dict(bundled_toml("prices.toml")["litellm"])
    cached = cache_dir() / "model_prices_and_context_window.json"
    stamp = cache_dir() / "model_prices_and_context_window.meta.json"
    if cached.is_file():
        try:
            info = json.loads(stamp.read_text("utf-8"))
        except (OSError, ValueError):  # no or a damaged stamp: the file is still used, its date unknown
            info = {}
        info = info if isinstance(info, dict) else {}
        return {"path": str(cached), "label": f"LiteLLM price file fetched {info.get('fetched', '?')}",
                "name": "LiteLLM price file fetched by `toolsurvey prices update`",
                "as_of": str(info.get("fetched", "")), "source": str(info.get("url", LITELLM_URL))}
    return {"path": "", "label": f"LiteLLM {meta['version']} snapshot ({meta['as_of']})",
            "name": f"LiteLLM {meta['version']} snapshot", "as_of": meta["as_of"], "source": meta["source"]}
