"""Hostile names and descriptions never reach a terminal, a Markdown viewer or a chart as live markup."""

import json
import sys
import uuid

import pandas as pd
import pytest
from conftest import TESTS

import toolsurvey as ts
from toolsurvey.present.charts.catalog import description_lengths
from toolsurvey.present.charts.footprint import footprint_treemap, pareto, parts_bar
from toolsurvey.present.charts.labels import LABEL_CHARS
from toolsurvey.present.charts.responses import field_costs

# Clear the screen, retitle the window, plant a hyperlink, overwrite the line, reverse the text.
HOSTILE = "evil\x1b[2J\x1b]0;pwned\x07\x1b]8;;http://x.example/\x07link\x1b]8;;\x07\rok\b\u202emoc.elpmaxe"
RAW = ("\x1b", "\x07", "\r", "\b", "\u202e")
LINK = '<a href="http://x.example/">Click to fix</a>'
ESCAPE = [sys.executable, str(TESTS / "servers" / "escape.py")]


def _no_raw(text: str) -> None:
    found = [repr(c) for c in RAW if c in text]
    assert not found, f"raw control characters reached the output: {found}"


@pytest.fixture
def hostile(write_json):
    tools = [{"name": HOSTILE, "description": f"Short. {HOSTILE}", "inputSchema": {"type": "object"}},
             {"name": "lookup", "description": "Look up one customer by id, returning name and email.",
              "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}}}]
    return write_json({"tools": tools})


@pytest.mark.parametrize("argv", [
    ["footprint"], ["footprint", "--by", "server"], ["audit"], ["audit", "--format", "markdown"],
    ["check", "--max-tool-tokens", "1"], ["plan"], ["plan", "--format", "markdown"],
    ["report", "--format", "markdown"],
])
def test_text_columns_escape_control_and_bidi_characters(cli, hostile, argv):
    code, out, err = cli(argv[0], hostile, *argv[1:])
    assert code in (0, 1), err
    _no_raw(out)
    _no_raw(err)
    assert "\\x1b" in out + err


def test_a_carriage_return_cannot_hide_an_audit_row(cli, hostile):
    _, out, _ = cli("audit", hostile)  # fits 100 columns: the name is cut after its escapes begin
    _no_raw(out)
    _, out, _ = cli("audit", hostile, "--wide")  # every character, the carriage return as \x0d
    rows = [line for line in out.splitlines() if "evil" in line]
    assert rows and all("\\x0d" in r for r in rows)


def test_discover_summary_escapes_server_info_name(cli):
    code, out, err = cli("discover", "--", *ESCAPE, "names", uuid.uuid4().hex)
    assert code == 0, err
    _no_raw(out)
    _no_raw(err)
    assert "evil\\x1b[2J" in out


def test_diff_markdown_neither_mentions_nor_links(cli, write_json):
    old = write_json({"tools": [{"name": "a", "description": "x", "inputSchema": {"type": "object"}}]}, "old.json")
    new = write_json({"tools": [{"name": "a", "description": "x", "inputSchema": {"type": "object"}},
                                {"name": "ping_@user_#1", "description": "cc @octocat, fixes #1 \x1b[2J",
                                 "inputSchema": {"type": "object"}}]}, "new.json")
    code, out, _ = cli("diff", old, new, "--format", "markdown")
    assert code in (0, 1)
    _no_raw(out)
    assert "@user" not in out and "#1" not in out
    assert "@&#8203;user" in out and "#&#8203;1" in out


def _strings(fig) -> str:
    return json.dumps(fig.to_plotly_json(), default=str)


def _registry(name: str, description: str = "Look up something.") -> ts.Registry:
    return ts.load({"tools": [{"name": name, "description": description, "inputSchema": {"type": "object"}},
                              {"name": "other", "description": "Another tool.", "inputSchema": {"type": "object"}}]})


@pytest.mark.parametrize("chart", [parts_bar, footprint_treemap, pareto,
                                   description_lengths])
def test_charts_show_markup_in_names_as_text(chart):
    fig = chart(ts.footprint(_registry(LINK)))
    text = _strings(fig)
    assert "<a href" not in text and "&lt;a href" in text


def test_a_5000_character_name_is_cut_in_labels_and_whole_in_hover():
    name = "n" * 5000
    fig = parts_bar(ts.footprint(_registry(name)))
    ticks = fig.layout.yaxis.ticktext
    assert max(len(t) for t in ticks) <= LABEL_CHARS
    assert any(y.endswith(name) for y in fig.data[0].y)  # the category (and its hover) keeps all of it
    tiles = footprint_treemap(ts.footprint(_registry(name)))
    assert max(len(label) for label in tiles.data[0].labels) <= LABEL_CHARS
    assert any(i.endswith(name) for i in tiles.data[0].ids)


def test_response_field_names_are_escaped_in_the_explorer(tmp_path):
    pytest.importorskip("ipywidgets")
    from toolsurvey.present.widgets import response_explorer

    folder = tmp_path / "search"
    folder.mkdir()
    (folder / "r1.json").write_text(json.dumps({'<span style="font-size:80px">big</span>': "x" * 50, "id": 1}))
    box = response_explorer(folder)
    text = json.dumps([f.to_plotly_json() for f in box.children if hasattr(f, "to_plotly_json")], default=str)
    text += _strings(field_costs(ts.rank_fields(ts.field_costs(*ts.read_payloads(folder)[0]))))
    assert "<span style" not in text and "&lt;span style" in text


def test_hostile_file_names_reach_no_terminal_raw(cli, tmp_path):
    folder = tmp_path / "evil\x1b]0;pwned\x07"
    folder.mkdir()
    path = folder / "tools\x1b[2J.json"
    path.write_text(json.dumps({"tools": [{"name": "a", "description": "Look up one thing by id.",
                                           "inputSchema": {"type": "object"}}]}))
    code, out, err = cli("report", path, "-o", tmp_path / "r.html")
    assert code == 0, err
    _no_raw(out + err)
    code, out, err = cli("footprint", folder / "missing\x1b[2J.json")
    assert code == 2 and "\\x1b[2J" in err
    _no_raw(out + err)


def test_rich_markup_in_names_prints_literally(cli, write_json):
    """The text tables are drawn with rich: a name holding rich markup shows as written (and a stray
    closing tag, which rich's markup parser rejects, cannot crash the table)."""
    name = "[bold red]x[/bold red][link=https://evil.example]y[/link][/]"
    reg = write_json({"tools": [{"name": name, "description": "Look up one customer by id.",
                                 "inputSchema": {"type": "object"}}]})
    for argv in (["footprint", reg, "--wide"], ["audit", reg, "--wide"]):
        code, out, _ = cli(*argv)
        assert code == 0 and name in out, out


def test_trace_charts_show_markup_in_tool_and_session_names_as_text():
    from toolsurvey.present.charts.traces import measured_vs_simulated, tool_results

    totals = pd.DataFrame({"server": ["evil"], "tool": [LINK], "calls": [1], "errors": [0], "repeated": [0],
                           "result_tokens": [10]})
    text = _strings(tool_results(totals))
    assert "<a href" not in text and "&lt;a href" in text
    billed = pd.DataFrame({"session": [LINK, "(total)"], "billed": [1.0, 1.0], "simulated": [1.0, 1.0]})
    text = _strings(measured_vs_simulated(billed))
    assert "<a href" not in text and "&lt;a href" in text
