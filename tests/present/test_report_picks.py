"""The report's section "What the model picks" (report --eval FILE): every figure it prints equals the
eval's own, recounted here from the eval file by a second, plain implementation, and against the
counts planted in tests/_picks.py (written by hand); third-party text is escaped; without an eval
the section is absent and the method section says how to add it."""

from __future__ import annotations

import json
import warnings
from collections import Counter

import pytest
from _oracle import wilson
from _picks import REG, write_eval
from bs4 import BeautifulSoup

import toolsurvey as ts
from toolsurvey.cli import main

pytest.importorskip("openai")


def build(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ts.report(REG, **kw)


# --- a second implementation, from the file's records only -------------------------------------------

def records(path) -> list[dict]:
    text = path.read_text()
    try:
        rows = json.loads(text)["queries"]  # --format json
    except json.JSONDecodeError:  # --log: one record a line
        rows = [json.loads(x) for x in text.splitlines()]
    return [r for r in rows if r.get("repeat", 0) == 0]




def recount(path) -> dict:
    rows = records(path)
    good = sum(r["outcome"] in ("right", "no_call") for r in rows)
    cells = Counter((r["expected"], r["called"]) for r in rows
                    if r["expected"] != r["called"] and "none" not in (r["expected"], r["called"])
                    and r["called"] != "invalid")
    pairs = {}
    for (a, b), n in cells.items():
        pairs.setdefault(frozenset((a, b)), {})[(a, b)] = n
    skips = Counter(r["expected"] for r in rows if r["outcome"] == "skip")
    need = Counter(r["expected"] for r in rows if r["expected"] != "none")
    calls = [r for r in rows if r["gold"] and r["outcome"] in ("right", "wrong", "invalid")]
    return {"accuracy": (good, len(rows)), "pairs": pairs, "skips": skips, "need": need,
            "wrong": (sum(r["outcome"] != "right" for r in calls), len(calls))}


def pct(v: float) -> str:
    return f"{v:.1%}"


def test_every_figure_in_html_and_json_equals_the_eval_recounted(monkeypatch, tmp_path):
    out, log = write_eval(monkeypatch, tmp_path)
    for path in (out, log):
        rep = build(eval=path)
        want = recount(path)
        k, n = want["accuracy"]
        assert (k, n) == (3, 12)  # planted: p8, p10 right, p9 rightly no call
        lo, hi = wilson(k, n)
        assert (round(lo, 4), round(hi, 4)) == (0.0889, 0.5323)  # worked by hand: Wilson 95%, 3 of 12

        soup = BeautifulSoup(rep.to_html(), "html.parser")
        sec = soup.select_one("section#picks")
        assert sec.h2.get_text() == "What the model picks"
        assert sec.select_one("[data-figure=picks_accuracy]").get_text() == f"{pct(k / n)} [{pct(lo)}, {pct(hi)}]"
        assert "3 of 12 queries" in sec.get_text()

        rows = [[td.get_text() for td in tr.find_all("td")] for tr in sec.select("table[data-table=picks_confused] tbody tr")]
        assert rows == [
            ["metrics/query_metrics", "metrics/query_logs", "2", "1", "3", "p1, p2, <b>p3</b>"],
            ["metrics/get_active_alerts", "metrics/list_alerts", "1", "1", "2", "p12, p11"],
            ["tickets/close_ticket", "tickets/update_ticket", "1", "0", "1", "p4"]]
        for tool, other, there, back, total, _ in rows:  # the recount agrees, both ways
            cell = want["pairs"][frozenset((tool, other))]
            assert (cell.get((tool, other), 0), cell.get((other, tool), 0)) == (int(there), int(back))
            assert int(total) == sum(cell.values())
        assert len(rows) == len(want["pairs"])

        skipped = [[td.get_text() for td in tr.find_all("td")] for tr in sec.select("table[data-table=picks_skipped] tbody tr")]
        assert skipped == [["incidents/page_oncall", "2", "2", "100.0%", "p5, p6"],
                           ["deploys/restart_service", "1", "1", "100.0%", "p7"]]
        assert {t: int(s) for t, s, *_ in skipped} == dict(want["skips"])
        assert {t: int(n) for t, _, n, *_ in skipped} == {t: want["need"][t] for t, *_ in skipped}

        curve = [[td.get_text() for td in tr.find_all("td")] for tr in sec.select("table[data-table=picks_curve] tbody tr")]
        wrong, calls = want["wrong"]
        assert (wrong, calls) == (6, 8)  # p1-p4, p11, p12 wrong; p8, p10 right
        assert curve[1][0] == "this eval: wrong calls 6 of 8 calls made" and curve[1][2] == pct(wrong / calls)
        run = ts.simulate(ts.load(REG))  # the default curve, read at the same tools visible
        assert curve[0][0].startswith("the default curve: " + run.assumptions["accuracy_curve"]["source"][:40])
        assert curve[0][2:] == [pct(run.summary["wrong_rate"]), pct(run.summary["success"])]

        doc = json.loads(rep.to_json())
        fig = next(h for h in doc["headlines"] if h["key"] == "picks_accuracy")
        assert fig["value"] == k / n
        tables = doc["tables"]
        assert [(r["tool"], r["taken_for"], r["times"], r["times_back"], r["both_ways"])
                for r in tables["picks_confused"]["rows"]] == [(a, b, int(x), int(y), int(z)) for a, b, x, y, z, _ in rows]
        assert [(r["tool"], r["skipped"], r["needed"]) for r in tables["picks_skipped"]["rows"]] == \
            [(t, want["skips"][t], want["need"][t]) for t in ("incidents/page_oncall", "deploys/restart_service")]
        assert tables["picks_curve"]["rows"][1]["wrong_rate"] == wrong / calls
        assert "picks" in [s["key"] for s in doc["sections"]]


def test_markdown_and_csv_carry_the_section_escaped(monkeypatch, tmp_path):
    out, _ = write_eval(monkeypatch, tmp_path)
    rep = build(eval=out)
    md = rep.to_markdown()
    assert "## What the model picks" in md and "25.0% \\[8.9%, 53.2%\\]" in md
    assert "<b>p3</b>" not in md and "&lt;b&gt;p3&lt;/b&gt;" in md  # a query id is third-party text
    csv = rep.to_csv()
    assert {"picks_confused.csv", "picks_skipped.csv", "picks_curve.csv"} <= set(csv)
    assert "metrics/query_metrics,metrics/query_logs,2,1,3" in csv["picks_confused.csv"]


def test_a_measured_curve_given_is_the_one_cited(monkeypatch, tmp_path):
    out, _ = write_eval(monkeypatch, tmp_path)
    curve = tmp_path / "curve.toml"
    curve.write_text('source = "measured: local-test-model on your registry, 12 queries, 2026-12-06"\n'
                     "[[points]]\nvisible = 10\nwrong = 0.1\nsuccess = 0.9\n"
                     "[[points]]\nvisible = 70\nwrong = 0.4\nsuccess = 0.5\n")
    rep = build(eval=out, accuracy_curve=str(curve))
    row = rep.tables["picks_curve"].data.iloc[0]
    assert row["figures_from"] == ("the curve given (--accuracy-curve): measured: local-test-model on your "
                                   "registry, 12 queries, 2026-12-06")
    # 63 tools visible, linear between (10, 0.1, 0.9) and (70, 0.4, 0.5): by hand
    assert row["mean_visible"] == 63
    assert row["wrong_rate"] == pytest.approx(0.1 + 53 / 60 * 0.3)
    assert row["success"] == pytest.approx(0.9 - 53 / 60 * 0.4)


def test_a_sweep_is_read_at_its_largest_visible_set(monkeypatch, tmp_path):
    out, _ = write_eval(monkeypatch, tmp_path, "--visible", "5,all")
    rep = build(eval=out)
    assert "a catalog-size sweep read at its largest visible set (all)" in rep.section("picks").text[0]
    whole = [r for r in json.loads(out.read_text())["queries"] if r["visible"] == "all"]
    good = sum(r["outcome"] in ("right", "no_call") for r in whole)
    assert (good, len(whole)) == (3, 12)  # every tool in view: the planted answers
    assert rep.headlines["picks_accuracy"].value == good / len(whole)


def test_without_an_eval_the_section_is_absent_and_the_method_says_how_to_add_it():
    rep = build()
    assert "picks" not in [s.key for s in rep.sections]
    notes = rep.section("method").notes
    assert any(n.startswith('Missing input (eval): no eval file was given, so the section "What the model picks" '
                            "is left out") for n in notes)


def test_cli_report_with_eval_and_a_bad_eval_file(monkeypatch, tmp_path, capsys):
    out, _ = write_eval(monkeypatch, tmp_path)
    assert main(["report", REG, "--eval", str(out), "--format", "json", "-o", str(tmp_path / "r.json")]) == 0
    doc = json.loads((tmp_path / "r.json").read_text())
    assert ("eval", "eval.json") in [(i["role"], i["name"]) for i in doc["inputs"]]
    assert doc["tables"]["picks_confused"]["rows"][0]["both_ways"] == 3
    bad = tmp_path / "bad.json"
    bad.write_text('{"model": "m"}')
    capsys.readouterr()
    assert main(["report", REG, "--eval", str(bad), "-o", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err
    assert 'found a JSON document without "queries"' in err and "Traceback" not in err
    assert not (tmp_path / "x.html").exists()


def test_tools_of_the_eval_missing_from_the_registry_are_named(monkeypatch, tmp_path):
    out, _ = write_eval(monkeypatch, tmp_path)
    reg = ts.load(REG).filter(lambda t: t.key != "metrics/query_logs")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = ts.report(reg, eval=out)
    assert ("1 tool(s) of the eval are not in this registry (an eval of another version?): metrics/query_logs"
            in rep.section("picks").notes)
