"""How a thread's context grows request by request, before any caching: the fixed prefix, the first
prompt, then each call and its result, each turn's answer and the next prompt, and the summary a
compaction leaves (docs/simulation.md, "Sessions")."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .scenario import Scenario
from .session_shape import Thread


@dataclass
class Sizes:
    """What a thread scenario's `row_parameters` give each position of a turn, and its outputs."""

    fixed: np.ndarray      # the stable prefix: provider overhead, tools block, system prompt
    loaded: np.ndarray     # tools a search loaded, after the conversation start
    tools: np.ndarray      # every tool definition sent
    visible: np.ndarray    # tools visible
    overhead: np.ndarray
    block: np.ndarray      # which tools block the position sends (a change starts a new cache entry)
    results: np.ndarray    # results[j]: the result of the call made on position j + 1
    call: float
    system: float
    user: float
    answer: float
    mode: str              # the caching mode used

    @classmethod
    def of(cls, rows: dict) -> Sizes:
        prm = rows["params"]
        overhead = prm["overhead"][0, 0] * (rows["visible"][0] > 0)
        return cls(overhead + rows["prefix"][0] + prm["system"][0, 0], rows["loaded"][0],
                   rows["prefix"][0] + rows["loaded"][0], rows["visible"][0], overhead, rows["block"][0],
                   rows["results"][0], float(prm["call"][0, 0]), float(prm["system"][0, 0]),
                   float(prm["user"][0, 0]), float(rows["money"]["answer"][0, 0]), str(rows["modes"][0]))


def step_factor(profile: tuple, r: int) -> float:
    """The growth multiplier of the step into a thread's request r (0-based; r >= 1): spans 1, 2-3, 4-7, ..."""
    if not profile or r < 1:
        return 1.0
    return profile[min(r.bit_length() - 1, len(profile) - 1)]


def path(th: Thread, sz: Sizes, sc: Scenario) -> list[dict]:
    """The thread's requests, and the compaction requests the model adds, in order: each one's input,
    history, output, the context cached before it (`prev`), at a new prompt the context the turn before
    started from (`base`: its first request's, or the first after a compaction in it; else None), whether
    it sends the previous request's tools block, and whether a compaction just replaced its history
    (`after`)."""
    if len(th) and int(th.step.max()) > len(sz.fixed):
        raise InputError(f"thread {th.name!r}: a turn of {int(th.step.max())} requests is longer than the "
                         f"scenario's {len(sz.fixed)}")
    out: list[dict] = []
    hist = within = 0.0
    prev = prev_block = last = start = turn_base = None
    for r in range(len(th)):
        k = int(th.step[r])
        # the results of the calls the previous request made: calls_per_step of them in a scenario, as many
        # as it made in a trace
        calls = 1.0 if th.calls is None else float(th.calls[r - 1]) / sc.calls_per_step
        grow = sz.call + sz.results[k - 2] * step_factor(sc.growth_by_step, r) * calls if k > 1 else 0.0
        within = within + grow if k > 1 else 0.0
        base = sz.fixed[k - 1] + sz.loaded[k - 1]
        inp = base + sz.user + hist + within
        same = r > 0 and sz.block[k - 1] == prev_block
        after = False
        if sc.compaction_at is not None and r > 0 and inp > sc.compaction_at:
            if sc.compaction_output_tokens is not None:  # the request that writes the summary
                out.append({"r": r, "kind": "compaction", "input": inp, "history": hist + within, "after": False,
                            "output": float(sc.compaction_output_tokens), "prev": prev, "same": same,
                            "base": None})
                prev = inp
            hist = sc.compaction_tokens - sz.user - within
            inp = base + sc.compaction_tokens
            after = True
        a = float(th.answer[r])
        out.append({"r": r, "kind": "answer" if a == 1 else "call" if a == 0 else "call or answer", "input": inp,
                    "history": hist + within, "after": after, "output": a * sz.answer + (1 - a) * sz.call,
                    "prev": prev, "same": same, "base": turn_base if k == 1 and not after else None})
        if k == 1 or after:
            start = inp  # the context this turn's reasoning follows
        prev, prev_block = inp, sz.block[k - 1]
        if r == len(th) - 1 or th.turn[r + 1] != th.turn[r]:  # the turn ends: its history stays
            f = th.weight[r] / th.weight[r - 1] if k > 1 and th.weight[r] < th.weight[r - 1] else 1.0
            hist += within - (1 - f) * grow + sz.answer + sz.user
            prev = inp if f == 1 else (1 - f) * last + f * inp  # the expected last context of the turn
            turn_base = start
        last = inp
    return out
