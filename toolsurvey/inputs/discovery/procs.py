"""Keeping track of the processes discovery starts: nothing a server spawns outlives the run, and a
server's stderr costs a bounded amount of memory however much it writes."""

from __future__ import annotations

import contextlib
import os
import select
import sys
import threading

_PR_SET_CHILD_SUBREAPER, _PR_GET_CHILD_SUBREAPER = 36, 37  # linux/prctl.h


def _prctl(option: int, arg: int) -> int | None:
    """prctl(2) through libc; None where there is none (not Linux)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if option == _PR_GET_CHILD_SUBREAPER:
            out = ctypes.c_int(0)
            return out.value if libc.prctl(option, ctypes.byref(out), 0, 0, 0) == 0 else None
        return libc.prctl(option, arg, 0, 0, 0)
    except (OSError, AttributeError):
        return None


class Reaper:
    """While active, this process is a child subreaper (Linux): a descendant whose parent exits is
    re-parented here, not to init, so it stays visible. On exit, every descendant that did not exist
    on entry is killed (SIGKILL: a server may ignore SIGTERM) and reaped; `killed` says which.

    Used as `with Reaper() as r:` around a discovery, when no other code in this process starts
    children at the same time.
    """

    def __init__(self) -> None:
        self.killed: list[str] = []
        self._before: set[tuple[int, float]] = set()
        self._was_subreaper: int | None = None

    def __enter__(self) -> Reaper:
        self._was_subreaper = _prctl(_PR_GET_CHILD_SUBREAPER, 0)
        if self._was_subreaper == 0:
            _prctl(_PR_SET_CHILD_SUBREAPER, 1)
        self._before = {_identity(p) for p in _descendants()}
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.sweep()
        finally:
            if self._was_subreaper == 0:
                _prctl(_PR_SET_CHILD_SUBREAPER, 0)

    def sweep(self) -> None:
        """Kill and reap the descendants that appeared since entry (again, until none is left:
        a process may fork between the listing and the kill)."""
        import psutil

        for _ in range(5):
            new = [p for p in _descendants() if _identity(p) not in self._before]
            alive = [p for p in new if _status(p) != psutil.STATUS_ZOMBIE]
            for p in alive:
                with contextlib.suppress(psutil.Error):
                    name = p.name()
                    p.kill()
                    self.killed.append(f"{name} (pid {p.pid})")
            psutil.wait_procs(new, timeout=2)  # reaps our children, zombies included
            if not alive:
                return


def kill_session(sid: int) -> list[str]:
    """SIGKILL every process in session `sid` (a stdio server is started as a session leader, so
    its whole tree is there unless a descendant called setsid); returns what was killed."""
    import psutil

    killed, procs = [], []
    for p in psutil.process_iter(["name"]):
        with contextlib.suppress(psutil.Error, OSError):
            if p.pid != os.getpid() and os.getsid(p.pid) == sid and p.status() != psutil.STATUS_ZOMBIE:
                p.kill()
                procs.append(p)
                killed.append(f"{p.info['name']} (pid {p.pid})")
    psutil.wait_procs(procs, timeout=2)
    return killed


def _descendants() -> list:
    import psutil

    with contextlib.suppress(psutil.Error):
        return psutil.Process().children(recursive=True)
    return []


def _identity(p) -> tuple[int, float]:
    import psutil

    with contextlib.suppress(psutil.Error):
        return p.pid, p.create_time()
    return p.pid, 0.0


def _status(p) -> str:
    import psutil

    with contextlib.suppress(psutil.Error):
        return p.status()
    return psutil.STATUS_ZOMBIE


class StderrRing:
    """A pipe for a child's stderr of which only the last `keep` bytes are held, in memory.

    Give `writer` to the child, call `started()` once it runs (so only the child holds the write
    end), and `text()` after it ended for what it wrote last.
    """

    def __init__(self, keep: int = 64 * 1024):
        self.keep = keep
        self._buf = bytearray()
        self._read_fd, write_fd = os.pipe()
        self.writer = os.fdopen(write_fd, "w")
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._pump, name="stderr-ring", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        while not self._stop.is_set():
            if not select.select([self._read_fd], [], [], 0.1)[0]:
                continue
            if not self._take():
                return

    def _take(self) -> bool:
        """Read one chunk into the ring; False at end of file."""
        try:
            chunk = os.read(self._read_fd, 65536)
        except OSError:
            return False
        self._buf += chunk
        if len(self._buf) > 2 * self.keep:
            del self._buf[: len(self._buf) - self.keep]
        return bool(chunk)

    def started(self) -> None:
        with contextlib.suppress(OSError):
            self.writer.close()

    def text(self) -> str:
        """The last `keep` bytes the child wrote, as text; stops reading."""
        self.started()
        self._stop.set()
        self._thread.join(2)
        for _ in range(32):  # what is already in the pipe, but not forever if a descendant still writes
            if not select.select([self._read_fd], [], [], 0)[0] or not self._take():
                break
        return bytes(self._buf[-self.keep:]).decode("utf-8", "replace")

    def close(self) -> None:
        self.started()
        self._stop.set()
        self._thread.join(2)
        with contextlib.suppress(OSError):
            os.close(self._read_fd)
