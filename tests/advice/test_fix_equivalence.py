"""The rewrite rules change nothing the model may send: for every rule, on every real registry
(tests/data/real_tools and ../shared/data/tools), instances drawn by hypothesis-jsonschema from the old
schema and from the new one validate the same way under both (jsonschema; a schema without `$schema`
read as 2020-12, as MCP says).

A rule that rewrites one place in a schema (a property's title, a `default`, an anyOf) is tested on
that place, with the root's definitions and dialect beside it: validation is compositional, so a
subschema replaced by one that accepts the same instances leaves the whole accepting the same
instances. The two rules that change the whole schema (`$schema`, `$ref`) are tested on whole
schemas. Time is bounded: per registry and rule at most PER_REGISTRY distinct changes (the smallest
and the median by size), EXAMPLES instances drawn from each side and from plain JSON.
"""

from __future__ import annotations

import copy
import json
import warnings
from functools import cache

import jsonschema
import pytest
from _public_data import absent_reason, real_tool_files, shared_path
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from jsonschema.validators import validator_for

import toolsurvey as ts
from toolsurvey.advice.fix.rules import RULES

hypothesis_jsonschema = pytest.importorskip("hypothesis_jsonschema", reason="pip install -e '.[dev]'")

PER_REGISTRY = 2
EXAMPLES = 3
WHOLE = {"drop-dollar-schema", "inline-refs"}
# Plain JSON values, so that instances no schema would generate (null where a string goes, ...) are met too.
ANY_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                    max_size=3), max_leaves=6)


SCALARS = (st.none() | st.booleans() | st.integers(min_value=-3, max_value=100) | st.integers()
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5))
VALUES = SCALARS | st.lists(SCALARS, max_size=3) | ANY_JSON


def _shaped(schema) -> st.SearchStrategy:
    """Objects made of the schema's own property names (at any depth) with plain JSON values: the
    instances near its edges (a wrong type, a value out of range) that neither side would draw."""
    from toolsurvey.advice.fix.keywords import subschemas

    names = sorted({n for _, node in subschemas(schema) if isinstance(node.get("properties"), dict)
                    for n in node["properties"]})
    if not names:
        return ANY_JSON
    return st.dictionaries(st.sampled_from(names), VALUES, max_size=len(names))


def _at(schema, path: str):
    node = schema
    for part in (p for p in path.split("/") if p):
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def _outermost(sites: list[str]) -> list[str]:
    """The places not inside another changed place (the outer one's test covers the inner)."""
    paths = sorted(set(sites), key=len)
    return [p for i, p in enumerate(paths) if not any(p.startswith(q.rstrip("/") + "/") for q in paths[:i]) or p == "/"]


def _local(root: dict, node):
    """A changed place as a schema of its own: the root's dialect and definitions beside it."""
    if not isinstance(node, dict):
        return node
    extra = {k: root[k] for k in ("$schema", "$defs", "definitions") if isinstance(root, dict) and k in root
             and k not in node}
    return {**node, **extra}


@cache
def _registries() -> list[tuple[str, ts.Registry]]:
    return [(f.name, ts.load(f)) for f in real_tool_files()]


def changes(rule_id: str) -> list[tuple[str, object, object]]:
    """(where, old, new): the distinct changes the rule makes on each real registry, PER_REGISTRY at most."""
    rule, out = RULES[rule_id], []
    for name, reg in _registries():
        found: dict[str, tuple] = {}
        for tool in reg:
            ch = rule.apply(tool)
            if not ch.sites:
                continue
            if rule_id in WHOLE:
                pairs = [("/", tool.input_schema, ch.schema)]
            else:
                pairs = [(s, _local(tool.input_schema, _at(tool.input_schema, s)), _local(tool.input_schema, _at(ch.schema, s)))
                         for s in _outermost(ch.sites)]
            for site, old, new in pairs:
                found.setdefault(json.dumps([old, new], sort_keys=True), (f"{name} {tool.name} {site}", old, new))
        ranked = [found[k] for k in sorted(found, key=len)]
        n = len(ranked)
        out += [ranked[i] for i in sorted({0, n // 2}) if i < n][:PER_REGISTRY]
    return out


def _validator(schema):
    return validator_for(schema, default=jsonschema.Draft202012Validator)(schema)


def same_verdicts(cases: list[tuple[str, object, object]], examples: int = EXAMPLES,
                  plain: list | None = None) -> list[tuple[str, object]]:
    """The counterexamples: (where, instance) validating differently under the old and the new schema.
    A side hypothesis-jsonschema cannot draw from (an unsupported keyword, a pattern it cannot satisfy)
    is left out and counted in `plain`: plain JSON values still test that case."""
    found: list[tuple[str, object]] = []
    for where, old, new in cases:
        vo, vn = _validator(copy.deepcopy(old)), _validator(copy.deepcopy(new))
        _run(where, vo, vn, ANY_JSON, examples, found)
        _run(where, vo, vn, _shaped(old), examples, found)
        for schema in (old, new):  # one run per side: drawing both in one example can overrun the buffer
            try:
                # from_schema resolves references in the schema it is given: a copy keeps the validators' own
                _run(where, vo, vn, hypothesis_jsonschema.from_schema(copy.deepcopy(schema)), examples, found)
            except Exception:
                if plain is not None:
                    plain.append(where)
    return found


def _run(where: str, vo, vn, strategy, examples: int, found: list) -> None:
    @settings(max_examples=examples, deadline=None, database=None, derandomize=True, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def check(x):
        if vo.is_valid(x) != vn.is_valid(x):
            found.append((where, x))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check()


@pytest.mark.parametrize("rule_id", list(RULES))
def test_rule_keeps_every_real_schema_equivalent(rule_id):
    cases = changes(rule_id)
    assert cases, f"{rule_id} changes nothing on the real registries"
    plain: list[str] = []
    bad = same_verdicts(cases, plain=plain)
    assert not bad, f"{rule_id} is unsafe where these validate differently (refuse it there): " + "; ".join(
        f"{where}: {json.dumps(x)[:200]}" for where, x in bad[:5])
    assert len(plain) <= len(cases), plain  # most sides are drawn by hypothesis-jsonschema, not plain JSON only


def test_the_shared_registries_are_among_them():
    if shared_path("tools") is None:
        pytest.skip(absent_reason("tools") + ": the rules were tested on the committed registries only")
    names = {f.name for f in real_tool_files()}
    assert {"github.json", "server-github.json"} <= names
