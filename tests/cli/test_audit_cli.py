"""`toolsurvey audit` and `toolsurvey plan` from the command line: formats, exit codes, bad input."""

import csv
import io
import json

from conftest import DATA

OPS = DATA / "registries" / "ops_assistant.json"
CLEAN = DATA / "registries" / "support_desk.json"


def test_audit_table_ranks_poisoning_first(cli):
    code, out, _ = cli("audit", OPS)
    assert code == 0
    lines = out.splitlines()
    assert "findings on" in lines[0]
    first = next(i for i, line in enumerate(lines) if line.startswith("─")) + 1  # under the header rule
    assert lines[first].startswith("poisoning")


def test_fail_on_exit_codes(cli):
    assert cli("audit", OPS, "--fail-on", "error")[0] == 1
    assert cli("audit", OPS, "--fail-on", "security")[0] == 1
    assert cli("audit", CLEAN, "--fail-on", "info")[0] == 0
    assert cli("audit", OPS, "--rules", "name-long", "--fail-on", "error")[0] == 0  # a warning only


def test_json_and_csv_carry_every_finding(cli):
    code, out, _ = cli("audit", OPS, "--format", "json")
    rows = json.loads(out)
    code2, out2, _ = cli("audit", OPS, "--format", "csv")
    assert code == code2 == 0
    table = list(csv.DictReader(io.StringIO(out2)))
    assert len(rows) == len(table) > 200
    assert {r["rule"] for r in rows} == {r["rule"] for r in table}
    assert set(rows[0]) == {"rule", "severity", "impact", "server", "tool", "evidence", "fix", "tokens", "group", "other"}


def test_markdown_escapes_third_party_text(cli, write_json):
    p = write_json({"tools": [{"name": "get_x", "description": "Gets x | <script>alert(1)</script>",
                               "inputSchema": {"type": "object"}}]})
    code, out, _ = cli("audit", p, "--format", "markdown")
    assert code == 0
    assert "<script>" not in out and "&lt;script&gt;" in out and "x \\| " in out


def test_bad_input_exit_2(cli, tmp_path):
    assert cli("audit", tmp_path / "missing.json")[0] == 2
    code, _, err = cli("audit", OPS, "--rules", "no-such-rule")
    assert code == 2 and "no audit rule matches" in err
    cfg = tmp_path / "bad.toml"
    cfg.write_text("[description]\nmin_wordz = 3\n")
    code, _, err = cli("audit", OPS, "--config", str(cfg))
    assert code == 2 and "min_wordz" in err


def test_by_rule(cli):
    code, out, _ = cli("audit", OPS, "--by", "rule", "--format", "json")
    rows = {r["rule"]: r for r in json.loads(out)}
    assert rows["description-short"]["findings"] == 30


def test_plan_cli(cli):
    args = ("plan", OPS, "--usage", DATA / "usage" / "ops_assistant.jsonl", "--phases",
            DATA / "phases" / "ops_assistant.toml", "--scenario", DATA / "scenarios" / "ops_assistant.toml")
    code, out, err = cli(*args)
    assert code == 0
    assert "tool definitions per request" in out and "assumptions:" in out and "accuracy curve" in out
    code, out, _ = cli(*args, "--format", "json")
    doc = json.loads(out)
    assert {"table", "actions", "stages", "assumptions", "warnings"} <= set(doc)
    assert sum(a["kind"] == "delete" for a in doc["actions"]) == 19
    code, out, _ = cli(*args, "--format", "csv", "--show", "actions")
    assert next(csv.reader(io.StringIO(out)))[:2] == ["kind", "target"]
    code, out, _ = cli(*args, "--format", "markdown")
    assert out.startswith("**plan for 63 tools") and "### Assumptions" in out


def test_plan_cli_bad_usage_file(cli, tmp_path):
    bad = tmp_path / "log.jsonl"
    bad.write_text("not json\n")
    code, _, err = cli("plan", OPS, "--usage", bad)
    assert code == 2 and "no tool calls found" in err


def test_fail_on_security_levels(cli, write_json):
    review = write_json({"tools": [{"name": "delete_branch", "description": "Deletes a branch and its commits. "
                                    "Before calling this tool, confirm with the user.",
                                    "inputSchema": {"type": "object", "properties": {}}}]})
    rules = ("--rules", "poisoning-*,suspicious-*")
    assert cli("audit", review, *rules, "--fail-on", "error")[0] == 0  # a review item never breaks CI
    assert cli("audit", review, *rules, "--fail-on", "suspicious")[0] == 1
    assert cli("audit", OPS, *rules, "--fail-on", "poisoning")[0] == 1
    assert cli("audit", OPS, *rules, "--fail-on", "security")[0] == 1  # the old name of poisoning
    assert cli("audit", CLEAN, *rules, "--fail-on", "suspicious")[0] == 0
