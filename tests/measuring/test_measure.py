"""footprint: exact per-tool counts against tiktoken called directly, parts that add up, overheads."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _oracle import compact, ntok, num_tokens_for_tools
from _strategies import registries, tools
from conftest import DATA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolsurvey as ts
from toolsurvey.core.registry import Registry, Server, Tool
from toolsurvey.measuring.footprint import by_part, by_server, request_total, tools_only
from toolsurvey.measuring.parts import PARTS

OPS = DATA / "registries" / "ops_assistant.json"
DESK = DATA / "registries" / "support_desk.json"
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _raw_tools(path):
    """(server, tool object) pairs read straight from the sample file, without toolsurvey."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return [(s, t) for s, entry in data["servers"].items() for t in entry["tools"]]


def _json_string(t: dict, schema_key="inputSchema") -> str:
    obj = {"name": t["name"]}
    if "description" in t:
        obj["description"] = t["description"]
    obj[schema_key] = t.get("inputSchema", {})
    return compact(obj)


@pytest.mark.parametrize("path", [OPS, DESK])
def test_json_rendering_counts_equal_tiktoken_on_the_compact_json(path):
    table = ts.footprint(ts.load(path))
    rows = tools_only(table)
    expected = [ntok(_json_string(t)) for _, t in _raw_tools(path)]
    assert rows["tokens"].tolist() == expected
    assert rows["tool"].tolist() == [t["name"] for _, t in _raw_tools(path)]


def test_sent_rendering_counts_every_key_the_server_sent():
    table = ts.footprint(ts.load(OPS), render="sent")
    expected = [ntok(compact(t)) for _, t in _raw_tools(OPS)]
    assert tools_only(table)["tokens"].tolist() == expected
    # outputSchema and annotations are sent but not part of the seeds' json method
    assert request_total(table) > request_total(ts.footprint(ts.load(OPS)))


def test_instructions_are_their_own_rows_and_count_into_the_total():
    data = json.loads(OPS.read_text(encoding="utf-8"))
    table = ts.footprint(ts.load(OPS))
    instr = table[table["kind"] == "instructions"]
    assert sorted(instr["server"]) == ["catalog", "incidents"]
    for _, row in instr.iterrows():
        assert row["tokens"] == ntok(data["servers"][row["server"]]["instructions"])
    tools_sum = sum(ntok(_json_string(t)) for _, t in _raw_tools(OPS))
    assert request_total(table) == tools_sum + instr["tokens"].sum()


def test_cl100k_counts_differ_and_match_their_own_oracle():
    table = ts.footprint(ts.load(DESK), encoding="cl100k_base")
    expected = [ntok(_json_string(t), "cl100k_base") for _, t in _raw_tools(DESK)]
    assert tools_only(table)["tokens"].tolist() == expected
    assert table.attrs["encoding"] == "cl100k_base"


# --- parts ----------------------------------------------------------------------------------------


@SETTINGS
@given(registries, st.sampled_from(["json", "sent", "openai", "anthropic"]))
def test_parts_add_up_to_each_tool_and_rows_to_the_request(tool_list, render):
    reg = Registry.from_tools(tool_list)
    table = ts.footprint(reg, render=render)
    assert (table[list(PARTS)].sum(axis=1) == table["tokens"]).all()
    assert request_total(table) == int(table[list(PARTS)].to_numpy().sum())
    totals = ts.footprint(reg, render=render, parts=False)
    assert totals["tokens"].tolist() == table["tokens"].tolist()


@SETTINGS
@given(st.lists(tools(), min_size=1, max_size=4))
def test_json_totals_equal_tiktoken_for_generated_tools_with_odd_unicode(tool_list):
    reg = Registry.from_tools(tool_list)
    table = ts.footprint(reg)
    expected = []
    for t in reg:  # the registry groups tools by server, keeping their order
        obj = {"name": t.name, **({"description": t.description} if t.description is not None else {}),
               "inputSchema": t.input_schema}
        expected.append(ntok(compact(obj)))
    assert tools_only(table)["tokens"].tolist() == expected


def test_parts_are_attributed_where_the_text_is():
    desc = "Look up the weather forecast for a city over the next few days."
    pdesc = "City name in English, e.g. Lisbon."
    tool = Tool("get_forecast", desc, {"type": "object",
                                       "properties": {"city": {"type": "string", "description": pdesc}}})
    row = tools_only(ts.footprint(Registry.from_tools([tool]))).iloc[0]
    # Tokens are attributed to the part they start in; boundary tokens move at most a couple per part.
    assert abs(row["description"] - ntok(f',"description":{compact(desc)}')) <= 2
    assert abs(row["param_descriptions"] - ntok(f',"description":{compact(pdesc)}')) <= 2
    assert abs(row["name"] - ntok('"name":"get_forecast"')) <= 2
    assert row["output_schema"] == row["annotations"] == row["other"] == 0


def test_part_boundaries_shift_at_most_two_tokens_per_boundary_on_the_samples():
    """Attributed parts vs each part's runs encoded on their own: the documented bound."""
    from toolsurvey.measuring.parts import parts_many
    from toolsurvey.providers import render as R

    def runs_of(segs):  # contiguous text of one part
        out = []
        for text, part in segs:
            if out and out[-1][1] == part:
                out[-1] = (out[-1][0] + text, part)
            elif text:
                out.append((text, part))
        return out

    for tool in ts.load(OPS, DESK):
        rendered = R.JSON.renderer(None)(tool)
        attributed = parts_many([rendered])[0]
        alone = dict.fromkeys(R.PARTS, 0)
        runs = dict.fromkeys(R.PARTS, 0)
        for segs in rendered.chunks:
            for text, part in runs_of(segs):
                alone[part] += ntok(text)
                runs[part] += 1
        for part in R.PARTS:
            assert abs(attributed[part] - alone[part]) <= 2 * runs[part], (tool.name, part)


def test_output_schema_and_annotations_are_separate_parts_in_the_sent_rendering():
    table = ts.footprint(ts.load(OPS), render="sent").set_index("tool")
    slo = table.loc["describe_slo"]
    assert slo["output_schema"] > slo["schema"] + slo["param_descriptions"]  # planted defect
    assert slo["annotations"] > 0
    assert table.loc["get_service", "annotations"] == 0


# --- openai ---------------------------------------------------------------------------------------


def _flat(tool: dict) -> dict:
    """Flat schemas the cookbook handles: every property typed, described, enums of strings."""
    return {"type": "function", "function": {"name": tool["name"], "description": tool["description"],
                                             "parameters": tool["inputSchema"]}}


def _is_flat(tool: dict) -> bool:
    props = tool["inputSchema"].get("properties")
    return isinstance(props, dict) and all(isinstance(p, dict) and "type" in p and "description" in p and "properties" not in p
               and p["type"] != "array" and all(isinstance(e, str) for e in p.get("enum", []))
               and isinstance(p["type"], str) for p in props.values())


@pytest.mark.parametrize("model,encoding", [("gpt-4o", "o200k_base"), ("gpt-4", "cl100k_base")])
def test_openai_rendering_equals_the_cookbook_method_on_flat_schemas(model, encoding):
    flat = [t for path in (OPS, DESK) for _, t in _raw_tools(path) if _is_flat(t)]
    assert len(flat) >= 8
    functions = [_flat(t) for t in flat]
    reg = ts.load(functions)
    table = ts.footprint(reg, render="openai", model=model)
    assert table.attrs["encoding"] == encoding
    assert request_total(table) == num_tokens_for_tools(functions, model)
    for f, tokens in zip(functions, tools_only(table)["tokens"], strict=True):
        assert tokens == num_tokens_for_tools([f], model) - 12  # func_end is per request
    overhead = table[table["kind"] == "overhead"]
    assert overhead["tokens"].tolist() == [12]


def test_openai_unknown_model_is_a_clear_error():
    with pytest.raises(ts.InputError, match="no OpenAI constants for model 'llama-3'"):
        ts.footprint(ts.load(DESK), render="openai", model="llama-3")


# --- anthropic ------------------------------------------------------------------------------------


@pytest.mark.parametrize("model,choice,overhead", [
    ("claude-sonnet-4-5", "auto", 346), ("claude-opus-4-1", "none", 346), ("claude-sonnet-4-5", "any", 313),
    ("claude-sonnet-4-5", "tool", 313), ("claude-3-5-haiku-latest", "auto", 264),
    ("claude-3-5-haiku-latest", "any", 340)])
def test_anthropic_overhead_is_counted_once_per_request(model, choice, overhead):
    for path in (DESK, OPS):
        table = ts.footprint(ts.load(path), render="anthropic", model=model, tool_choice=choice)
        rows = table[table["kind"] == "overhead"]
        assert rows["tokens"].tolist() == [overhead]
        tools_sum = sum(ntok(_json_string(t, "input_schema")) for _, t in _raw_tools(path))
        instr = table[table["kind"] == "instructions"]["tokens"].sum()
        assert request_total(table) == tools_sum + instr + overhead


def test_no_tools_means_no_overhead():
    empty = Registry({"s": Server("s")})
    for render in ("openai", "anthropic"):
        table = ts.footprint(empty, render=render)
        assert request_total(table) == 0 and len(table) == 0


def test_unknown_rendering_and_encoding_are_clear_errors():
    reg = ts.load(DESK)
    with pytest.raises(ts.InputError, match="unknown rendering 'xml'; expected one of: json"):
        ts.footprint(reg, render="xml")
    with pytest.raises(ts.InputError, match="unknown encoding 'nope'"):
        ts.footprint(reg, encoding="nope")
    with pytest.raises(ts.InputError, match="unknown tool_choice"):
        ts.footprint(reg, render="anthropic", tool_choice="maybe")


# --- summaries ------------------------------------------------------------------------------------


def test_by_server_summarises_the_tool_rows():
    table = ts.footprint(ts.load(OPS), render="anthropic")
    summary = by_server(table).set_index("server")
    per_tool = {}
    for s, t in _raw_tools(OPS):
        per_tool.setdefault(s, []).append(ntok(_json_string(t, "input_schema")))
    data = json.loads(OPS.read_text(encoding="utf-8"))
    total = request_total(table)
    assert set(summary.index) == set(per_tool)
    for s, counts in per_tool.items():
        instr = ntok(data["servers"][s].get("instructions", "")) if data["servers"][s].get("instructions") else 0
        assert summary.loc[s, "tools"] == len(counts)
        assert summary.loc[s, "tokens"] == sum(counts) + instr
        assert summary.loc[s, "median"] == pytest.approx(float(np.median(counts)))
        assert summary.loc[s, "p90"] == pytest.approx(float(np.percentile(counts, 90)))
        assert summary.loc[s, "share"] == pytest.approx((sum(counts) + instr) / total)
    # the overhead is the only thing not in a server
    assert summary["tokens"].sum() + 346 == total
    assert list(summary["tokens"]) == sorted(summary["tokens"], reverse=True)


def test_by_part_adds_up_to_the_request():
    table = ts.footprint(ts.load(OPS), render="anthropic")
    parts = by_part(table)
    assert parts["tokens"].sum() == request_total(table)
    assert parts["share"].sum() == pytest.approx(1.0)
    assert parts.set_index("part").loc["overhead", "tokens"] == 346


def test_table_records_how_it_was_measured():
    table = ts.footprint(ts.load(OPS), render="openai")
    a = table.attrs
    assert a["render"] == "openai" and a["model"] == "gpt-4o" and "gpt-4o family" in a["method"]
    assert a["sources"] == [str(OPS)]
    assert any("U+200B" in w for w in a["warnings"])


# --- a second, slow implementation of part attribution --------------------------------------------


def _labelled_json(value, part, out, top=False):
    """Compact JSON of `value` as (text, part) pieces, walking it key by key (the slow way)."""
    key_part = {"name": "name", "description": "description", "inputSchema": "schema"}
    if isinstance(value, dict):
        out.append(("{", "structure" if top else part))
        for i, (k, v) in enumerate(value.items()):
            if top:
                p = key_part.get(k, "other")
            elif part == "schema" and k == "description" and isinstance(v, str):
                p = "param_descriptions"
            else:
                p = part
            out.append((("," if i else "") + compact(k) + ":", p))
            _labelled_json(v, p, out)
        out.append(("}", "structure" if top else part))
    elif isinstance(value, list):
        out.append(("[", part))
        for i, v in enumerate(value):
            out.append(("," if i else "", part))
            _labelled_json(v, part, out)
        out.append(("]", part))
    else:
        out.append((compact(value), part))


def _slow_parts(tool: Tool) -> dict[str, int]:
    from _oracle import encoding

    obj = {"name": tool.name, **({"description": tool.description} if tool.description is not None else {}),
           "inputSchema": tool.input_schema}
    pieces = []
    _labelled_json(obj, "structure", pieces, top=True)
    labels = [p for text, p in pieces for _ in text.encode("utf-8")]  # one label per byte
    enc = encoding("o200k_base")
    out, offset = dict.fromkeys(PARTS[:-2], 0), 0
    for token in enc.encode("".join(t for t, _ in pieces), disallowed_special=()):
        out[labels[offset]] += 1
        offset += len(enc.decode_single_token_bytes(token))
    assert offset == len(labels)
    return out


@SETTINGS
@given(st.lists(tools(), min_size=1, max_size=3))
def test_part_attribution_equals_a_slow_byte_by_byte_implementation(tool_list):
    reg = Registry.from_tools(tool_list)
    table = tools_only(ts.footprint(reg))
    for tool, (_, row) in zip(reg, table.iterrows(), strict=True):
        assert {p: int(row[p]) for p in PARTS[:-2]} == _slow_parts(tool), tool.name


def test_part_attribution_on_the_samples_equals_the_slow_implementation():
    reg = ts.load(OPS, DESK)
    table = tools_only(ts.footprint(reg))
    for tool, (_, row) in zip(reg, table.iterrows(), strict=True):
        assert {p: int(row[p]) for p in PARTS[:-2]} == _slow_parts(tool), tool.name


def test_totals_only_table_has_no_part_breakdown():
    table = ts.footprint(ts.load(DESK), parts=False)
    assert table.attrs["parts"] is False
    with pytest.raises(ts.InputError, match="parts=False"):
        by_part(table)


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_token_byte_lengths_match_tiktoken_decoding(name):
    from _oracle import encoding

    from toolsurvey.measuring.parts import byte_lengths

    enc = encoding(name)
    expected = np.zeros(enc.n_vocab, dtype=np.int64)
    for i in range(enc.n_vocab):
        try:
            expected[i] = len(enc.decode_single_token_bytes(i))
        except KeyError:  # ids between the last rank and the special tokens
            pass
    assert (np.array(byte_lengths(name), dtype=np.int64) == expected).all()
