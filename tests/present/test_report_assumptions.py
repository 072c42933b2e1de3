"""The report and the plan state every key assumption they were not given, take the scenario
options `simulate` has, and offer only the levers that apply to the model's provider."""

from __future__ import annotations

from conftest import ROOT

import toolsurvey as ts

OPS = ROOT / "data" / "registries" / "ops_assistant.json"


def test_report_without_a_scenario_names_every_default_it_assumed():
    text = ts.report(ts.load(OPS)).summary_text().replace("\n", " ")
    assert "Assumed, not given:" in text
    for part in ("model claude-sonnet-4-5", "requests per task 9", "system prompt (tokens) 0",
                 "user message (tokens) 0", "prompt caching none (auto", "tasks per day 1,000"):
        assert part in text, part


def test_report_options_set_the_scenario_and_leave_the_summary():
    rep = ts.report(ts.load(OPS), model="gpt-4o", tasks_per_day=5000, caching="prefix", system_prompt_tokens=1200)
    text = rep.summary_text().replace("\n", " ")
    assert "150,000 completed tasks" in text  # 5,000 a day x 30 days
    assumed = text.split("Assumed, not given:")[1]
    for part in ("model ", "tasks per day", "prompt caching", "system prompt"):
        assert part not in assumed.split(". Set them")[0], part
    assert rep.section("method").tables[-1].data.set_index("field").loc["caching_used", "value"] == "prefix"


def test_no_caching_lever_where_caching_is_automatic():
    reg = ts.load(OPS)
    openai = ts.report(reg, model="gpt-4o", system_prompt_tokens=3000)
    assert not [lab for lab, _ in openai.levers if "prompt caching" in lab]
    claude = ts.report(reg, model="claude-sonnet-4-5", system_prompt_tokens=3000)
    assert [lab for lab, _ in claude.levers if "prompt caching" in lab]


def test_cli_report_and_plan_take_the_scenario_options(cli, tmp_path):
    opts = ["--model", "gpt-4o", "--tasks-per-day", "5000", "--caching", "prefix", "--system-prompt-tokens", "1200"]
    code, out, err = cli("report", OPS, *opts, "-o", tmp_path / "r.md")
    assert code == 0 and "150,000 completed tasks" in out
    code, out, err = cli("plan", OPS, *opts)
    assert code == 0 and "simulated with gpt-4o" in out and "system prompt tokens: 1200" in out
    code, out, err = cli("plan", OPS)
    assert code == 0 and "Assumed, not given: model claude-sonnet-4-5" in out
