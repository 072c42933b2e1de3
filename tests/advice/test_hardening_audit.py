"""Audit on a hostile registry: 1,000 tools sharing one description are one finding, and no fix
claims to save more tokens than the registry holds."""

import json

from _oracle import ntok

import toolsurvey as ts

DESC = "Runs the operation on the given record and returns the updated record with its new status."


def test_a_thousand_identical_descriptions_are_one_finding():
    tools = [{"name": f"op_{i:04d}", "description": DESC, "inputSchema": {"type": "object"}} for i in range(1000)]
    reg = ts.load({"tools": tools})
    # the tfidf rule pairs all 30 (the scored default reads the numbers as different objects)
    findings = ts.audit(reg, rules=["overlap"], config={"similarity": {"method": "tfidf", "threshold": 0.55}})
    assert len(findings) == 1
    assert findings["evidence"].iloc[0].startswith("1000 tools share one description")
    # Oracle: the merge keeps one definition (its schema written out with empty properties), so the
    # saving is all 1,000 definitions less that one.
    per_tool = [ntok(json.dumps(t, separators=(",", ":"))) for t in tools]
    merged = ntok(json.dumps({**tools[0], "inputSchema": {"type": "object", "properties": {}}}, separators=(",", ":")))
    assert findings["tokens"].iloc[0] == sum(per_tool) - merged <= sum(per_tool)


def test_savings_never_exceed_the_registry():
    tools = [{"name": f"get_user_{i}", "description": f"Get the user record number {i} by id and return it.",
              "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}}} for i in range(30)]
    reg = ts.load({"tools": tools})
    # the tfidf rule pairs all 30 (the scored default reads the numbers as different objects)
    findings = ts.audit(reg, rules=["overlap"], config={"similarity": {"method": "tfidf", "threshold": 0.55}})
    total = int(ts.footprint(reg)["tokens"].sum())
    assert len(findings) > 1 and findings["tokens"].sum() <= total


def test_a_name_twice_in_one_server_says_so(cli, write_json):
    tool = {"name": "search", "description": "Search the docs by keyword.", "inputSchema": {"type": "object"}}
    code, out, _ = cli("audit", write_json({"tools": [tool, tool]}), "--format", "json")
    assert "defined 2 times in tools" in out and "several servers" not in out and "also defined by" not in out
