"""An eval through the provider's batch API, at half price: the requests not yet answered are
submitted as one batch, whose id is kept on disk beside the answer cache until its results are read,
so a run stopped while the batch is processing (Ctrl-C, or a batch that takes hours) picks the same
batch up again when re-run. Each result is cached as it is read, like an answer sent alone."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from ...core.writing import atomic_write
from ...errors import ProviderError

POLL_SECONDS = 30.0


def _custom_id(key: str) -> str:
    return "q" + hashlib.sha256(key.encode()).hexdigest()[:40]  # ^[a-zA-Z0-9_-]{1,64}$, as both APIs take


def _state_path(folder: Path, keys: list[str]) -> Path:
    digest = hashlib.sha256("\n".join(sorted(keys)).encode()).hexdigest()
    return folder / "batches" / f"{digest}.json"


def fetch_batch(plan, todo: list, progress, record, poll: float = POLL_SECONDS) -> list[tuple[str, str]]:
    """Submit `todo` (jobs not cached) as one batch, or resume the batch already submitted for them;
    wait for it to end, polling every `poll` seconds; then pass each answer to `record` and cache it.
    Returns the (id, error) of the requests without an answer."""
    client = plan.client
    by_id = {_custom_id(j.key): j for j in todo}
    path = _state_path(plan.cache.folder, [j.key for j in todo])
    batch_id = _resume(path)
    if batch_id is None:
        batch_id = client.batch_submit([(cid, j.body) for cid, j in by_id.items()])
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps({"batch": batch_id, "api": client.api.name, "requests": len(by_id)}))
    while True:
        ended, status = client.batch_state(batch_id)
        if progress:
            progress(len(plan.jobs) - len(todo), len(plan.jobs))
        if ended:
            break
        time.sleep(poll)
    failed, seen = [], set()
    for cid, answer, error in client.batch_results(batch_id):
        job = by_id.get(cid)
        if job is None:
            continue
        seen.add(cid)
        if answer is None:
            failed.append((job.query.id, error or status))
            continue
        plan.cache.put(job.key, answer, 0.0)
        record(job, answer, 0.0, False)
    failed += [(j.query.id, f"no result in batch {batch_id} ({status})") for cid, j in by_id.items() if cid not in seen]
    if len(failed) == len(by_id) and by_id:
        raise ProviderError(f"batch {batch_id} ended {status} with no answer (first: {failed[0][1]})")
    path.unlink(missing_ok=True)
    return failed


def _resume(path: Path) -> str | None:
    try:
        return str(json.loads(path.read_text("utf-8"))["batch"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
