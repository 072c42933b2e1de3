"""The bundled sample registries are what data/registries/README.md says they are."""

from __future__ import annotations

import json
import re

from _oracle import compact, ntok
from conftest import DATA

REG = DATA / "registries"
OPS = json.loads((REG / "ops_assistant.json").read_text(encoding="utf-8"))
TOOLS = {(s, t["name"]): t for s, e in OPS["servers"].items() for t in e["tools"]}


def _documented() -> list[tuple[str, str, str]]:
    """(tool, server, defect) rows of the README's one-row-per-defect table."""
    text = (REG / "README.md").read_text(encoding="utf-8")
    section = text.split("### Every planted defect, one row each", 1)[1]
    return re.findall(r"^\| `([^`]+)` \| (\w+) \| (.+?) \|$", section, flags=re.M)


def test_ops_assistant_has_the_documented_shape():
    assert len(TOOLS) == 63
    assert {s: len(e["tools"]) for s, e in OPS["servers"].items()} == {
        "catalog": 9, "metrics": 9, "deploys": 10, "incidents": 10, "tickets": 9, "comms": 5, "legacy_admin": 11}
    total = sum(ntok(compact({"name": t["name"], "description": t["description"], "inputSchema": t["inputSchema"]}))
                for t in TOOLS.values())
    assert 12_000 <= total <= 16_000  # seed 001's registry: 14,200 tokens for 63 tools
    assert [s for s, e in OPS["servers"].items() if "instructions" in e] == ["catalog", "incidents"]


def test_every_documented_defect_names_a_real_tool_and_the_mechanical_ones_hold():
    rows = _documented()
    assert len(rows) > 100
    for tool, server, defect in rows:
        t = TOOLS[(server, tool)]
        if defect == "description under 10 words":
            assert len(t["description"].split()) < 10
        if defect == "no `required` list":
            assert "required" not in t["inputSchema"]
    under10 = {k for k, t in TOOLS.items() if len(t["description"].split()) < 10}
    assert under10 == {(s, t) for t, s, d in rows if d == "description under 10 words"}
    no_required = {k for k, t in TOOLS.items() if "required" not in t["inputSchema"]}
    assert no_required == {(s, t) for t, s, d in rows if d == "no `required` list"}


def test_planted_text_defects_are_present():
    assert "~/.ssh/id_rsa" in TOOLS[("incidents", "summarize_postmortem")]["description"]
    assert "\u200b" in TOOLS[("comms", "list_channel_members")]["description"]
    assert ("catalog", "search") in TOOLS and ("tickets", "search") in TOOLS
    assert "oneOf" in TOOLS[("metrics", "query_logs")]["inputSchema"]
    assert len(json.dumps(TOOLS[("metrics", "describe_slo")]["outputSchema"])) > \
        len(json.dumps(TOOLS[("metrics", "describe_slo")]["inputSchema"]))


def test_support_desk_is_clean():
    desk = json.loads((REG / "support_desk.json").read_text(encoding="utf-8"))
    tools = [t for e in desk["servers"].values() for t in e["tools"]]
    assert len(tools) == 12
    for t in tools:
        assert re.fullmatch(r"(desk|kb)_[a-z]+(_[a-z]+)+", t["name"])
        assert 30 <= len(t["description"].split()) and "Does NOT" in t["description"]
        schema = t["inputSchema"]
        assert schema["additionalProperties"] is False and "required" in schema and "$ref" not in json.dumps(schema)
        assert "annotations" in t
        for p in schema["properties"].values():
            assert "type" in p and "description" in p
            assert "one of" not in p["description"].lower()
