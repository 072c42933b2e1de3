"""report: figures in the HTML checked against the library's functions called separately,
tiktoken as an oracle on a small registry, Markdown/CSV variants, offline HTML and atomic writes."""

import io
import json
import re

import pandas as pd
import pytest
from bs4 import BeautifulSoup
from conftest import compact

import toolsurvey as ts
from toolsurvey import reporting
from toolsurvey.measure import by_server, request_total
from toolsurvey.registry import Registry, Tool
from toolsurvey.tokens import get_encoding

ENC = get_encoding("o200k_base")  # tiktoken's own Encoding, loaded from the shipped file
SCHEMA = {"type": "object", "properties": {"q": {"type": "string", "description": "search words"}}}
TOOLS = [Tool("search_docs", "Search the documentation by keyword.", SCHEMA, server="docs"),
         Tool("get_page", "Fetch one documentation page by its id.", SCHEMA, server="docs"),
         Tool("restart_service", "Restart a service; not idempotent.", SCHEMA, server="ops")]
REG = Registry.from_tools(TOOLS)


def oracle_tokens(t):
    return len(ENC.encode(compact({"name": t.name, "description": t.description, "inputSchema": t.input_schema})))


def number(text):
    return float(re.sub(r"[^0-9.\-]", "", text))


def soup_of(rep):
    return BeautifulSoup(rep.to_html(), "html.parser")


def table_rows(soup, name):
    t = soup.find("table", attrs={"data-table": name})
    head = [th.get_text() for th in t.thead.find_all("th")]
    return head, [[td.get_text() for td in tr.find_all("td")] for tr in t.tbody.find_all("tr")]


@pytest.fixture(scope="module")
def small():
    return ts.report(REG)


def test_headline_tokens_equal_tiktoken_on_each_tool(small):
    soup = soup_of(small)
    shown = soup.find(attrs={"data-figure": "tool_tokens_per_request"}).get_text()
    assert number(shown) == sum(oracle_tokens(t) for t in TOOLS)
    assert number(soup.find(attrs={"data-figure": "tools"}).get_text()) == 3


def test_server_table_matches_by_server(small):
    head, rows = table_rows(soup_of(small), "servers")
    want = by_server(ts.footprint(REG))
    assert [r[0] for r in rows] == list(want["server"])
    tokens_col = head.index("Tokens per request")
    assert [number(r[tokens_col]) for r in rows] == list(want["tokens"])
    docs = oracle_tokens(TOOLS[0]) + oracle_tokens(TOOLS[1])
    assert number(rows[0][tokens_col]) == docs


def test_executive_summary_comes_first(small):
    soup = soup_of(small)
    assert [s["id"] for s in soup.find_all("section")][0] == "summary"
    assert soup.find_all("section")[-1]["id"] == "method"


def test_html_is_self_contained_and_only_our_scripts_may_run(small):
    html = small.to_html()
    soup = BeautifulSoup(html, "html.parser")
    assert not soup.find_all(src=True) and not soup.find_all("link")  # nothing fetched
    scripts = soup.find_all("script")
    markup = re.sub(r"<script>.*?</script>", "", html, flags=re.S)  # plotly.js mentions URLs in strings
    assert not re.search(r"""(src|href)\s*=\s*["']?https?:""", markup)
    assert "plotly.js" in scripts[0].string[:400]  # the bundle itself, inline
    csp = soup.find("meta", attrs={"http-equiv": "Content-Security-Policy"})["content"]
    assert "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0]
    assert csp.count("'sha256-") == len(scripts)


def test_sample_registry_figures_match_footprint():
    path = "data/registries/ops_assistant.json"
    pytest.importorskip("toolsurvey.formats")
    try:
        reg = ts.load(path)
    except ts.InputError:
        pytest.skip("sample registry not present")
    soup = soup_of(ts.report(reg))
    shown = soup.find(attrs={"data-figure": "tool_tokens_per_request"}).get_text()
    assert number(shown) == request_total(ts.footprint(reg))
    head, rows = table_rows(soup, "top_tools")
    col = head.index("Tokens per request")
    biggest = ts.footprint(reg).query("kind == 'tool'").nlargest(1, "tokens").iloc[0]
    assert rows[0][1] == biggest["tool"] and number(rows[0][col]) == biggest["tokens"]


def test_markdown_and_csv_carry_the_same_figures(small):
    text = small.to_markdown()
    total = sum(oracle_tokens(t) for t in TOOLS)
    assert f"| {total:,} |" in text
    assert text.index("## Executive summary") < text.index("## Method and assumptions")
    files = small.to_csv()
    summary = pd.read_csv(io.StringIO(files["summary.csv"])).set_index("figure")
    assert summary.loc["tool_tokens_per_request", "value"] == total
    servers = pd.read_csv(io.StringIO(files["servers.csv"]))
    assert list(servers["tokens"]) == list(by_server(ts.footprint(REG))["tokens"])


def test_markdown_escapes_third_party_text():
    evil = Registry.from_tools([Tool("x|y<b>`z`", "desc", SCHEMA, server="s*|*")])
    text = ts.report(evil).to_markdown()
    rows = [line for line in text.splitlines() if line.startswith("| s")]
    assert rows and all(re.sub(r"\\.", "", r).count("|") == r.count("|") - r.count("\\|") for r in rows)
    assert "<b>" not in text and "x\\|y&lt;b&gt;\\`z\\`" in text


@pytest.mark.parametrize("fmt,name", [("html", "r.html"), ("markdown", "r.md")])
def test_failed_render_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch, small, fmt, name):
    out = tmp_path / name
    out.write_text("previous report")

    def boom(*a, **k):
        raise RuntimeError("disk full halfway")

    monkeypatch.setattr(reporting, "_render_html" if fmt == "html" else "_render_markdown", boom)
    with pytest.raises(RuntimeError):
        small.save(out)
    assert out.read_text() == "previous report"
    assert [p.name for p in tmp_path.iterdir()] == [name]


def test_failed_write_leaves_the_old_file(tmp_path, monkeypatch, small):
    out = tmp_path / "r.html"
    out.write_text("previous report")
    import toolsurvey._io as io_mod

    real_fdopen = io_mod.os.fdopen

    class Breaks:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *a):
            self.f.close()

        def write(self, data):
            self.f.write(data[: len(data) // 2])  # half the page reaches the disk, then it fails
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(io_mod.os, "fdopen", lambda *a, **k: Breaks(real_fdopen(*a, **k)))
    with pytest.raises(ts.InputError, match="No space left"):
        small.save(out)
    assert out.read_text() == "previous report"
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]


def test_csv_failure_writes_no_file(tmp_path, monkeypatch, small):
    def boom(self):
        raise RuntimeError("broken table")

    monkeypatch.setattr(reporting.Report, "to_csv", boom)
    with pytest.raises(RuntimeError):
        small.save(tmp_path / "tables", format="csv")
    assert not (tmp_path / "tables").exists()


def test_cli_prints_summary_and_where_the_report_is(cli, write_json, tmp_path):
    path = write_json([t.to_mcp() for t in TOOLS])
    out_file = tmp_path / "report.html"
    code, out, err = cli("report", path, "-o", out_file)
    assert code == 0 and out_file.exists()
    total = sum(oracle_tokens(t) for t in TOOLS)
    assert f"{total:,}" in out and str(out_file.resolve()) in out
    code, out, err = cli("report", path, "--format", "markdown")
    assert code == 0 and out.startswith("# ") and f"{total:,}" in err
    code, out, err = cli("report", path, "-o", tmp_path / "t.csv")
    assert code == 0 and {p.name for p in (tmp_path / "t").iterdir()} >= {"summary.csv", "servers.csv"}


def test_cli_bad_input(cli, tmp_path):
    (tmp_path / "bad.json").write_text(json.dumps({"nothing": "here"}))
    code, out, err = cli("report", tmp_path / "bad.json", "-o", tmp_path / "r.html")
    assert code == 2 and "bad.json" in err and not (tmp_path / "r.html").exists()
    code, out, err = cli("report", tmp_path / "bad.json", "-o", tmp_path / "no" / "such" / "dir" / "r.html")
    assert code == 2
