"""`toolsurvey footprint`: tables, CSV and JSON that agree with tiktoken; exit 2 and one line on bad input."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pandas as pd
import pytest
from _oracle import compact, ntok
from conftest import DATA, ROOT

OPS = DATA / "registries" / "ops_assistant.json"
DESK = DATA / "registries" / "support_desk.json"


def _expected(path):
    """Per-tool tokens and the request total (tools + instructions), worked out with tiktoken."""
    data = json.loads(path.read_text(encoding="utf-8"))
    per_tool = {}
    total = 0
    for s, entry in data["servers"].items():
        for t in entry["tools"]:
            n = ntok(compact({"name": t["name"], "description": t["description"], "inputSchema": t["inputSchema"]}))
            per_tool[(s, t["name"])] = n
            total += n
        if entry.get("instructions"):
            total += ntok(entry["instructions"])
    return per_tool, total


def test_default_table_has_a_header_with_the_request_total(cli):
    code, out, err = cli("footprint", DESK, "--wide")
    _, total = _expected(DESK)
    assert code == 0
    assert out.splitlines()[0] == f"12 tools in 2 servers: {total:,} tokens per request (json rendering, o200k_base)"
    assert "desk_search_tickets" in out and "(instructions)" in out
    assert err == ""


def test_csv_rows_match_tiktoken(cli):
    code, out, _ = cli("footprint", OPS, "--format", "csv")
    per_tool, total = _expected(OPS)
    df = pd.read_csv(io.StringIO(out))
    tools = df[df["kind"] == "tool"]
    assert {(r.server, r.tool): r.tokens for r in tools.itertuples()} == per_tool
    assert df["tokens"].sum() == total
    parts = [c for c in df.columns if c not in ("server", "tool", "kind", "tokens")]
    assert (df[parts].sum(axis=1) == df["tokens"]).all()


def test_by_server_json(cli):
    code, out, _ = cli("footprint", OPS, "--by", "server", "--format", "json")
    rows = json.loads(out)
    per_tool, total = _expected(OPS)
    assert code == 0
    assert sum(r["tokens"] for r in rows) == total
    assert {r["server"]: r["tools"] for r in rows} == {"catalog": 9, "metrics": 9, "deploys": 10, "incidents": 10,
                                                       "tickets": 9, "comms": 5, "legacy_admin": 11}
    legacy = next(r for r in rows if r["server"] == "legacy_admin")
    assert legacy["tokens"] == sum(n for (s, _), n in per_tool.items() if s == "legacy_admin")


def test_top_and_by_part(cli):
    code, out, _ = cli("footprint", OPS, "--top", "3", "--format", "csv")
    df = pd.read_csv(io.StringIO(out))
    per_tool, _ = _expected(OPS)
    assert df["tokens"].tolist() == sorted(per_tool.values(), reverse=True)[:3]
    code, out, _ = cli("footprint", OPS, "--by", "part", "--format", "json", "--render", "anthropic")
    parts = {r["part"]: r["tokens"] for r in json.loads(out)}
    assert parts["overhead"] == 346
    assert parts["param_descriptions"] > 0 and parts["description"] > 0


def test_openai_rendering_names_the_model_family(cli):
    code, out, _ = cli("footprint", DESK, "--render", "openai")
    assert code == 0
    assert "(openai rendering, o200k_base, gpt-4o)" in out.splitlines()[0]
    assert "constants of the gpt-4o family" in " ".join(out.split())  # the header wraps at 100 columns


def test_output_file_is_written_whole(cli, tmp_path):
    target = tmp_path / "footprint.csv"
    code, out, err = cli("footprint", DESK, "--format", "csv", "-o", target)
    assert code == 0 and out == "" and f"wrote {target}" in err
    assert pd.read_csv(target)["tokens"].sum() == _expected(DESK)[1]
    assert [p.name for p in tmp_path.iterdir()] == ["footprint.csv"]


def test_warnings_go_to_stderr(cli):
    code, out, err = cli("footprint", OPS, "--by", "server")
    assert code == 0
    assert "warning:" in err and "U+200B" in err
    assert "warning" not in out


def _run(*args):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "toolsurvey", "footprint", *map(str, args)],
                          capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)


@pytest.mark.parametrize("content,message", [
    ('{"tools": [', "invalid JSON at line 1"),
    ('{"openapi": "3.1.0"}', "not a tool list in any known format"),
    ('', "an empty file"),
])
def test_bad_input_exits_2_with_one_line_and_no_traceback(tmp_path, content, message):
    p = tmp_path / "bad.json"
    p.write_text(content)
    out = _run(p)
    assert out.returncode == 2
    assert out.stdout == ""
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("toolsurvey footprint: error: ") and message in lines[0]


def test_missing_file_unknown_model_and_bad_option_exit_2(tmp_path):
    for args, message in [((tmp_path / "nope.json",), "no such file"),
                          ((DESK, "--render", "openai", "--model", "llama"), "no OpenAI constants"),
                          ((DESK, "--encoding", "p99k"), "unknown encoding 'p99k'"),
                          ((DESK, "--render", "xml"), "invalid choice: 'xml'"),
                          ((DESK, "--top", "-2"), "expected a whole number 1 or more, found '-2'")]:
        out = _run(*args)
        assert out.returncode == 2, args
        assert "Traceback" not in out.stderr and message in out.stderr, (args, out.stderr)


def test_subprocess_prints_odd_unicode_without_crashing(tmp_path):
    p = tmp_path / "odd.json"
    p.write_text('[{"name": "half_\\ud800", "description": "\\u202eevil \\ud83d\\ude80", "inputSchema": {"type": "object"}}]')
    out = _run(p)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert "1 tool in 1 server:" in out.stdout


def test_text_table_formats_shares_counts_and_text():
    from toolsurvey.cli._common import render_table

    df = pd.DataFrame({"server": ["alpha", "b"], "tokens": [12345, 7], "share": [0.5, 0.125],
                       "note_share": ["n/a", "x"]})
    lines = render_table(df).splitlines()
    assert lines[0].split() == ["server", "tokens", "share", "note_share"]
    assert lines[2].split() == ["alpha", "12,345", "50.0%", "n/a"]
    assert lines[3].split() == ["b", "7", "12.5%", "x"]


@pytest.mark.parametrize("path", [OPS, ROOT / "tests" / "data" / "real_tools" / "atlassian.json"])
@pytest.mark.parametrize("render", ["json", "openai", "anthropic"])
def test_plain_output_equals_the_library_table_rendered_with_pandas(cli, path, render):
    """The command computes rows without pandas; each format matches `ts.footprint`'s DataFrame
    written out by pandas (to_csv, to_json) and the DataFrame table renderer."""
    import toolsurvey as ts
    from toolsurvey.cli._common import render_table
    from toolsurvey.core.writing import spreadsheet_safe
    from toolsurvey.measuring.parts import PARTS

    table = pd.DataFrame(ts.footprint(ts.load(path), render=render))
    cols = ["server", "tool", "kind", "tokens", *PARTS]
    code, out, _ = cli("footprint", path, "--render", render, "--format", "csv")
    assert code == 0 and out == spreadsheet_safe(table[cols]).to_csv(index=False)
    code, out, _ = cli("footprint", path, "--render", render, "--format", "json")
    assert code == 0 and json.loads(out) == json.loads(table[cols].to_json(orient="records"))
    code, out, _ = cli("footprint", path, "--render", render, "--top", "5")
    largest = table.sort_values("tokens", ascending=False, kind="stable").head(5)
    shown = ["server", "tool", "tokens", *[c for c in PARTS if table[c].any()]]
    assert code == 0 and out.split("\n\n", 1)[1] == render_table(largest[shown].reset_index(drop=True)) + "\n"
