"""A discovery as a snapshot file: the registry format with each tool exactly as its server sent it."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime

from ...core.registry import Registry
from ...core.writing import atomic_write
from ...errors import InputError
from ..formats import dump


def utc_now() -> str:
    """The time a snapshot, or a server's capture in it, is stamped with (UTC, to the second)."""
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def snapshot(reg: Registry) -> dict:
    """The registry as a snapshot file value: the registry format with each tool exactly as sent."""
    value = dump(reg, "registry")
    for name, entry in value["servers"].items():
        entry["tools"] = [t.as_sent() for t in reg.servers[name].tools]
    return {"toolsurvey": {"kind": "snapshot", "version": 1, "written_at": utc_now()}, **value}


def save_snapshot(reg: Registry, path: str | os.PathLike) -> None:
    """Write `snapshot(reg)` to `path` atomically; raises InputError if it cannot be written."""
    try:
        atomic_write(path, json.dumps(snapshot(reg), indent=2, ensure_ascii=False, allow_nan=False) + "\n")
    except ValueError as e:  # NaN from a Registry built in Python: JSON cannot hold it
        raise InputError(f"cannot write {path}: {e}") from None
    except OSError as e:
        raise InputError(f"cannot write {path}: {e.strerror}") from None
