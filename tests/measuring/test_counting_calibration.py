"""Calibration files: exact vs offline ratios by part, applied to footprint tables; the CLI; no key leaks."""

import dataclasses
import json

import pandas as pd
import pytest
from fake_providers import KEY, FakeProviders, Reply, _encoding, compact, route_clients, tokens

from toolsurvey.core.registry import Registry, Tool
from toolsurvey.errors import InputError, ToolsurveyError
from toolsurvey.measuring.calibration import (
    Calibration,
    apply_calibration,
    calibrate,
    load_calibration,
    save_calibration,
)
from toolsurvey.measuring.footprint import footprint

TARGET = "anthropic:claude-sonnet-4-5"
ENV = {"ANTHROPIC_API_KEY": KEY}


def registry():
    return Registry.from_tools([
        Tool("get_weather", "Current weather for a city, in degrees Celsius.",
             {"type": "object", "properties": {"city": {"type": "string", "description": "City name, e.g. Paris"}},
              "required": ["city"]}),
        Tool("search_tickets", "Search support tickets by free text and by status.",
             {"type": "object", "properties": {
                 "query": {"type": "string", "description": "Words that must appear in the ticket"},
                 "status": {"type": "string", "enum": ["open", "closed"], "description": "Ticket status"}}}),
        Tool("close_ticket", "Close a ticket.", {"type": "object", "properties": {"id": {"type": "integer"}}}),
    ])


def anthropic_json(t, description=True, param_descriptions=True, schema=True):
    """One tool as Anthropic's `tools` entry, with parts removed, written out independently."""
    def strip(s):
        if isinstance(s, dict):
            return {k: strip(v) for k, v in s.items() if not (k == "description" and isinstance(v, str))}
        return [strip(v) for v in s] if isinstance(s, list) else s
    out = {"name": t.name}
    if description:
        out["description"] = t.description
    sch = t.input_schema if param_descriptions else strip(t.input_schema)
    out["input_schema"] = sch if schema else {"type": "object"}
    return out


@pytest.fixture
def fake(monkeypatch):
    with FakeProviders() as f:
        route_clients(monkeypatch, f)
        yield f


@pytest.fixture
def cal(fake, tmp_path):
    return calibrate(registry(), TARGET, base=fake.url, cache_dir=tmp_path / "cache", environ=ENV)


def test_part_ratios_match_both_tokenizers_worked_out_independently(cal, fake):
    tools = registry().tools
    o200k = _encoding("o200k_base")

    def exact(**kw):  # the fake counts the tools array in cl100k_base
        return tokens(compact([anthropic_json(t, **kw) for t in tools]), "anthropic")

    def offline(**kw):  # toolsurvey's anthropic rendering: each tool's compact JSON in o200k_base
        return sum(len(o200k.encode_ordinary(compact(anthropic_json(t, **kw)))) for t in tools)

    p = cal.parts
    assert p["description"]["exact"] == exact() - exact(description=False)
    assert p["description"]["offline"] == offline() - offline(description=False)
    assert p["param_descriptions"]["exact"] == exact() - exact(param_descriptions=False)
    assert p["schema"]["exact"] == exact(param_descriptions=False) - exact(param_descriptions=False, schema=False)
    assert p["schema"]["offline"] == offline(param_descriptions=False) - offline(param_descriptions=False, schema=False)
    for entry in p.values():
        if entry["offline"]:
            assert entry["ratio"] == round(entry["exact"] / entry["offline"], 4)
    assert cal.tools["offline"] == offline()
    assert (cal.provider, cal.model, cal.encoding, cal.render) == ("anthropic", "claude-sonnet-4-5",
                                                                                "o200k_base", "anthropic")
    assert cal.requests["sent"] == 1 + 1 + 3 + 3  # baseline, all tools, each alone, three part-less variants
    assert fake.invalid == []


def test_file_round_trip_and_apply(cal, tmp_path):
    path = tmp_path / "cal.json"
    save_calibration(cal, str(path))
    loaded = load_calibration(str(path))
    assert loaded.file == str(path) and "_file" not in json.loads(path.read_text())
    table = footprint(registry(), render="anthropic", model="claude-sonnet-4-5")
    out = apply_calibration(table, loaded)
    r = {k: (v.get("ratio") or cal.tools["ratio"]) for k, v in cal.parts.items()}
    for col, key in [("description", "description"), ("schema", "schema"), ("name", "rest"), ("structure", "rest"),
                     ("param_descriptions", "param_descriptions")]:
        assert out[col].tolist() == [int(round(v * r[key])) for v in table[col]]
    assert out.loc[out["kind"] == "overhead", "tokens"].item() == cal.overhead["exact"]
    parts = [c for c in table.columns if c not in ("server", "tool", "kind", "tokens")]
    assert (out[parts].sum(axis=1) == out["tokens"]).all()
    assert out.attrs["calibrated"]["file"] == str(path) and out.attrs["calibrated"]["date"] == cal.date
    assert f"calibrated to anthropic:claude-sonnet-4-5 with {path} ({cal.date}" in out.attrs["method"]
    assert table.attrs.get("calibrated") is None  # the input table is left alone


def test_apply_by_hand():
    table = pd.DataFrame([{"server": "s", "tool": "t", "kind": "tool", "name": 3, "description": 10, "schema": 20,
                           "param_descriptions": 7, "annotations": 0, "output_schema": 0, "other": 0,
                           "structure": 2, "instructions": 0, "overhead": 0, "tokens": 42}])
    table.attrs.update(encoding="o200k_base", render="json", method="m")
    cal = Calibration(provider="p", model="m", date="2026-11-29", encoding="o200k_base", render="anthropic",
                      parts={"description": {"ratio": 1.25}, "schema": {"ratio": 0.9},
                             "param_descriptions": {"ratio": None}, "rest": {"ratio": 2.0}},
                      tools={"ratio": 1.1}, overhead={"exact": 300})
    # a cache key (simulate's measured tables): equal only when every figure is
    same, other = dataclasses.replace(cal), dataclasses.replace(cal, tools={"ratio": 1.2})
    assert cal == same and hash(cal) == hash(same) and cal != other and len({cal, same, other}) == 2
    out = apply_calibration(table, cal)
    # 10 x 1.25, 20 x 0.9, 7 x 1.1 (no ratio: the overall one), name and structure x 2
    assert out.iloc[0][["description", "schema", "param_descriptions", "name", "structure"]].tolist() == [12, 18, 8, 6, 4]
    assert out["tokens"].item() == 48
    assert "made with the anthropic rendering, this table uses json" in out.attrs["method"]
    with pytest.raises(InputError, match="already calibrated"):
        apply_calibration(out, cal)
    table.attrs["encoding"] = "cl100k_base"
    with pytest.raises(InputError, match="made against o200k_base counts, but this table uses cl100k_base"):
        apply_calibration(table, cal)


def test_the_dict_a_calibration_was_still_works_and_warns(cal, tmp_path):
    """Before 0.7 a calibration was a dict with an injected "_file": reading it, and passing a dict,
    keep working for one release with a DeprecationWarning naming the Calibration attribute."""
    path = tmp_path / "cal.json"
    save_calibration(cal, str(path))
    loaded = load_calibration(str(path))
    with pytest.warns(DeprecationWarning, match=r"calibration\['_file'\] is deprecated.*use the Calibration attribute"):
        assert loaded["_file"] == str(path)
    with pytest.warns(DeprecationWarning, match="calibration.get"):
        assert loaded.get("date") == cal.date and loaded.get("nothing", 7) == 7
    as_dict = {**json.loads(path.read_text()), "_file": str(path)}
    table = footprint(registry(), render="anthropic", model="claude-sonnet-4-5")
    with pytest.warns(DeprecationWarning, match="a calibration dict is deprecated.*use a Calibration"):
        old = apply_calibration(table, as_dict)
    pd.testing.assert_frame_equal(old, apply_calibration(table, loaded))
    assert old.attrs == apply_calibration(table, loaded).attrs


@pytest.mark.parametrize("content, expected", [
    ("not json", "invalid JSON"),
    ('{"hello": 1}', "not a toolsurvey calibration file"),
    ('{"toolsurvey_calibration": 1, "provider": "a", "model": "b", "date": "d", "encoding": "e", "render": "r", '
     '"parts": {"schema": {"ratio": -2}}, "tools": {"ratio": 1}}', r"parts.schema.ratio should be a positive number"),
    ('{"toolsurvey_calibration": 1, "provider": "a", "model": "b", "date": "d", "encoding": "e", "render": "r", '
     '"parts": {}}', "tools.ratio"),
    ('{"toolsurvey_calibration": 1, "model": "b"}', "'provider' should be a string"),
])
def test_bad_calibration_files(content, expected, tmp_path):
    p = tmp_path / "cal.json"
    p.write_text(content)
    with pytest.raises(InputError, match=expected):
        load_calibration(str(p))


def test_an_exact_table_takes_no_calibration(cal, fake, tmp_path):
    from toolsurvey.measuring.counting.exact import exact_footprint

    exact = exact_footprint(registry(), TARGET, base=fake.url, cache_dir=tmp_path / "cache", environ=ENV)
    with pytest.raises(InputError, match="already has exact counts"):
        apply_calibration(exact, dataclasses.replace(cal, file="x"))


# --- the command line ------------------------------------------------------------------------------------


def write_registry(tmp_path):
    p = tmp_path / "tools.json"
    p.write_text(json.dumps([anthropic_json(t) for t in registry().tools]))
    return p


def test_cli_calibrate_then_footprint_with_it(cli, fake, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("TOOLSURVEY_CACHE_DIR", str(tmp_path / "cache"))
    tools, cal = write_registry(tmp_path), tmp_path / "cal.json"
    code, out, err = cli("calibrate", tools, "--provider", TARGET, "--base-url", fake.url, "-o", cal)
    assert code == 0, err
    assert "requests: 8 sent, 0 from the cache" in " ".join(out.split()) and "description" in out and f"wrote {cal}" in err
    date = json.loads(cal.read_text())["date"]
    code, out, err = cli("footprint", tools, "--render", "anthropic", "--calibration", cal)
    assert code == 0, err
    assert f"calibrated to anthropic:claude-sonnet-4-5 with {cal} ({date}" in " ".join(out.split())  # header wraps
    code, out, err = cli("footprint", tools, "--calibration", cal, "--encoding", "cl100k_base")
    assert code == 2 and "made against o200k_base counts" in err


def test_cli_footprint_count_with_dry_run_then_run_then_cached(cli, fake, tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("TOOLSURVEY_CACHE_DIR", str(tmp_path / "cache"))
    tools = write_registry(tmp_path)
    code, out, err = cli("footprint", tools, "--count-with", TARGET, "--base-url", fake.url, "--dry-run")
    assert code == 0 and "would send 5 of 5 requests" in out and "ANTHROPIC_API_KEY is needed" in out
    assert fake.requests == []
    code, out, err = cli("footprint", tools, "--count-with", TARGET, "--base-url", fake.url)
    assert code == 2 and "set ANTHROPIC_API_KEY in the environment" in err and "Traceback" not in err
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    code, out, err = cli("footprint", tools, "--count-with", TARGET, "--base-url", fake.url, "--format", "json")
    assert code == 0, err
    rows = json.loads(out)
    assert sum(r["tokens"] for r in rows) > 0 and {r["tool"] for r in rows} >= {"get_weather", "close_ticket"}
    code, out, err = cli("footprint", tools, "--count-with", TARGET, "--base-url", fake.url)
    assert code == 0 and "5 requests: 0 sent, 5 from the cache" in " ".join(out.split()) and len(fake.requests) == 5
    code, out, err = cli("footprint", tools, "--count-with", TARGET, "--calibration", "x.json")
    assert code == 2 and "need no --calibration" in err
    code, out, err = cli("footprint", tools, "--dry-run")
    assert code == 2 and "--dry-run applies to --count-with" in err
    code, out, err = cli("footprint", tools, "--count-with", TARGET, "--timeout", "0")
    assert code == 2 and "expected --timeout > 0" in err


def test_the_key_appears_nowhere(cli, tmp_path, monkeypatch):
    """Every output of every path: stdout, stderr, exception text, cache files, calibration file."""
    seen = []
    tools, cal = write_registry(tmp_path), tmp_path / "cal.json"
    monkeypatch.setenv("TOOLSURVEY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TOOLSURVEY_DEBUG", "")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with FakeProviders() as fake:
        route_clients(monkeypatch, fake)
        u = fake.url
        runs = [
            ("calibrate", tools, "--provider", TARGET, "--base-url", u, "-o", cal),
            ("footprint", tools, "--count-with", TARGET, "--base-url", u, "--no-cache"),
            ("footprint", tools, "--count-with", TARGET, "--base-url", u, "--dry-run"),
            ("footprint", tools, "--count-with", "anthropic:no-such-model", "--base-url", u),
            ("footprint", tools, "--count-with", TARGET, "--base-url", u + "/html", "--no-cache"),
        ]
        for argv in runs:
            seen += list(cli(*argv)[1:])
        # the server echoes the key it was sent in every error, as some real ones partly do
        echo = {"type": "error", "error": {"type": "api_error", "message": f"upstream failed for key {KEY}"}}
        fake.fail_next(*[Reply(500, echo)] * 2)
        seen += list(cli("footprint", tools, "--count-with", TARGET, "--base-url", u, "--no-cache",
                         "--concurrency", "1", "--retries", "1", "--timeout", "5")[1:])
        fake.fail_next(Reply(429, echo, headers={"retry-after": "0"}))
        seen += list(cli("footprint", tools, "--count-with", TARGET, "--base-url", u, "--no-cache")[1:])
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY + "x")  # a refused key, echoed back by the server
        seen += list(cli("footprint", tools, "--count-with", TARGET, "--base-url", u, "--no-cache")[1:])
        from toolsurvey.measuring.counting.exact import exact_footprint
        for key in (KEY + "x", KEY):
            env = {"ANTHROPIC_API_KEY": key}
            said = {"type": "error", "error": {"type": "api_error", "message": f"upstream failed for key {key}"}}
            fake.fail_next(*[Reply(500, said)] * 2)
            try:
                exact_footprint(registry(), TARGET, base=u, use_cache=False, environ=env, retries=1,
                                concurrency=1, sleep=lambda s: None)
            except ToolsurveyError as e:
                seen += [str(e), repr(e), repr(e.__context__), repr(e.__cause__)]
    assert any("upstream failed for key ***" in s for s in seen)  # the echo was there, redacted
    assert any("gave up" in s for s in seen) and any("refused the key" in s for s in seen)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len([p for p in files if "counts" in p.parts]) >= 8
    seen += [p.read_text("utf-8") for p in files]
    for text in seen:
        assert KEY not in text and "TOPSECRET" not in text
