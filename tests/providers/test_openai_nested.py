"""The `openai` rendering of nested schemas against the npm package openai-chat-tokens (0.2.8, run
with node): the TypeScript text of nested objects, arrays, enums and anyOf is the package's, and a
nested property costs the cookbook's per-property constants plus the tokens of that text."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from _oracle import ntok
from conftest import TESTS

import toolsurvey as ts
from toolsurvey.providers.typescript import function_definitions

SERVERS = TESTS / "servers"


def node_modules() -> Path:
    """The node_modules holding openai-chat-tokens, or a skip (a failure in CI, which installs it)."""
    dirs = [Path(os.environ["TOOLSURVEY_NODE_MODULES"])] if os.environ.get("TOOLSURVEY_NODE_MODULES") else []
    dirs.append(SERVERS / "node_modules")
    for d in dirs:
        if (d / "openai-chat-tokens").is_dir() and shutil.which("node"):
            return d
    why = "openai-chat-tokens is missing: run scripts/install-system.sh (npm ci in tests/servers)"
    if os.environ.get("CI") or os.environ.get("TOOLSURVEY_REQUIRE_SERVERS"):
        pytest.fail(why)
    pytest.skip(why)


SCRIPT = """
const f = require("openai-chat-tokens/dist/functions");
const i = require("openai-chat-tokens");
const fns = JSON.parse(require("fs").readFileSync(0, "utf8"));
console.log(JSON.stringify({text: f.formatFunctionDefinitions(fns), tokens: i.functionsTokensEstimate(fns)}));
"""


def package(functions: list[dict]) -> dict:
    d = node_modules()
    out = subprocess.run(["node", "-e", SCRIPT], input=json.dumps(functions), capture_output=True, text=True,
                         env={**os.environ, "NODE_PATH": str(d)}, timeout=60, check=True)
    return json.loads(out.stdout)


ADDRESS = {"type": "object", "properties": {"street": {"type": "string"}, "zip": {"type": "string"}},
           "required": ["street"]}
NESTED = {
    "name": "create_order",
    "description": "Create an order for a customer",
    "parameters": {"type": "object", "required": ["customer", "items"], "properties": {
        "customer": {"type": "object", "description": "Who orders", "properties": {
            "id": {"type": "string"},
            "tier": {"type": "string", "enum": ["free", "pro"]},
            "address": ADDRESS}, "required": ["id"]},
        "items": {"type": "array", "description": "What is ordered", "items": {"type": "object", "properties": {
            "sku": {"type": "string"}, "qty": {"type": "integer", "enum": [1, 2, 3]},
            "tags": {"type": "array", "items": {"type": "string"}}}, "required": ["sku"]}},
        "priority": {"anyOf": [{"type": "string"}, {"type": "number"}], "description": "Rush or a number"},
        "note": {"type": "string", "description": "Free text"}}},
}
DEEP = {"name": "search", "description": "Search", "parameters": {"type": "object", "properties": {
    "filter": {"type": "object", "description": "Top-level filter", "properties": {
        "field": {"type": "string", "description": "A description two levels down"}}}}}}


@pytest.mark.parametrize("fn", [NESTED, DEEP], ids=["nested", "deep-descriptions"])
def test_typescript_text_and_tokens_equal_the_package(fn):
    theirs = package([fn])
    mine = function_definitions([fn], deep=False)
    assert mine == theirs["text"]
    # the package counts that text with cl100k_base and adds 9 per completion
    assert ntok(mine, "cl100k_base") + 9 == theirs["tokens"]


def test_refs_are_inlined_as_the_package_renders_the_inlined_schema():
    with_ref = {"name": "ship", "parameters": {"type": "object", "$defs": {"Address": ADDRESS}, "properties": {
        "to": {"$ref": "#/$defs/Address"}, "stops": {"type": "array", "items": {"$ref": "#/$defs/Address"}}}}}
    inlined = {"name": "ship", "parameters": {"type": "object", "properties": {
        "to": ADDRESS, "stops": {"type": "array", "items": ADDRESS}}}}
    assert function_definitions([with_ref]) == package([inlined])["text"]
    loop = {"name": "tree", "parameters": {"type": "object", "$defs": {"Node": {"type": "object", "properties": {
        "child": {"$ref": "#/$defs/Node"}}}}, "properties": {"root": {"$ref": "#/$defs/Node"}}}}
    assert "child?: any," in function_definitions([loop])  # a recursive $ref ends as `any`


def test_openai_rendering_counts_a_nested_property_as_its_typescript_text():
    """create_order under the openai rendering (gpt-4o constants: func_init 7, prop_init 3,
    prop_key 3, enum_init -3, enum_item 3, func_end 12): nested properties are `key:TYPE:desc` with
    TYPE the package's text; flat ones follow the cookbook."""
    def ts_type(key: str) -> str:
        """The package's type text for one property: render it alone, required, without its description."""
        prop = {k: v for k, v in NESTED["parameters"]["properties"][key].items() if k != "description"}
        text = package([{"name": "f", "parameters": {"type": "object", "required": [key], "properties": {key: prop}}}])["text"]
        return text.split(f"\n{key}: ", 1)[1].rsplit(",\n}) => any;", 1)[0]

    tool = ts.Tool(NESTED["name"], NESTED["description"], NESTED["parameters"])
    fp = ts.footprint(ts.Registry.from_tools([tool]), render="openai", model="gpt-4o")
    want = (7 + ntok("create_order:Create an order for a customer") + 3 + 4 * 3
            + ntok(f"customer:{ts_type('customer')}:Who orders") + ntok(f"items:{ts_type('items')}:What is ordered")
            + ntok(f"priority:{ts_type('priority')}:Rush or a number") + ntok("note:string:Free text"))
    assert int(fp.loc[fp["kind"] == "tool", "tokens"].sum()) == want
    assert int(fp["tokens"].sum()) == want + 12
