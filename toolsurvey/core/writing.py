"""File writing that never leaves a half-written file behind, and CSV that is safe to open."""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

STDOUT = "-"  # as an output path: standard output


def atomic_write(path: str | os.PathLike, data: str | bytes) -> Path:
    """Write `data` to `path` so that no reader ever sees half of it; returns the path.

    A regular file or a new path is written to a temporary file beside it and renamed over it,
    ending with the permissions a plain `open(path, "w")` would give it. A symlink is followed:
    its resolved target is replaced and the link kept. Devices, FIFOs and sockets (`/dev/null`,
    `/dev/stdout`) are written through, since they cannot be replaced; `-` is standard output.
    Raises OSError as open/write would.
    """
    if str(path) == STDOUT:
        _write_stdout(data)
        return Path(STDOUT)
    p = Path(path)
    try:
        mode_bits = os.stat(p).st_mode  # follows links, including /proc's (/dev/stdout -> pipe:[…])
    except FileNotFoundError:
        mode_bits = None
    target = Path(os.path.realpath(p))  # a link to a file: replace the file, not the link
    special = mode_bits is not None and not stat.S_ISREG(mode_bits) and not stat.S_ISDIR(mode_bits)
    if special or (mode_bits is not None and not target.exists()):  # device, FIFO, socket, magic link
        with open(p, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode("utf-8"))
        return p
    mode = "wb" if isinstance(data, bytes) else "w"
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as f:
            f.write(data)
        os.chmod(tmp, mode_bits & 0o7777 if mode_bits is not None else 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:  # also SIGTERM (the CLI turns it into an exception): no temporary left
        os.unlink(tmp)
        raise
    return p


def _write_stdout(data: str | bytes) -> None:
    if isinstance(data, bytes):
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(data)
        sys.stdout.flush()


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
            df[c] = [safe_text(v) for v in df[c]]
    return df


def safe_text(v):
    """`v`, with a leading apostrophe if it is text a spreadsheet would run as a formula."""
    return ("'" + v) if isinstance(v, str) and v[:1] in ("=", "+", "-", "@", "\t", "\r") else v
