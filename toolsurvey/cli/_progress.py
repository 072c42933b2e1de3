"""Progress bars on standard error: only on a terminal, not with --quiet, and only once the work
has taken a second (short runs print nothing extra; logs and pipes never see a bar)."""

from __future__ import annotations

import sys
import time

DELAY = 1.0  # seconds of work before a bar appears


def add_quiet_arg(p) -> None:
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar on the terminal")


class Bar:
    """`advance()` as work is done; a rich progress bar appears after DELAY seconds on a terminal."""

    def __init__(self, what: str, total: int | None = None, *, quiet: bool = False):
        self.what, self.total, self.done = what, total, 0
        self.enabled = not quiet and sys.stderr.isatty()
        self.started = time.monotonic()
        self._progress = self._task = None

    def __enter__(self) -> Bar:
        return self

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.stop()

    @property
    def console(self):
        """Where to print lines while the bar shows (above it), or None when there is no bar."""
        return self._progress.console if self._progress is not None else None

    def advance(self, n: int = 1, *, total: int | None = None) -> None:
        self.total = total if total is not None else self.total
        self.done += n
        if not self.enabled or (self._progress is None and time.monotonic() - self.started < DELAY):
            return
        if self._progress is None:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                      TimeElapsedColumn(), console=Console(stderr=True), transient=True)
            self._task = self._progress.add_task(self.what, total=self.total)
            self._progress.start()
        self._progress.update(self._task, completed=self.done, total=self.total)
