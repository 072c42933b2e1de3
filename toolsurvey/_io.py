"""File writing that never leaves a half-written file behind, and CSV that is safe to open."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


def atomic_write(path: str | os.PathLike, data: str | bytes) -> Path:
    """Write `data` to `path` via a temporary file in the same folder and a rename.

    The file ends with the permissions a plain `open(path, "w")` would give it (mkstemp's
    temporary file is private). Raises OSError as open/write would.
    """
    p = Path(path)
    mode = "wb" if isinstance(data, bytes) else "w"
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent or ".")
    try:
        with os.fdopen(fd, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as f:
            f.write(data)
        os.chmod(tmp, p.stat().st_mode & 0o7777 if p.exists() else 0o666 & ~_umask())
        os.replace(tmp, p)
    except BaseException:
        os.unlink(tmp)
        raise
    return p


def _umask() -> int:
    mask = os.umask(0o022)  # the only way to read it is to set it; put it straight back
    os.umask(mask)
    return mask


def spreadsheet_safe(df: pd.DataFrame) -> pd.DataFrame:
    """A copy in which no text cell can run as a spreadsheet formula once saved as CSV: text starting
    with = + - @ tab or CR gets a leading apostrophe (OWASP's advice); numbers are left as they are."""
    import pandas as pd

    df = df.copy()
    for c in df.columns:
        if df[c].dtype == object or pd.api.types.is_string_dtype(df[c]):
            df[c] = [("'" + v) if isinstance(v, str) and v[:1] in ("=", "+", "-", "@", "\t", "\r") else v
                     for v in df[c]]
    return df
