"""Loading every tool format, converting between them, and every kind of bad input."""

from __future__ import annotations

import json

import pytest
from _oracle import compact, ntok
from _strategies import registries
from conftest import DATA
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import toolsurvey as ts
from toolsurvey.core.registry import Registry
from toolsurvey.inputs.formats import FORMATS
from toolsurvey.measuring.footprint import tools_only
from toolsurvey.measuring.parts import PARTS

SAMPLES = DATA / "registries" / "formats"
DETECTED = {"mcp_result": "mcp", "mcp_jsonrpc": "mcp", "mcp_list": "mcp", "openai_chat": "openai-chat",
            "openai_responses": "openai-responses", "anthropic": "anthropic", "gemini": "gemini"}
NOTES = ["notes_search", "notes_get", "notes_create", "notes_delete"]
WRITERS = [f for f in FORMATS if f != "registry"]


def _essence(reg: Registry):
    return [(t.name, t.description, t.input_schema) for t in reg]


@pytest.mark.parametrize("stem", sorted(DETECTED))
def test_every_sample_format_loads_to_the_same_four_tools(stem):
    reg = ts.load(SAMPLES / f"{stem}.json")
    reference = json.loads((SAMPLES / "mcp_list.json").read_text(encoding="utf-8"))
    assert [t.name for t in reg] == NOTES
    assert {t.source_format for t in reg} == {DETECTED[stem]}
    assert _essence(reg) == [(t["name"], t["description"], t["inputSchema"]) for t in reference]
    assert reg.warnings == []
    assert list(reg.servers) == [stem]  # a file's server is named after it


def test_a_folder_loads_every_file_as_its_own_server():
    reg = ts.load(SAMPLES)
    assert sorted(reg.servers) == sorted(DETECTED)
    assert len(reg) == 4 * len(DETECTED)


def test_several_files_merge_and_keep_sources():
    reg = ts.load(DATA / "registries" / "ops_assistant.json", DATA / "registries" / "support_desk.json")
    assert len(reg) == 63 + 12
    assert len(reg.servers) == 9
    assert reg.collisions() == {"search": ["catalog", "tickets"]}
    assert len(reg.sources) == 2


def test_multi_server_registry_keeps_instructions_and_path_entries(tmp_path):
    (tmp_path / "notes.json").write_text((SAMPLES / "anthropic.json").read_text(encoding="utf-8"))
    (tmp_path / "reg.json").write_text(json.dumps({"servers": {
        "notes": {"path": "notes.json", "instructions": "Use notes_search first."},
        "inline": [{"name": "ping", "inputSchema": {"type": "object"}}]}}))
    reg = ts.load(tmp_path / "reg.json")
    assert [t.name for t in reg.servers["notes"].tools] == NOTES
    assert reg.servers["notes"].instructions == "Use notes_search first."
    assert [t.name for t in reg.servers["inline"].tools] == ["ping"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip_through_every_format_keeps_name_description_and_schema(fmt):
    reg = ts.load(DATA / "registries" / "ops_assistant.json")
    back = ts.load(ts.dump(reg, fmt))
    assert _essence(back) == _essence(reg)


@pytest.mark.parametrize("fmt", ["mcp", "registry"])
def test_mcp_and_registry_round_trips_keep_everything(fmt):
    reg = ts.load(DATA / "registries" / "ops_assistant.json")
    back = ts.load(ts.dump(reg, fmt))
    assert [t.to_mcp() for t in back] == [t.to_mcp() for t in reg]
    if fmt == "registry":
        assert {n: s.instructions for n, s in back.servers.items()} == \
               {n: s.instructions for n, s in reg.servers.items()}


def test_gemini_keeps_output_schemas():
    reg = ts.load(DATA / "registries" / "ops_assistant.json")
    back = ts.load(ts.dump(reg, "gemini"))
    assert [t.output_schema for t in back] == [t.output_schema for t in reg]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(registries)
def test_round_trips_between_all_formats_for_generated_tools(tool_list):
    reg = Registry.from_tools(tool_list)
    for a in WRITERS:
        once = ts.load(ts.dump(reg, a))
        for b in WRITERS:
            twice = ts.load(ts.dump(once, b))
            assert _essence(twice) == _essence(reg), (a, b)


def test_dumped_files_measure_the_same_under_the_json_rendering(tmp_path):
    reg = ts.load(DATA / "registries" / "support_desk.json")
    base = tools_only(ts.footprint(reg))["tokens"].tolist()
    for fmt in WRITERS:
        p = tmp_path / f"{fmt}.json"
        p.write_text(json.dumps(ts.dump(reg, fmt), ensure_ascii=False), encoding="utf-8")
        assert tools_only(ts.footprint(ts.load(p)))["tokens"].tolist() == base, fmt


# --- bad input ------------------------------------------------------------------------------------


def test_invalid_json_names_file_line_and_column(write_json, tmp_path):
    p = tmp_path / "broken.json"
    p.write_text('{"tools": [\n  {"name": "a",}\n]}', encoding="utf-8")
    with pytest.raises(ts.InputError, match=r"broken.json: invalid JSON at line 2 column 16"):
        ts.load(p)


def test_empty_file_and_non_utf8(tmp_path):
    (tmp_path / "empty.json").write_text("")
    with pytest.raises(ts.InputError, match="an empty file"):
        ts.load(tmp_path / "empty.json")
    (tmp_path / "latin.json").write_bytes(b'{"name": "caf\xe9"}')
    with pytest.raises(ts.InputError, match="not UTF-8"):
        ts.load(tmp_path / "latin.json")


def test_unknown_format_names_what_was_tried(write_json):
    p = write_json({"openapi": "3.1.0", "paths": {}})
    with pytest.raises(ts.InputError) as e:
        ts.load(p)
    msg = str(e.value)
    assert "not a tool list in any known format (found an object with keys openapi, paths)" in msg
    for word in ("MCP tools/list", "OpenAI Chat", "OpenAI Responses", "Anthropic", "Gemini", "registry"):
        assert word in msg
    with pytest.raises(ts.InputError, match="unknown format 'yaml'; expected one of: mcp"):
        ts.load(p, format="yaml")
    with pytest.raises(ts.InputError, match="unknown format 'xml'"):
        ts.dump(ts.load(SAMPLES / "mcp_list.json"), "xml")


def test_missing_file_and_folder_without_json(tmp_path):
    with pytest.raises(ts.InputError, match="no such file"):
        ts.load(tmp_path / "nope.json")
    with pytest.raises(ts.InputError, match="folder has no \\*.json files"):
        ts.load(tmp_path)


def test_jsonrpc_error_response_is_explained(write_json):
    p = write_json({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}})
    with pytest.raises(ts.InputError, match="JSON-RPC error response \\('Method not found'\\)"):
        ts.load(p)


def test_tool_without_a_name_is_skipped_with_a_warning(write_json):
    reg = ts.load(write_json([{"description": "no name", "inputSchema": {"type": "object"}},
                              {"name": "", "inputSchema": {}},
                              {"name": "ok", "inputSchema": {"type": "object"}}]))
    assert [t.name for t in reg] == ["ok"]
    assert any("tool #1: no name (found nothing); skipped" in w for w in reg.warnings)
    assert any("tool #2: no name (found an empty string); skipped" in w for w in reg.warnings)


def test_non_string_description_is_counted_as_its_json_with_a_warning(write_json):
    reg = ts.load(write_json([{"name": "a", "description": {"text": "hi"}, "inputSchema": {"type": "object"}}]))
    assert reg.tools[0].description == '{"text": "hi"}'
    assert any("description is an object with keys text, expected a string" in w for w in reg.warnings)


@pytest.mark.parametrize("schema,found", [([1, 2], "a list"), ("object", "a string"), (7, "a number")])
def test_non_object_schema_is_counted_as_empty_with_a_warning(write_json, schema, found):
    reg = ts.load(write_json([{"name": "a", "inputSchema": schema}]))
    assert reg.tools[0].input_schema == {}
    assert any(f"input schema is {found}, expected a JSON object" in w for w in reg.warnings)


def test_empty_and_missing_schema_warn(write_json):
    reg = ts.load(write_json([{"name": "a", "inputSchema": {}}, {"name": "b"}]))
    assert any("'a': input schema is an empty object" in w for w in reg.warnings)
    assert any("'b': no input schema" in w for w in reg.warnings)
    assert len(reg) == 2


def test_ref_cycles_warn_and_are_measured_as_sent(write_json):
    schema = {"type": "object", "properties": {"node": {"$ref": "#/$defs/Node"}},
              "$defs": {"Node": {"type": "object", "properties": {
                  "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}}
    tool = {"name": "walk_tree", "description": "Walk.", "inputSchema": schema}
    reg = ts.load(write_json([tool]))
    assert any("$ref cycle (#/$defs/Node -> #/$defs/Node)" in w for w in reg.warnings)
    assert ts.footprint(reg)["tokens"].tolist() == [ntok(compact(tool))]


def test_five_megabyte_description_is_counted_exactly(write_json):
    desc = "Returns the list of recent deploys for the service, newest first. " * 78_000
    assert len(desc.encode()) > 5_000_000
    tool = {"name": "huge", "description": desc, "inputSchema": {"type": "object"}}
    table = ts.footprint(ts.load(write_json([tool])))
    assert table["tokens"].tolist() == [ntok(compact(tool))]
    assert table["description"].iloc[0] > 0.99 * table["tokens"].iloc[0]


def test_odd_unicode_is_counted_exactly_and_invisible_characters_warn(write_json):
    tools = [{"name": "rocket_\U0001F680", "description": "Launch \U0001F469\u200D\U0001F4BB now.",
              "inputSchema": {"type": "object"}},
             {"name": "hidden", "description": "Harmless\u200b\u200b text \u202eevil\u202c.",
              "inputSchema": {"type": "object"}},
             {"name": "rtl", "description": "\u05e9\u05dc\u05d5\u05dd \u200f mark", "inputSchema": {"type": "object"}}]
    reg = ts.load(write_json(tools))
    table = ts.footprint(reg)
    assert table["tokens"].tolist() == [ntok(compact(t)) for t in tools]
    joined = " ".join(reg.warnings)
    assert "'hidden': description contains invisible or direction-changing characters (U+200B, U+202C, U+202E)" in joined
    assert "'rtl'" in joined and "U+200F" in joined
    assert "U+200D" in joined  # the zero-width joiner inside the emoji sequence is invisible too


def test_lone_surrogate_escapes_do_not_crash(tmp_path):
    p = tmp_path / "s.json"
    p.write_text('[{"name": "a", "description": "bad \\ud800 half", "inputSchema": {"type": "object"}}]')
    table = ts.footprint(ts.load(p))
    assert table["tokens"].iloc[0] == ntok('{"name":"a","description":"bad \ud800 half","inputSchema":{"type":"object"}}')
    assert (table[list(PARTS)].sum(axis=1) == table["tokens"]).all()


def test_duplicate_names_in_one_server_warn_and_both_count(write_json):
    tool = {"name": "dup", "description": "Same.", "inputSchema": {"type": "object"}}
    reg = ts.load(write_json([tool, tool]))
    assert len(reg) == 2
    assert any("defines 'dup' more than once" in w for w in reg.warnings)
    assert ts.footprint(reg)["tokens"].sum() == 2 * ntok(compact(tool))


def test_a_path_with_a_nul_character_is_a_clear_error():
    with pytest.raises(ts.InputError, match="cannot contain a NUL"):
        ts.load("tools\x00.json")


def test_nesting_too_deep_is_a_clear_error(tmp_path):
    p = tmp_path / "deep.json"
    p.write_text('{"name": "a", "inputSchema": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ts.InputError, match="nested too deeply"):
        ts.load(p)


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["name", "description", "inputSchema", "input_schema", "parameters", "tools",
                         "servers", "type", "function", "functionDeclarations", "path", "tags",
                         "instructions", "jsonrpc", "result", "error", "annotations", "outputSchema", "x"]),
        children, max_size=5),
    max_leaves=20)


_entries = st.one_of(_json_values, st.lists(_json_values, max_size=3), st.fixed_dictionaries({}, optional={
    "tools": st.one_of(_json_values, st.lists(st.fixed_dictionaries({"name": st.text(max_size=4)}, optional={
        "inputSchema": _json_values, "description": _json_values}), max_size=3)),
    "path": _json_values, "tags": _json_values, "instructions": _json_values, "error": _json_values}))
_registries = st.fixed_dictionaries({"servers": st.dictionaries(st.text(max_size=4), _entries, max_size=3)})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_json_values.filter(lambda v: not isinstance(v, str)) | _registries)  # a string is a path
@example({"servers": {"a": {"path": 5}}})
@example({"servers": {"a": {"tools": [{"name": "x"}], "tags": [1]}}})
@example({"servers": {"a": {"tools": [{"name": "x"}], "tags": {"x": 5}}}})
@example({"servers": {"a": {"tools": {"servers": {"b": []}}}}})
def test_any_json_value_loads_or_gives_an_input_error(value):
    try:
        reg = ts.load(value)
    except ts.InputError as e:
        assert str(e)
        return
    ts.footprint(reg)
    for fmt in FORMATS:
        ts.dump(reg, fmt)
