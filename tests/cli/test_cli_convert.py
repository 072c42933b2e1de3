"""`toolsurvey convert`: every format written by the CLI loads back to the same tools."""

import json

import pytest
from conftest import ROOT

from toolsurvey import load
from toolsurvey.inputs.formats import FORMATS

SAMPLE = ROOT / "data/registries/formats/mcp_result.json"


@pytest.mark.parametrize("fmt", FORMATS)
def test_converted_file_loads_back_to_the_same_tools(cli, tmp_path, fmt):
    out = tmp_path / f"tools.{fmt}.json"
    code, _, err = cli("convert", SAMPLE, "--to", fmt, "-o", out)
    assert code == 0, err
    before, after = load(SAMPLE).tools, load(out).tools
    assert [(t.name, t.description, t.input_schema) for t in after] == \
           [(t.name, t.description, t.input_schema) for t in before]


def test_openai_chat_output_has_the_documented_shape(cli):
    code, out, _ = cli("convert", SAMPLE, "--to", "openai-chat")
    tools = json.loads(out)
    assert code == 0 and all(t["type"] == "function" and "parameters" in t["function"] for t in tools)


def test_several_servers_are_flattened_with_a_note(cli):
    reg = ROOT / "data/registries/support_desk.json"
    code, out, err = cli("convert", reg, "--to", "anthropic")
    assert code == 0 and "flattened" in err
    assert len(json.loads(out)) == len(load(reg))


def test_unknown_format_is_a_usage_error(cli):
    code, out, err = cli("convert", SAMPLE, "--to", "yaml")
    assert code == 2 and out == "" and "invalid choice: 'yaml'" in err and len(err.splitlines()) == 1
