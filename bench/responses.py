"""Time per-field attribution over 10,000 tool results of about 5 KB against raw json.loads + tiktoken.

Run: .venv/bin/python bench/responses.py [N_PAYLOADS]
Target (issue 4): `field_costs` within 3x of parsing and encoding the same payloads with no attribution.
Both sides start from the same JSON texts and include parsing; the best of three runs counts, and the
ratio is taken against the faster of two baselines (tiktoken's list and numpy outputs).
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import toolsurvey as ts  # noqa: E402
from toolsurvey.core.tokens import get_encoding  # noqa: E402

WORDS = ("cache request timeout parser config release build test error memory thread worker socket retry "
         "upload schema index query token session plugin handler render layout docs version").split()


def payload(rng: random.Random, i: int) -> dict:
    """A REST-style record of about 5 KB: ids, URLs, a user, labels, counters and a text body."""
    base = f"https://api.example.com/repos/org{i % 50}/proj/issues/{i}"
    user = {k: f"https://api.example.com/users/u{i % 97}/{k}" for k in
            ("url", "html_url", "followers_url", "repos_url", "events_url", "orgs_url")}
    return {
        "id": 10**9 + i, "number": i, "url": base, "html_url": base.replace("api.", ""),
        "comments_url": base + "/comments", "events_url": base + "/events",
        "title": " ".join(rng.choice(WORDS) for _ in range(8)),
        "user": {"login": f"u{i % 97}", "id": i % 97, "type": "User", "site_admin": False, **user},
        "labels": [{"id": j, "name": rng.choice(WORDS), "color": f"{rng.getrandbits(24):06x}",
                    "description": " ".join(rng.choice(WORDS) for _ in range(5))} for j in range(rng.randint(0, 3))],
        "state": rng.choice(["open", "closed"]), "comments": rng.randint(0, 30),
        "reactions": {k: rng.randint(0, 5) for k in ("+1", "-1", "laugh", "heart", "rocket", "eyes")},
        "created_at": "2026-10-01T10:00:00Z", "updated_at": "2026-10-08T12:00:00Z", "closed_at": None,
        "body": " ".join(rng.choice(WORDS) for _ in range(rng.randint(450, 650))),
    }


def _best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main(n: int = 10_000) -> None:
    rng = random.Random(4)
    texts = [json.dumps(payload(rng, i), separators=(",", ":")) for i in range(n)]
    enc = get_encoding("o200k_base")
    ts.field_costs(ts.Payload.from_text(texts[0], "t"))  # warm up: encoding and token byte lengths

    def raw_list():  # the everyday call: a Python list of token ids
        total = 0
        for t in texts:
            json.loads(t)
            total += len(enc.encode_ordinary(t))
        return total

    def raw_numpy():  # tiktoken's fastest path, a numpy buffer (what toolsurvey uses internally)
        total = 0
        for t in texts:
            json.loads(t)
            total += len(enc.encode_to_numpy(t, allowed_special=set(), disallowed_special=()))
        return total

    def attributed():
        return ts.field_costs([ts.Payload.from_text(t, "list_issues") for t in texts])

    expected = raw_list()
    assert raw_numpy() == expected
    costs = attributed()
    assert costs["own"].sum() == expected, "attribution must add up to the raw count"
    t_list, t_numpy, t_attr = _best(raw_list), _best(raw_numpy), _best(attributed)
    baseline = min(t_list, t_numpy)
    size = sum(map(len, texts)) / n
    print(f"{n:,} payloads, mean {size:,.0f} bytes, {expected:,} tokens, {len(costs):,} paths")
    print(f"json.loads + tiktoken encode_ordinary: {t_list:.2f} s")
    print(f"json.loads + tiktoken encode_to_numpy: {t_numpy:.2f} s")
    print(f"field_costs (exact attribution):       {t_attr:.2f} s")
    print(f"ratio: {t_attr / baseline:.2f}x against the faster baseline (target <= 3x); "
          f"{t_attr / t_list:.2f}x against encode_ordinary")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
