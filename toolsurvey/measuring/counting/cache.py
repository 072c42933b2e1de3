"""Counts already obtained, on disk: one small JSON file per (provider, model, exact body)."""

from __future__ import annotations

import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

from ...core.writing import atomic_write
from ...errors import InputError


def default_cache_dir() -> Path:
    """$TOOLSURVEY_CACHE_DIR, else the user cache folder (XDG_CACHE_HOME, LOCALAPPDATA or ~/.cache)."""
    if os.environ.get("TOOLSURVEY_CACHE_DIR"):
        return Path(os.environ["TOOLSURVEY_CACHE_DIR"])
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "toolsurvey" / "cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "toolsurvey"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "toolsurvey"


class Cache:
    """Counts already obtained, one small JSON file per (provider, model, exact body)."""

    def __init__(self, folder: str | os.PathLike | None = None, enabled: bool = True):
        self.folder = Path(folder) if folder else default_cache_dir()
        self.enabled = enabled

    def _path(self, key: str) -> Path:
        return self.folder / "counts" / key[:2] / f"{key}.json"

    def get(self, key: str) -> int | None:
        if not self.enabled:
            return None
        try:
            v = json.loads(self._path(key).read_text("utf-8")).get("tokens")
        except (OSError, ValueError, AttributeError):
            return None  # absent or damaged: count again
        return v if isinstance(v, int) and v >= 0 else None

    def put(self, key: str, provider: str, model: str, tokens: int) -> None:
        if not self.enabled:
            return
        p = self._path(key)
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(p, json.dumps({"provider": provider, "model": model, "tokens": tokens,
                                        "counted_at": datetime.now(UTC).isoformat(timespec="seconds")}))
        except OSError as e:
            raise InputError(f"cannot write the count cache in {self.folder} ({e.strerror}); "
                             "pass another --cache-dir or --no-cache") from None
