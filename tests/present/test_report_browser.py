"""A hostile registry in a real headless Chromium: nothing from the data runs, its text shows literally.

The payloads try every way out of an HTML text node, attribute, comment, textarea and the inline
<script> that carries the charts' JSON. Each would set window.__pwned or open a dialog if it ran.
"""

from __future__ import annotations

import contextlib
import json
import tempfile

import pytest
from _browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, ROOT, needs_chromium

import toolsurvey as ts
from toolsurvey.core.registry import Registry, Server, Tool
from toolsurvey.present.charts.labels import LABEL_CHARS

pytestmark = needs_chromium

PAYLOADS = [
    "</script><script>window.__pwned='script-close';alert(1)</script>",
    "<img src=x onerror=\"window.__pwned='onerror';alert(2)\">",
    "<a href=\"javascript:window.__pwned='js-url'\" id=\"pwnlink\">click me</a>",
    "</textarea><svg onload=\"window.__pwned='svg';alert(3)\"></svg>",
    "--><script>window.__pwned='comment';alert(4)</script><!--",
    "<body onload=\"window.__pwned='body'\"><iframe srcdoc=\"<script>parent.__pwned='iframe'</script>\">",
    "\"'><style>*{display:none}</style><script>window.__pwned='attr';</script>",
]
SCHEMA = {"type": "object", "properties": {"q": {"type": "string", "description": PAYLOADS[2]}}}


def hostile_registry() -> Registry:
    tools = []
    for i, p in enumerate(PAYLOADS):
        # Long descriptions put every payload tool among the largest, so it reaches the tables and the chart.
        tools.append(Tool(f"t{i}{p}", f"{p} " + "padding words " * 60, SCHEMA, server="evil"))
    tools.append(Tool("plain_tool", "A well-behaved tool.", {"type": "object"}, server="good"))
    reg = Registry.from_tools(tools)
    evil = reg.servers["evil"]
    reg.servers["evil"] = Server(evil.name, evil.tools, instructions=PAYLOADS[0])
    reg.sources.append("/tmp/" + PAYLOADS[4] + ".json")
    return reg


@pytest.fixture(scope="module")
def page_report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    reg = hostile_registry()
    # A usage log that calls the hostile tools (and one unknown hostile name), for the results section.
    calls = [{"tool": t.name, "server": t.server, "session": f"s{i}", "response_tokens": 100 + i,
              "arguments": {"q": PAYLOADS[i % len(PAYLOADS)]}} for i, t in enumerate(reg.tools[:-1])]
    calls.append({"tool": PAYLOADS[1], "response_tokens": 5})
    log = folder / "usage.jsonl"
    log.write_text("\n".join(json.dumps(c) for c in calls) + "\n")
    out = folder / "hostile.html"
    ts.report(reg, usage=log, top=len(PAYLOADS) + 1, title=PAYLOADS[0], eval=hostile_eval(reg)).save(out)
    return out


def hostile_eval(reg: Registry):
    """An eval whose answers took each hostile tool for the next and skipped the last, under hostile
    query ids: the tool names and ids reach "What the model picks"."""
    from toolsurvey.measuring.selection.request import Estimate
    from toolsurvey.measuring.selection.result import SelectionEval

    keys = [t.key for t in reg]
    recs = [{"id": f"q{i}{p}", "gold": [keys[i]], "outcome": "wrong", "expected": keys[i], "called": keys[i + 1],
             "tools_offered": keys, "repeat": 0, "args_valid": None, "args_match": None}
            for i, p in enumerate(PAYLOADS[:-1])]
    recs.append({"id": PAYLOADS[-1], "gold": [keys[-2]], "outcome": "skip", "expected": keys[-2], "called": "none",
                 "tools_offered": keys, "repeat": 0, "args_valid": None, "args_match": None})
    return SelectionEval(PAYLOADS[3], "chat", None, recs, Estimate(len(recs), 0, 0, 0, 0, None, None, None, ""),
                         order=keys)


def test_nothing_from_the_data_runs_and_the_text_shows_literally(page_report):
    from playwright.sync_api import sync_playwright

    dialogs, errors = [], []
    with sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
        ctx = p.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, headless=True,
                                                   args=CHROMIUM_ARGS, viewport={"width": 1280, "height": 900})
        try:
            # Record content-security-policy violations: a blocked injected script would show up here.
            ctx.add_init_script("window.__violations = [];"
                                "document.addEventListener('securitypolicyviolation',"
                                " e => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));")
            page = ctx.new_page()
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(page_report.as_uri())
            page.wait_for_selector(".plot .main-svg", timeout=30_000)  # our own chart script did run
            page.wait_for_timeout(500)
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "report_hostile_first_screen.png"))

            assert page.evaluate("window.__pwned") is None
            assert dialogs == [] and errors == []
            assert page.evaluate("window.__violations") == []
            # No element from the data: no injected tags, links or event-handler attributes.
            # (plotly draws its own svg, links and styles inside the chart containers; those are ours.)
            assert page.evaluate("""() => [...document.querySelectorAll(
                'img, iframe, svg, a, textarea, style, script, #pwnlink')].filter(
                el => !el.closest('.plot') && !el.closest('head') && el.parentElement !== document.body
                ).map(el => el.outerHTML.slice(0, 80))""") == []
            assert page.evaluate("""() => [...document.querySelectorAll('*')].flatMap(
                el => [...el.attributes].filter(a => a.name.startsWith('on')).map(a => a.name))""") == []
            text = page.inner_text("body")
            for payload in PAYLOADS:
                assert payload in text, f"payload not shown literally: {payload!r}"
            picks = page.inner_text("section#picks")  # tool names, query ids and the model's name
            assert all(p in picks for p in PAYLOADS), picks[:300]
            assert page.title() == PAYLOADS[0]
            # The chart draws the hostile tool names literally too (plotly reads <a>, <b> as markup),
            # cut to LABEL_CHARS on the axis (the hover keeps them whole).
            drawn = page.inner_text("#surface .plot")  # the chart of the largest tools
            for i, payload in enumerate(PAYLOADS):
                label = f"evil/t{i}{payload}"
                shown = label if len(label) <= LABEL_CHARS else label[:LABEL_CHARS - 1] + "…"
                assert shown in drawn, f"chart label not literal: {shown!r}"
        finally:
            ctx.close()


@pytest.fixture(scope="module")
def sample_report(tmp_path_factory):
    """The bundled sample's report (README's main command), and the HTML file it was saved to."""
    out = tmp_path_factory.mktemp("sample") / "report.html"
    rep = ts.report(ts.load(ROOT / "data" / "registries" / "ops_assistant.json"),
                    scenario=ROOT / "data" / "scenarios" / "ops_assistant.toml",
                    usage=ROOT / "data" / "usage" / "ops_assistant.jsonl")
    rep.save(out)
    return rep, out


@contextlib.contextmanager
def opened(p, url: str):
    """A page of headless Chromium at `url`, and the list its page errors are collected into."""
    with tempfile.TemporaryDirectory() as profile:
        ctx = p.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, headless=True,
                                                   args=CHROMIUM_ARGS, viewport={"width": 1280, "height": 900})
        try:
            page = ctx.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(url)
            yield page, errors
        finally:
            ctx.close()


def test_sample_report_first_screen(sample_report):
    """The bundled sample's report as a reader first sees it (screenshot kept in tests/artifacts)."""
    from playwright.sync_api import sync_playwright

    rep, out = sample_report
    with sync_playwright() as p, opened(p, out.as_uri()) as (page, errors):
        page.wait_for_selector(".plot .main-svg", timeout=30_000)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "report_sample_first_screen.png"))
        assert errors == []
        first = page.inner_text("section#summary")
        assert "Executive summary" in first
        # The first screen shows the monthly cost and the levers, as the browser renders them.
        assert page.inner_text("[data-figure=cost_per_month]") == rep.headlines["cost_per_month"].shown
        assert page.is_visible("[data-figure=cost_per_month]") and "saves about" in first


# Per chart on the page: drawn (an SVG with traces), its title and its x-axis title, from plotly.js' own data.
CHARTS = """() => [...document.querySelectorAll('.plot')].map(gd => ({
  drawn: !!gd.querySelector('svg.main-svg') && gd.data && gd.data.length > 0
         && gd.querySelectorAll('.main-svg .trace, .main-svg .slice, .main-svg .hm').length > 0,
  title: gd.layout && gd.layout.title && gd.layout.title.text || '',
  x: gd.layout && gd.layout.xaxis && gd.layout.xaxis.title && gd.layout.xaxis.title.text || ''}))"""


# The computed display of each chart's toolbar (plotly's modebar), as the browser lays it out.
MODEBARS = "() => [...document.querySelectorAll('.plot .modebar-container')].map(e => getComputedStyle(e).display)"


def _words(text: str) -> str:
    return " ".join(text.split())


def test_sample_report_draws_every_chart_and_prints_without_cutting_one(sample_report, tmp_path):
    """Every chart draws; printed to PDF (A4, the report's print stylesheet) each chart's title and
    its x-axis title land on the same page, so no chart is cut across two pages, and no chart's
    toolbar shows. The first two pages are kept as pictures in tests/artifacts."""
    import shutil
    import subprocess

    from playwright.sync_api import sync_playwright
    from pypdf import PdfReader

    out = sample_report[1]
    pdf = tmp_path / "report.pdf"
    with sync_playwright() as p, opened(p, out.as_uri()) as (page, errors):
        page.wait_for_function("() => [...document.querySelectorAll('.plot')].every("
                               "gd => gd.querySelector('.main-svg'))", timeout=60_000)
        charts = page.evaluate(CHARTS)
        bars = page.evaluate(MODEBARS)
        page.emulate_media(media="print")
        printed_bars = page.evaluate(MODEBARS)
        page.pdf(path=str(pdf), prefer_css_page_size=True, print_background=True)
    assert errors == []
    assert len(charts) >= 6 and all(c["drawn"] for c in charts), charts
    # plotly's toolbar is on every chart on screen, and hidden on the printed page
    assert len(bars) == len(charts) and all(display != "none" for display in bars), bars
    assert printed_bars == ["none"] * len(charts), printed_bars
    titles = {"Where each request's input tokens go", "Cost per task attempt (USD) against requests per task",
              "The plan, stage by stage: cost per month (USD)", "Result tokens in the usage log"}
    assert all(any(c["title"].startswith(t) for c in charts) for t in titles), [c["title"] for c in charts]

    pages = [_words(pg.extract_text()) for pg in PdfReader(pdf).pages]
    assert len(pages) > 2
    for c in charts:
        title, x = _words(c["title"]), _words(c["x"])
        on = [i for i, text in enumerate(pages) if title in text]
        assert len(on) == 1, f"chart {title!r} found on pages {on}"
        assert x in pages[on[0]], f"chart {title!r}: its x axis ({x!r}) is not on its page {on[0] + 1}"

    if shutil.which("pdftoppm"):
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        subprocess.run(["pdftoppm", "-png", "-r", "80", "-f", "1", "-l", "2", str(pdf),
                        str(ARTIFACTS / "report_page")], check=True)
        assert (ARTIFACTS / "report_page-1.png").exists() and (ARTIFACTS / "report_page-2.png").exists()
