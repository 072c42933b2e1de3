"""The floors of the security evaluation (bench/security_eval.py prints the figures): every attack of the
project's own set flagged `poisoning`; issue 34's styles written here (tests/data/attacks/roles_and_chains.json)
`poisoning` by their own rule on the tuning half, the public sets' floors on the held-out half, no near-miss
`poisoning`; on the held-out half of the public attack sets, >= 90% of the attacks
a definition shows flagged and >= 80% of those outside the styles documented as `suspicious` flagged
`poisoning`; no `poisoning` finding and at most 0.5% of tools `suspicious` on the real benign tools (at
least 2,500 with the shared data); MongoDB's official server audits clean of `poisoning`."""

from fnmatch import fnmatch

import _attack_sets as attack_sets
import pytest
from _public_data import REAL_TOOLS, benign_sets
from conftest import ROOT, shared

from toolsurvey.advice.audit.run import RULES as AUDIT_RULES
from toolsurvey.advice.audit.run import audit
from toolsurvey.core.registry import Registry
from toolsurvey.inputs.formats import load

RULES = attack_sets.SECURITY_RULES


def test_every_attack_of_the_own_set_is_flagged_poisoning():
    reg = load(ROOT / "tests" / "data" / "attacks" / "attacks.json")
    assert len(reg.servers) >= 40
    f = audit(reg, rules=RULES)
    flagged = set(f.loc[f["severity"] == "poisoning", "server"])
    assert sorted(set(reg.servers) - flagged) == []


@pytest.fixture(scope="module")
def role_chain():
    reg, cases = attack_sets.role_chain_cases()
    return cases, attack_sets.role_chain_levels(reg, cases)


def test_issue_34s_styles_are_poisoning_by_their_own_rule_on_the_tuning_half(role_chain):
    cases, found = role_chain
    tuning = [c for c in cases if c.half == "tuning" and c.label == "attack"]
    assert {c.intent for c in tuning} == {"role", "chain"} and len(tuning) >= 10
    assert [c.id for c in tuning if f"poisoning-{c.intent}" not in found[c][1]] == []


def test_issue_34s_styles_meet_the_public_sets_floors_on_the_held_out_half(role_chain):
    cases, found = role_chain
    held = [c for c in cases if c.half == "held-out" and c.label == "attack"]
    assert {c.intent for c in held} == {"role", "chain"} and len(held) >= 15
    assert sum(bool(found[c][0]) for c in held) >= 0.9 * len(held)
    assert sum(found[c][0] == "poisoning" for c in held) >= 0.8 * len(held), [c.id for c in held if found[c][0] != "poisoning"]


def test_no_near_miss_of_issue_34s_styles_is_poisoning(role_chain):
    cases, found = role_chain
    near = [c for c in cases if c.label == "near-miss"]
    assert {c.intent for c in near} == {"role", "chain"} and len(near) >= 20
    assert [c.id for c in near if found[c][0] == "poisoning"] == []


def test_the_split_of_issue_34s_cases_holds_out_about_half(role_chain):
    cases, _ = role_chain
    for label in ("attack", "near-miss"):
        group = [c for c in cases if c.label == label]
        assert 0.35 * len(group) <= sum(c.half == "held-out" for c in group) <= 0.65 * len(group)


def test_the_known_misses_of_issue_34s_rules_are_in_the_docs_and_still_pass():
    """docs/security.md lists what still passes; a miss the rules come to catch must leave the list."""
    docs = (ROOT / "docs" / "security.md").read_text("utf-8")
    found = attack_sets.known_miss_levels()
    assert {miss[0] for miss, _, _ in found} == {"role", "chain"}
    for (_, _, text, _), level, rules in found:
        assert f'"{text}"' in docs, text
        assert level != "poisoning", (text, rules)


@pytest.fixture(scope="module")
def held_out():
    shared("attacks")
    out = []
    for set_ in attack_sets.present():
        reg, cases, _ = attack_sets.load_set(set_)
        found = attack_sets.levels(reg, cases)
        out += [(c, found[c][0]) for c in cases if c.half == "held-out" and c.visible]
    return out


def test_the_held_out_attacks_are_flagged(held_out):
    assert len(held_out) >= 30  # 5 + 2 + 30 definition-visible held-out attacks in the three sets
    flagged = [c for c, level in held_out if level]
    assert len(flagged) >= 0.9 * len(held_out), [c for c, level in held_out if not level]


def test_the_held_out_attacks_outside_the_suspicious_styles_are_poisoning(held_out):
    strict = [(c, level) for c, level in held_out if c.style not in attack_sets.SUSPICIOUS_STYLES[c.set]]
    assert strict
    assert sum(level == "poisoning" for _, level in strict) >= 0.8 * len(strict), strict


def test_the_split_holds_out_about_half_of_the_attacks():
    shared("attacks")
    cases = [c for set_ in attack_sets.present() for c in attack_sets.load_set(set_)[1]]
    held = [c for c in cases if c.half == "held-out"]
    assert 0.35 * len(cases) <= len(held) <= 0.65 * len(cases)  # 39 of 94 with the three sets


def benign_findings(reg: Registry):
    """(the `poisoning` findings, the number of tools `suspicious`); the rules run include issue 34's two."""
    assert {"poisoning-role", "poisoning-chain"} <= {r for r in AUDIT_RULES if fnmatch(r, RULES[0])}
    f = audit(reg, rules=RULES)
    poisoned = f[f["severity"] == "poisoning"]
    suspicious = f[f["severity"] == "suspicious"].drop_duplicates(["server", "tool"])
    return poisoned, len(suspicious)


def test_the_committed_real_tools_have_no_poisoning_and_few_suspicious():
    reg = load(REAL_TOOLS)
    assert len(reg) >= 1600
    poisoned, suspicious = benign_findings(reg)
    assert poisoned.empty, poisoned[["server", "tool", "evidence"]].to_string()
    assert suspicious <= 0.005 * len(reg)


def test_all_real_benign_sets_have_no_poisoning_and_at_most_half_a_percent_suspicious():
    shared("tools")
    shared("retrieval", "mcp-bench", "catalog.json")
    shared("attacks")
    sets = [reg for _, reg in benign_sets()]
    for set_ in attack_sets.present():
        sets.append(attack_sets.load_set(set_)[2])
    tools = sum(len(r) for r in sets)
    assert tools >= 2500
    total = 0
    for reg in sets:
        poisoned, suspicious = benign_findings(reg)
        assert poisoned.empty, poisoned[["server", "tool", "evidence"]].to_string()
        total += suspicious
    assert total <= 0.005 * tools


def test_mongodbs_official_server_has_no_poisoning_finding():
    reg = load(REAL_TOOLS / "mongodb.json")
    assert reg.servers["mongodb"].info["serverInfo"]["name"] == "MongoDB MCP Server"
    notes = [t for t in reg if "Note to LLM" in str(t.input_schema) and "collection-indexes" in str(t.input_schema)]
    assert {t.name for t in notes} >= {"aggregate", "explain", "export"}
    f = audit(reg, rules=RULES)
    assert f[f["severity"] == "poisoning"].empty
