"""The real Claude Code transcripts in ../shared/data/traces, read whole and billed, against a sum
written here independently of the reader: every assistant line's usage, each field at its largest
per request id; a request seen only in a parent's progress lines counted once; 1-hour cache writes
at the 1-hour price; prices read straight from LiteLLM 1.110.2's file as shipped."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from conftest import ROOT, shared

from toolsurvey.cli import main
from toolsurvey.inputs.traces.load import load_traces

LITELLM = ROOT / "toolsurvey" / "assumptions" / "litellm_prices.json.gz"  # LiteLLM 1.110.2 (prices.toml)
FIELDS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")


def _requests(folder: Path) -> dict[str, tuple[str, dict[str, int]]]:
    """request id -> (model, the largest value of each usage field and of the 1-hour writes)."""
    own: dict[str, tuple[str, dict]] = {}
    relayed: dict[str, tuple[str, dict]] = {}
    for f in sorted(folder.rglob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            book, msg, rid = own, rec.get("message"), rec.get("requestId")
            if rec.get("type") == "progress" and (rec.get("data") or {}).get("type") == "agent_progress":
                inner = rec["data"].get("message") or {}
                if inner.get("type") != "assistant":
                    continue
                book, msg, rid = relayed, inner.get("message"), inner.get("requestId")
            elif rec.get("type") != "assistant":
                continue
            usage = (msg or {}).get("usage")
            if not usage:
                continue
            got = {k: int(usage.get(k) or 0) for k in FIELDS}
            got["1h"] = int((usage.get("cache_creation") or {}).get("ephemeral_1h_input_tokens") or 0)
            key = rid or msg["id"]
            if key in book:
                got = {k: max(v, book[key][1][k]) for k, v in got.items()}
            book[key] = (msg.get("model") or book.get(key, ("",))[0], got)
    return {**relayed, **own}  # a request a file has is counted from the file


def _bill(reqs) -> float:
    prices = json.loads(gzip.decompress(LITELLM.read_bytes()))
    total = 0.0
    for model, u in reqs.values():
        if not any(u[k] for k in FIELDS):
            continue  # "<synthetic>" messages: nothing billed
        p = prices.get(model) or prices[re.sub(r"-\d{8}$", "", model)]
        five = u["cache_creation_input_tokens"] - u["1h"]
        total += (u["input_tokens"] * p["input_cost_per_token"] + five * p["cache_creation_input_token_cost"]
                  + u["1h"] * p["cache_creation_input_token_cost_above_1hr"]
                  + u["cache_read_input_tokens"] * p["cache_read_input_token_cost"]
                  + u["output_tokens"] * p["output_cost_per_token"])
    return total


@pytest.mark.parametrize("name, files, requests, dollars", [
    ("irrlicht", 33, 448, 25.23),   # issue 24: Claude Code 2.1.76-2.1.104, files open with metadata lines
    ("spotter", 20, 904, 51.74),    # issue 24: 899 in files + 5 haiku requests only in progress lines
])
def test_real_transcripts_match_an_independent_sum(name, files, requests, dollars):
    folder = shared("traces", name)
    reqs = _requests(folder)
    tr = load_traces(folder)
    assert len(tr.files) == files and not tr.account.incomplete
    assert len(tr.requests) == len(reqs) == requests
    assert set(tr.requests["request_id"]) == set(reqs)
    for k, col in zip(FIELDS, ("input_tokens", "cache_write", "cache_read", "output_tokens"), strict=True):
        assert int(tr.requests[col].sum()) == sum(u[k] for _, u in reqs.values())
    assert int(tr.requests["cache_write_1h"].sum()) == sum(u["1h"] for _, u in reqs.values())
    assert float(tr.requests["cost"].sum()) == pytest.approx(_bill(reqs), rel=1e-9)
    assert round(float(tr.requests["cost"].sum()), 2) == dollars


def test_cli_reads_all_33_irrlicht_files(capsys):
    assert main(["traces", str(shared("traces", "irrlicht"))]) == 0
    out = capsys.readouterr().out
    assert "33 file(s) (33 claude-code)" in out and "448 request(s)" in out and "$25.2300" in out
    assert "INCOMPLETE" not in out


def test_spotter_json_has_the_totals_of_an_independent_sum(capsys):
    folder = shared("traces", "spotter")
    reqs = _requests(folder)
    assert main(["traces", str(folder), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    u = list(reqs.values())
    assert doc["totals"] == {
        "requests": 904,
        "input_tokens": sum(x["input_tokens"] for _, x in u),
        "cache_write_5m": sum(x["cache_creation_input_tokens"] - x["1h"] for _, x in u),
        "cache_write_1h": sum(x["1h"] for _, x in u),
        "cache_read": sum(x["cache_read_input_tokens"] for _, x in u),
        "output_tokens": sum(x["output_tokens"] for _, x in u),
        "cache_write": sum(x["cache_creation_input_tokens"] for _, x in u),
        "cost": pytest.approx(_bill(reqs), rel=1e-9)}
    assert len(doc["rows"]) == 9 and sum(r["requests"] for r in doc["rows"]) == 904
    assert doc["incomplete"] is False
