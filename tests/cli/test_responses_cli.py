"""`toolsurvey responses`: every view and format, bad input, and a URL (fetched through an
httpx.MockTransport: the real request and reading code, no socket)."""

import json

import pandas as pd
import pytest
from _mock_http import route_httpx, serve
from _oracle import compact, ntok
from conftest import DATA

import toolsurvey as ts

ISSUES = DATA / "responses" / "list_issues"
SECRET = "Bearer s3cr3t-t0ken-value"
API = "https://api.test"
ITEMS = [{"id": i, "name": f"item {i}", "owner": {"login": "x", "url": "https://x"}} for i in range(5)]


def test_by_tool_json_output_and_the_trimmed_ratio(cli):
    code, out, err = cli("responses", ISSUES, "--keep", "number,title,state,labels[].name,comments,updated_at",
                         "--format", "json")
    assert code == 0, err
    [row] = json.loads(out)
    assert row["tool"] == "list_issues" and row["payloads"] == 5
    assert row["ratio"] == pytest.approx(row["tokens"] / row["trimmed"])


def test_by_field_csv_lists_paths_with_shares(cli):
    code, out, _ = cli("responses", ISSUES, "--by", "field", "--format", "csv", "--depth", "2")
    assert code == 0
    header, *rows = out.strip().splitlines()
    assert header.startswith("tool,path,depth,tokens,own,share,present_share")
    paths = [r.split(",")[1] for r in rows]
    assert "[].body" in paths and "[].user.login" not in paths  # depth 3 is cut


def test_by_rank_marks_kept_fields_and_by_step_lists_the_strategies(cli):
    code, out, _ = cli("responses", ISSUES, "--by", "rank", "--keep", "number,labels[].name", "--format", "json")
    rows = {r["path"]: r for r in json.loads(out)}
    assert rows["[].number"]["keep"] == "kept" and rows["[].labels"]["keep"] == "part"
    assert rows["[].body"]["keep"] == "dropped"
    code, out, _ = cli("responses", ISSUES, "--by", "step", "--drop", "body", "--drop-empty", "--serialize", "csv")
    assert code == 0 and "drop body" in out and "drop empty" in out and "serialize csv" in out


def test_by_payload_table_with_broken_trace_lines_warns_on_stderr(cli, tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_text('{"tool":"a","result":{"x":1}}\nnot json\n')
    code, out, err = cli("responses", p, "--by", "payload")
    assert code == 0 and f"{p}:2: not JSON" in err
    assert "1 result from 1 tool:" in out


def test_bad_inputs_exit_2_with_one_line_and_no_traceback(cli, tmp_path):
    (tmp_path / "deep.json").write_text("[" * 10_000 + "]" * 10_000)
    code, out, err = cli("responses", tmp_path / "deep.json", "--keep", "a")
    assert code == 0 and "not trimmed" in err and "Traceback" not in err
    code, _, err = cli("responses", tmp_path / "missing.json")
    assert code == 2 and "no such file or folder" in err and "Traceback" not in err
    code, _, err = cli("responses", ISSUES, "--by", "step")
    assert code == 2 and "needs a trimming option" in err
    code, _, err = cli("responses", ISSUES, "--keep", "nosuchfield")
    assert code == 0 and "keep path(s) matched nothing in any result: nosuchfield" in err


@pytest.fixture
def sent(monkeypatch):
    """An API at API answering /api/items with ITEMS (404 elsewhere) through an httpx.MockTransport;
    the requests it received."""
    return route_httpx(monkeypatch, serve({"/api/items": json.dumps(ITEMS, indent=2).encode()}))


def test_url_is_fetched_with_headers_that_never_appear_in_any_output(cli, sent, tmp_path):
    url = f"{API}/api/items?access_token=abc123&page=2"
    for fmt in ("table", "csv", "json"):
        code, out, err = cli("responses", url, "--header", f"Authorization: {SECRET}", "--by", "payload",
                             "--format", fmt)
        assert code == 0, err
        assert SECRET not in out + err and "s3cr3t" not in out + err and "abc123" not in out + err
    assert sent[-1].headers["Authorization"] == SECRET  # it was sent
    payloads, _ = ts.read_payloads(url, headers=[f"Authorization: {SECRET}"])  # inputs/ fetches
    table = ts.measure_responses(payloads)
    assert table["tokens"][0] == ntok(compact(ITEMS)) and table["tool"][0] == "items"
    with pytest.warns(DeprecationWarning, match=r"measure_responses\(URL, headers=\.\.\., timeout=\.\.\.\) is "
                      r"deprecated.*use measure_responses\(read_payloads\(URL"):  # the old form still fetches
        old = ts.measure_responses(url, headers=[f"Authorization: {SECRET}"])
    pd.testing.assert_frame_equal(old, table)
    assert table["source"][0].endswith("/api/items?access_token=<redacted>&page=<redacted>")  # every query value
    code, _, err = cli("responses", f"{API}/missing?token=abc123", "--header", f"Authorization: {SECRET}")
    assert code == 2 and "HTTP 404" in err and "abc123" not in err and "s3cr3t" not in err
    code, _, err = cli("responses", url, "--header", "no colon s3cr3t")
    assert code == 2 and "Name: value" in err and "s3cr3t" not in err


def test_bad_trimming_options_fail_fast_with_exit_2(cli):
    code, _, err = cli("responses", ISSUES, "--truncate", "-1")
    assert code == 2 and "truncate needs a limit >= 0" in err
    code, _, err = cli("responses", ISSUES, "--max-items", "-3")
    assert code == 2 and "max_items must be >= 0" in err
    code, _, err = cli("responses", ISSUES, "--keep", "[]")
    assert code == 2 and "names no field" in err


def test_a_folder_is_searched_for_samples_not_docs(cli):
    code, out, err = cli("responses", DATA / "responses", "--by", "payload", "--format", "json")
    assert code == 0, err
    sources = [r["source"] for r in json.loads(out)]
    assert not any(s.endswith("README.md") for s in sources)
    assert sum(s.endswith(".json") for s in sources) == 5 and any(".jsonl:" in s for s in sources)


def test_keep_that_matches_nothing_in_a_result_is_reported_and_left_out_of_the_ratio(cli, tmp_path):
    folder = tmp_path / "list_issues"
    folder.mkdir()
    issues = [{"number": i, "title": f"issue {i}", "body": "steps to reproduce " * 40} for i in range(3)]
    (folder / "a.json").write_text(json.dumps(issues))
    (folder / "b.json").write_text(json.dumps({"error": {"message": "rate limited " * 30}}))
    code, out, err = cli("responses", folder, "--keep", "number,title", "--format", "json")
    assert code == 0
    kept = [{"number": i["number"], "title": i["title"]} for i in issues]
    [row] = json.loads(out)
    assert row["trimmed"] == ntok(compact(kept))
    assert row["ratio"] == pytest.approx(ntok(compact(issues)) / ntok(compact(kept)))  # b.json left out
    err = " ".join(err.split())  # warnings are wrapped to 100 columns
    assert "b.json: no --keep path matched anything in this result" in err and "a.json: no" not in err
    code, out, err = cli("responses", folder, "--keep", "number,title")
    header = " ".join(out.split())  # the header wraps at the table width
    assert f"{ntok(compact(issues)) / ntok(compact(kept)):.1f}x smaller" in header
    assert "1 of 2 matched nothing and are left out" in header


@pytest.mark.parametrize("keep", ["[[[[", "a..b", "labels[.name", "x]"])
def test_a_keep_path_that_cannot_parse_is_exit_2(cli, keep):
    code, out, err = cli("responses", ISSUES, "--keep", keep)
    assert code == 2 and "cannot parse path" in err and "Traceback" not in err and out == ""
