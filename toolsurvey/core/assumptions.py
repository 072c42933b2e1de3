"""The assumption files: the bundled ones in toolsurvey/assumptions (each names its source and
date) and a user's TOML file of the same layout, with errors that name the file."""

from __future__ import annotations

import math
import os
import tomllib
from functools import cache
from importlib import resources
from typing import Any

from ..errors import InputError
from .files import read_text


@cache
def bundled_bytes(name: str) -> bytes:
    """The bytes of a bundled assumption file, e.g. 'litellm_prices.json.gz'."""
    return resources.files("toolsurvey").joinpath("assumptions", name).read_bytes()


def bundled_text(name: str) -> str:
    return bundled_bytes(name).decode("utf-8")


def bundled_toml(name: str) -> dict[str, Any]:
    """A bundled TOML file, parsed anew (callers may change what they get)."""
    return tomllib.loads(bundled_text(name))


def read_toml(path: str | os.PathLike, what: str) -> dict[str, Any]:
    """A user's TOML file (a regular file within the input limit); raises InputError for an
    unreadable file, invalid TOML, or a nan or inf (TOML allows them; no count, price or rate is either)."""
    text = read_text(path, what, f"a {what} TOML file")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{os.fspath(path)}: not valid TOML ({e})") from None
    reject_non_finite(doc, os.fspath(path))
    return doc


def toml_or_bundled(path: str | os.PathLike | None, bundled: str, what: str) -> tuple[dict, str]:
    """(document, where it came from): the user's file, or the bundled one when `path` is None."""
    if path is None:
        return bundled_toml(bundled), f"toolsurvey/assumptions/{bundled}"
    return read_toml(path, what), os.fspath(path)


def newest_as_of(doc: Any) -> str:
    """The latest `as_of` date anywhere in an assumption document ("" if none): a file whose entries
    were checked on different days is as recent as its newest entry."""
    if isinstance(doc, list):
        return max((newest_as_of(v) for v in doc), default="")
    if not isinstance(doc, dict):
        return ""
    own = str(doc["as_of"]) if "as_of" in doc else ""
    return max([own, *(newest_as_of(v) for k, v in doc.items() if k != "as_of")])


def reject_non_finite(value: Any, where: str, key: str = "") -> None:
    """Raise InputError for a nan or infinite number anywhere in `value`, naming its key."""
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{where}: {key or 'a value'} = {value} is not a finite number")
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        reject_non_finite(v, where, f"{key}[{k}]" if isinstance(k, int) else f"{key}.{k}".lstrip("."))
