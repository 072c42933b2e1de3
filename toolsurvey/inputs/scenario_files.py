"""The files a scenario names, read once at the edge: the scenario TOML itself, its phases file, an
accuracy curve or description effect file, a samples file and a price file (path or URL).

Each reader gives plain values (documents, numbers, a `PriceFile`); the model builds its objects
from them and never opens a file itself (tests/test_layout.py checks that no model module imports
a reader).
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.assumptions import read_toml, toml_or_bundled
from ..core.files import parse_json, read_text
from ..errors import InputError
from ..providers.prices import Price, load_prices


@dataclass(frozen=True)
class PriceFile:
    """A price file read once: its source as given (path or URL) and the prices it gives, the
    defaults updated by it. Compares and prints as its source."""

    source: str
    table: Mapping[str, Price] = field(compare=False, repr=False, default_factory=dict)

    def __str__(self) -> str:
        return self.source


def toml_doc(path: str | os.PathLike, what: str) -> dict:
    """A scenario or phases TOML file as a document; raises InputError ("cannot read WHAT ...")."""
    try:
        return read_toml(path, what)
    except InputError as e:
        raise InputError(f"cannot read {what} {e}") from None


def curve_doc(path: str | os.PathLike | None, bundled: str, what: str) -> tuple[dict, str]:
    """(document, where it came from) of a curve file in the layout of the bundled `bundled`, or the
    bundled one when `path` is None; raises InputError for an unreadable file."""
    return toml_or_bundled(path, bundled, what)


def samples(path: str | os.PathLike, name: str, base: Path | None = None) -> list[float]:
    """Token counts from a JSON list, a JSON list of objects with `tokens`, or a CSV with a `tokens`
    column (a relative path is taken from `base`); raises InputError naming the file."""
    p = Path(path) if base is None or Path(path).is_absolute() else base / path
    text = read_text(p, "samples file", "a JSON or CSV samples file")
    if p.suffix == ".csv":
        import pandas as pd  # only for a CSV samples file

        df = pd.read_csv(io.StringIO(text))
        if "tokens" not in df.columns:
            raise InputError(f"{name}: {p} has no 'tokens' column (found {', '.join(df.columns)})")
        return [float(v) for v in df["tokens"]]
    doc: Any = parse_json(text, f"{name}: {p}")
    if isinstance(doc, list):
        return [float(v["tokens"] if isinstance(v, dict) else v) for v in doc]
    raise InputError(f"{name}: {p} should hold a list of token counts, found a JSON {type(doc).__name__}")


def price_file(source: str | os.PathLike) -> PriceFile:
    """A price file (toolsurvey TOML or LiteLLM JSON, path or http(s) URL) read once: the default
    prices updated by it, with the source as given. Raises InputError or ProviderError as `load_prices`."""
    shown = os.fspath(source)
    return PriceFile(shown, load_prices(shown))
