"""Who wrote a report (the release and its data's dates), when, and from which inputs (each named with a
short hash of its bytes)."""

from __future__ import annotations

import datetime
import hashlib
import os
from pathlib import Path
from typing import Any

HASH_CHARS = 12


def short_hash(path: Path) -> str:
    """The first HASH_CHARS hex digits of the file's sha256 (a folder: of its files' names and bytes)."""
    h = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for f in files:
        if path.is_dir():
            h.update(str(f.relative_to(path)).encode())
        with f.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()[:HASH_CHARS]


def meta(sources: list, *, scenario: Any = None, usage: Any = None, traces: Any = None, eval: Any = None) -> dict:
    """The date, the release and its data's dates (`model.provenance`) and the inputs as
    [(role, name, short sha256 or "")]."""
    from ...model.provenance import provenance

    inputs = []
    for role, src in [*(("registry", s) for s in sources), ("scenario", scenario), ("usage log", usage),
                      ("traces", traces), ("eval", eval)]:
        if not isinstance(src, (str, os.PathLike)):
            continue
        p = Path(src)
        try:
            digest = short_hash(p) if p.exists() else ""
        except OSError:
            digest = ""
        inputs.append((role, p.name or str(src), digest))
    return {"date": datetime.date.today().isoformat(), "produced_by": provenance(), "inputs": inputs}
