"""Answers already obtained, on disk: one JSON file per exact request (and repeat), written
atomically once the answer has come back whole. A failed request is never written, so a re-run
sends only what is missing, and a run stopped by Ctrl-C resumes where it stopped."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ...core.writing import atomic_write
from ...errors import InputError
from ..counting.cache import default_cache_dir


class AnswerCache:
    """get/put of an answer's JSON by its key (the request's hash and the repeat's number)."""

    def __init__(self, folder: str | os.PathLike | None = None, enabled: bool = True):
        self.folder = Path(folder) if folder else default_cache_dir()
        self.enabled = enabled

    def _path(self, key: str) -> Path:
        return self.folder / "answers" / key[:2] / f"{key}.json"

    def get(self, key: str) -> tuple[dict, float] | None:
        """(answer, seconds it took) for `key`, or None when absent or damaged (then asked again)."""
        if not self.enabled:
            return None
        try:
            doc = json.loads(self._path(key).read_text("utf-8"))
            answer, latency = doc["answer"], float(doc.get("latency") or 0.0)
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None
        return (answer, latency) if isinstance(answer, dict) else None

    def __contains__(self, key: str) -> bool:
        return self.enabled and self._path(key).is_file()

    def put(self, key: str, answer: dict, latency: float) -> None:
        if not self.enabled:
            return
        p = self._path(key)
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(p, json.dumps({"answer": answer, "latency": latency}, ensure_ascii=False))
        except OSError as e:
            raise InputError(f"cannot write the answer cache in {self.folder} ({e.strerror}); "
                             "pass another --cache-dir or --no-cache") from None
