"""Usage logs: reading CSV/JSONL, broken lines, unknown tools, timestamps, windows, repeats, sizes."""

import json
import subprocess
import sys

import pandas as pd
import pytest
from conftest import DATA, ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

import toolsurvey as ts
from toolsurvey.core.registry import Registry, Tool
from toolsurvey.core.tokens import get_encoding
from toolsurvey.errors import InputError
from toolsurvey.inputs.sources import load_usage
from toolsurvey.inputs.usage import repeated, summarize, unused

REG = Registry.from_tools([Tool("list_alerts", server="metrics"), Tool("query_logs", server="metrics"),
                           Tool("restart_service", server="deploys"), Tool("get_user", server="comms"),
                           Tool("get_user", server="legacy")])


def jsonl(tmp_path, lines, name="log.jsonl"):
    p = tmp_path / name
    p.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n", "utf-8")
    return p


def test_broken_lines_are_reported_with_numbers_and_the_rest_read(tmp_path):
    p = jsonl(tmp_path, [{"tool": "list_alerts", "timestamp": "2026-11-01T10:00:00Z"},
                         '{"tool": "query_logs", ',
                         '[1, 2]',
                         {"timestamp": "2026-11-01T10:00:05Z"},
                         {"tool": "query_logs", "timestamp": "2026-11-01T10:00:09Z"}])
    u = load_usage(p)
    assert list(u.calls["tool"]) == ["list_alerts", "query_logs"]
    assert list(u.calls["line"]) == [1, 5]
    assert [m.split(":")[0] for m in u.warnings] == ["line 2", "line 3", "line 4"]


def test_unknown_and_ambiguous_tools_are_reported(tmp_path):
    p = jsonl(tmp_path, [{"tool": "list_alerts"}, {"tool": "drop_database"}, {"tool": "drop_database"},
                         {"tool": "get_user"}, {"tool": "get_user", "server": "comms"}])
    s = summarize(load_usage(p), REG, window_days=None)
    assert s.set_index("tool").loc["drop_database", "status"] == "unknown"
    problems = " | ".join(s.attrs["warnings"])
    assert s.attrs["problems"] is s.attrs["warnings"]  # the name before 0.7, kept for one release
    assert "2 call(s) to drop_database, which the registry does not have" in problems
    assert "1 call(s) to get_user give no server, and comms, legacy all define it" in problems
    by_key = s.set_index(["server", "tool"])["calls"]
    assert by_key[("comms", "get_user")] == 1 and by_key[("legacy", "get_user")] == 0


def test_never_and_rarely_called():
    calls = [{"tool": "list_alerts"}] * 5 + [{"tool": "query_logs"}] * 2
    s = summarize(load_usage(calls), REG, window_days=None, rare=3)
    status = dict(zip(s["tool"] + "@" + s["server"], s["status"], strict=True))
    assert status == {"list_alerts@metrics": "called", "query_logs@metrics": "rarely called",
                      "restart_service@deploys": "never called", "get_user@comms": "never called",
                      "get_user@legacy": "never called"}
    assert sorted(unused(s)) == [("comms", "get_user"), ("deploys", "restart_service"), ("legacy", "get_user")]


def test_missing_timestamps_count_in_totals_but_not_in_a_window():
    calls = [{"tool": "list_alerts", "timestamp": "2026-11-20T00:00:00Z"},
             {"tool": "list_alerts", "timestamp": "2026-06-01T00:00:00Z"},  # older than 90 days
             {"tool": "list_alerts"}]
    u = load_usage(calls)
    assert "1 of 3 calls have no timestamp" in u.warnings[-1]
    assert summarize(u, REG, window_days=None).set_index("tool").loc["list_alerts", "calls"] == 3
    s = summarize(u, REG, window_days=90)
    assert s.set_index("tool").loc["list_alerts", "calls"] == 1
    assert any("without a timestamp left out" in m for m in s.attrs["warnings"])


def test_no_timestamps_at_all_ignores_the_window():
    s = summarize(load_usage([{"tool": "list_alerts"}] * 2), REG, window_days=30)
    assert s.set_index("tool").loc["list_alerts", "calls"] == 2
    assert any("window is ignored" in m for m in s.attrs["warnings"])


def test_window_end_and_unix_seconds():
    calls = [{"tool": "list_alerts", "timestamp": 1_700_000_000 + d * 86400} for d in range(10)]
    s = summarize(load_usage(calls), REG, window_days=3, end=pd.Timestamp(1_700_000_000 + 9 * 86400, unit="s"))
    assert s.set_index("tool").loc["list_alerts", "calls"] == 3  # days 7, 8, 9 (the window is (end-3d, end])


def test_repeated_identical_calls_by_session_ignore_key_order():
    calls = pd.DataFrame({
        "session": ["a", "a", "a", "b", "a"],
        "server": [None] * 5,
        "tool": ["q", "q", "q", "q", "r"],
        "arguments": ['{"x":1,"y":2}', '{"x":1,"y":2}', '{"x":2}', '{"x":1,"y":2}', '{"x":1,"y":2}'],
    })
    assert list(repeated(calls)) == [False, True, False, False, False]
    # through the loader, with keys in a different order
    u = load_usage([{"tool": "q", "session": "a", "arguments": {"x": 1, "y": 2}},
                    {"tool": "q", "session": "a", "arguments": {"y": 2, "x": 1}}])
    assert list(repeated(u.calls)) == [False, True]


def test_arguments_nested_thousands_deep_are_canonical_like_any_other():
    """Arguments as JSON text 5,000 levels deep (Python's json gives up near 1,000): read, written as
    sorted compact JSON, and the same call written with spaces and another key order is a repeat."""
    n = 5000
    deep = '{"b":' * n + "[]" + "}" * n
    spaced = '{ "b" : ' * n + "[ ]" + " }" * n
    u = load_usage([{"tool": "q", "session": "a", "arguments": deep},
                    {"tool": "q", "session": "a", "arguments": spaced},
                    {"tool": "q", "session": "a", "arguments": {"z": 1, "a": '{"b":' * 2}}])
    assert list(u.calls["arguments"]) == [deep, deep, '{"a":"{\\"b\\":{\\"b\\":","z":1}']
    assert list(repeated(u.calls)) == [False, True, False] and u.warnings[-1].startswith("3 of 3 calls have no")


def test_without_sessions_a_repeat_is_the_same_call_twice_in_a_row():
    u = load_usage([{"tool": "q", "arguments": "{}"}, {"tool": "q", "arguments": {}}, {"tool": "r"}, {"tool": "q"}])
    assert list(repeated(u.calls)) == [False, True, False, False]


def test_response_tokens_from_text_json_count_or_bytes():
    enc = get_encoding("o200k_base")
    body = {"alerts": [{"name": "HighErrorRate", "state": "firing"}]}
    u = load_usage([{"tool": "a", "response": "plain text result"}, {"tool": "a", "response": body},
                    {"tool": "a", "response_tokens": 42}, {"tool": "a", "response_bytes": 401}, {"tool": "a"}],
                   bytes_per_token=4.0)
    t = u.calls["response_tokens"].tolist()
    assert t[0] == len(enc.encode_ordinary("plain text result"))
    assert t[1] == len(enc.encode_ordinary(json.dumps(body, separators=(",", ":"))))
    assert t[2] == 42 and t[3] == 101 and pd.isna(t[4])
    assert u.calls["tokens_estimated"].tolist() == [False, False, False, True, False]


def test_outcomes():
    u = load_usage([{"tool": "a", "outcome": "error"}, {"tool": "a", "is_error": True}, {"tool": "a", "status": "ok"},
                    {"tool": "a"}])
    assert u.calls["outcome"].tolist() == ["error", "error", "ok", "ok"]


def test_csv_log(tmp_path):
    p = tmp_path / "log.csv"
    p.write_text('timestamp,tool,server,arguments,response_tokens,outcome\n'
                 '2026-11-01T10:00:00Z,list_alerts,metrics,"{""state"": ""firing""}",120,ok\n'
                 '2026-11-01T10:00:30Z,list_alerts,metrics,"{""state"": ""firing""}",5,error\n'
                 ',query_logs,,,,\n', "utf-8")
    u = load_usage(p)
    assert u.calls["tool"].tolist() == ["list_alerts", "list_alerts", "query_logs"]
    assert u.calls["line"].tolist() == [2, 3, 4]
    assert u.calls["arguments"][0] == '{"state":"firing"}'
    assert list(repeated(u.calls)) == [False, True, False]


def test_bad_files(tmp_path):
    with pytest.raises(InputError, match="no such usage log"):
        load_usage(tmp_path / "missing.jsonl")
    with pytest.raises(InputError, match="no tool calls found"):
        load_usage(jsonl(tmp_path, ["", "not json"]))
    (tmp_path / "bin.jsonl").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(InputError, match="not UTF-8"):
        load_usage(tmp_path / "bin.jsonl")
    with pytest.raises(InputError, match="positive"):
        summarize(load_usage([{"tool": "a"}]), window_days=-1)


def test_empty_registry_reports_every_call_as_unknown():
    s = summarize(load_usage([{"tool": "a"}]), Registry(), window_days=None)
    assert s["status"].tolist() == ["unknown"]


# --- the bundled sample log ----------------------------------------------------------------------


def test_sample_log_is_what_the_generator_writes(tmp_path):
    out = tmp_path / "again.jsonl"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_sample_usage.py"), "--out", str(out)],
                   check=True, capture_output=True)
    assert out.read_bytes() == (DATA / "usage" / "ops_assistant.jsonl").read_bytes()


def test_sample_log_shape():
    reg = ts.load(DATA / "registries" / "ops_assistant.json")
    u = load_usage(DATA / "usage" / "ops_assistant.jsonl")
    assert u.warnings == []
    s = summarize(u, reg)
    counts = s["status"].value_counts().to_dict()
    assert counts["never called"] == 19 and counts.get("unknown", 0) == 0
    assert 0.05 < s.attrs["repeated_share"] < 0.25
    # the repeat share is the plain count of calls equal to an earlier one in the same task
    raw = [json.loads(x) for x in (DATA / "usage" / "ops_assistant.jsonl").read_text().splitlines()]
    seen, repeats = set(), 0
    for r in raw:
        key = (r["session"], r["server"], r["tool"], json.dumps(r["arguments"], sort_keys=True))
        repeats += key in seen
        seen.add(key)
    assert s["repeated"].sum() == repeats


# --- properties against a plain loop ---------------------------------------------------------------

CALL = st.fixed_dictionaries({
    "tool": st.sampled_from(["list_alerts", "query_logs", "restart_service", "nope"]),
    "session": st.sampled_from(["a", "b", None]),
    "arguments": st.sampled_from([{}, {"x": 1}, {"x": 2}]),
    "timestamp": st.one_of(st.none(), st.integers(1_700_000_000, 1_700_000_000 + 200 * 86400)),
})


@settings(max_examples=60, deadline=None)
@given(st.lists(CALL, min_size=1, max_size=40))
def test_repeats_and_counts_match_a_plain_loop(records):
    records = [{k: v for k, v in r.items() if v is not None} for r in records]
    u = load_usage(records)
    with_sessions = any("session" in r for r in records)
    expected, seen, prev = [], set(), None
    for r in records:
        key = (r["tool"], json.dumps(r["arguments"], sort_keys=True))
        if with_sessions:
            k = (r.get("session", "(no session)"), *key)
            expected.append(k in seen)
            seen.add(k)
        else:
            expected.append(key == prev)
            prev = key
    assert list(repeated(u.calls)) == expected
    s = summarize(u, REG, window_days=None)
    assert s["calls"].sum() == len(records)
    assert (s["repeated"] <= s["calls"]).all() and s["repeated"].sum() == sum(expected)
    known = {"list_alerts", "query_logs", "restart_service"}
    assert set(s.loc[s["status"] == "unknown", "tool"]) == ({"nope"} & {r["tool"] for r in records})
    assert s.loc[s["tool"].isin(known), "calls"].sum() == sum(r["tool"] in known for r in records)
