"""The clients' rules as documented: Claude Code's ENABLE_TOOL_SEARCH modes, Codex deferring every MCP
tool for the models that support OpenAI's tool_search, the clients' own tool limits, and the names Codex
and Gemini CLI rewrite."""

from __future__ import annotations

import pytest

from toolsurvey.errors import InputError
from toolsurvey.providers.clients import (
    client_limit_problems,
    client_names,
    client_rules,
    client_tool_name,
    tool_search,
    vscode_tool_name,
    vscode_tool_prefixes,
)

WINDOW = 200_000


def cc(env: dict, tokens: int = 30_000, model: str = "claude-sonnet-4-5"):
    return tool_search("claude-code", model=model, environ=env, mcp_tokens=tokens, context_window=WINDOW)


@pytest.mark.parametrize("env,deferred", [
    ({}, True),                                   # unset: always on (the default since tool search became default)
    ({"ENABLE_TOOL_SEARCH": "true"}, True),
    ({"ENABLE_TOOL_SEARCH": "1"}, True),
    ({"ENABLE_TOOL_SEARCH": "false"}, False),
    ({"ENABLE_TOOL_SEARCH": "0"}, False),
    # auto: deferred above 10% of the window, 10% of 200,000 = 20,000 tokens; 30,000 > 20,000
    ({"ENABLE_TOOL_SEARCH": "auto"}, True),
    # auto:20 -> 40,000 tokens; 30,000 is below, so the tools stay loaded
    ({"ENABLE_TOOL_SEARCH": "auto:20"}, False),
    ({"ENABLE_TOOL_SEARCH": "auto:0"}, True),      # 0% -> any MCP tool defers
    # a gateway that is not Anthropic's turns tool search off, unless the variable is set
    ({"ANTHROPIC_BASE_URL": "https://gateway.example.com/v1"}, False),
    ({"ANTHROPIC_BASE_URL": "https://gateway.example.com/v1", "ENABLE_TOOL_SEARCH": "true"}, True),
    ({"ANTHROPIC_BASE_URL": "https://api.anthropic.com"}, True),
])
def test_claude_code_tool_search_setting(env, deferred):
    assert cc(env).deferred is deferred


def test_auto_threshold_is_the_percentage_of_the_window():
    assert cc({"ENABLE_TOOL_SEARCH": "auto"}).threshold == 20_000       # 10% of 200,000
    assert cc({"ENABLE_TOOL_SEARCH": "auto:5"}).threshold == 10_000     # 5% of 200,000
    assert cc({"ENABLE_TOOL_SEARCH": "auto"}, tokens=20_000).deferred is False  # defers only above it
    assert cc({"ENABLE_TOOL_SEARCH": "auto"}, tokens=20_001).deferred is True


@pytest.mark.parametrize("value", ["maybe", "auto:101", "auto:-1", "auto:x"])
def test_a_setting_claude_code_does_not_accept_is_an_error(value):
    with pytest.raises(InputError, match="ENABLE_TOOL_SEARCH.*expected unset, true, false, auto or auto:N"):
        cc({"ENABLE_TOOL_SEARCH": value})


def test_a_model_without_tool_search_loads_every_tool():
    r = cc({}, model="claude-3-haiku-20240307")
    assert r.deferred is False and "does not support" in r.why


def test_codex_defers_for_the_models_that_support_tool_search():
    def codex(model):
        return tool_search("codex", model=model, environ={}, mcp_tokens=1, context_window=WINDOW).deferred
    assert codex("gpt-5.4") and codex("gpt-5.5")
    assert not codex("gpt-4.1") and not codex("gpt-5")


@pytest.mark.parametrize("client", ["vscode", "cursor", "windsurf", "gemini-cli", "claude-desktop"])
def test_clients_without_tool_search_load_everything(client):
    assert not tool_search(client, model="gpt-5.5", environ={"ENABLE_TOOL_SEARCH": "true"}, mcp_tokens=10**6,
                           context_window=WINDOW).deferred


@pytest.mark.parametrize("client,most", [("vscode", 128), ("cursor", 40), ("windsurf", 100)])
def test_client_tool_limits_flag_one_over(client, most):
    assert client_limit_problems(client, most) == []
    [line] = client_limit_problems(client, most + 1)
    assert f"{most + 1:,} MCP tools" in line and str(most) in line and client_rules(client)["as_of"] in line


def test_every_client_names_its_source_and_date():
    assert len(client_names()) == 7
    for name in client_names():
        rules = client_rules(name)
        assert rules["source"] and rules["url"].startswith("https://") and rules["as_of"]
        assert rules.get("max_tools") is None or rules["limit_source"]


def test_an_unknown_client_lists_the_known_ones():
    with pytest.raises(InputError, match="expected one of: claude-code, codex"):
        client_rules("emacs")


# Oracles: the clients' own tests (Claude Code: the examples public readings of normalizeNameForMCP
# give). Codex: codex-rs/core/src/mcp_connection_manager.rs,
# test_qualify_tools_long_names_same_server; Gemini CLI: packages/core/src/tools/mcp-tool.test.ts,
# describe('generateValidName').
@pytest.mark.parametrize("client,name,sent", [
    ("codex", "mcp__my_server__extremely_lengthy_function_name_that_absolutely_surpasses_all_reasonable_limits",
     "mcp__my_server__extremel119a2b97664e41363932dc84de21e2ff1b93b3e9"),
    ("codex", "mcp__my_server__yet_another_extremely_lengthy_function_name_that_absolutely_surpasses_all_"
              "reasonable_limits", "mcp__my_server__yet_anot419a82a89325c1b477274a41f8c65ea5f3a7f341"),
    ("codex", "mcp__server1__tool1", "mcp__server1__tool1"),
    ("gemini-cli", "myFunction", "mcp_myFunction"),
    ("gemini-cli", "invalid-name with spaces", "mcp_invalid-name_with_spaces"),
    ("gemini-cli", "x" * 80, "mcp_xxxxxxxxxxxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    ("gemini-cli", "!@#$%^&*()", "mcp___________"),
    ("gemini-cli", "namespace:tool", "mcp_namespace:tool"),
    ("claude-code", "mcp__s__" + "t" * 70, "mcp__s__" + "t" * 70),  # Claude Code does not shorten it
    # normalizeNameForMCP: 'git_diff-tool' kept, 'my server.v2' -> 'my_server_v2', 'a/b:c' -> 'a_b_c'
    ("claude-code", "mcp__my server.v2__a/b:c", "mcp__my_server_v2__a_b_c"),
    ("claude-code", "mcp__git_diff-tool__x", "mcp__git_diff-tool__x"),
])
def test_client_tool_names_as_the_clients_own_tests_expect(client, name, sent):
    assert client_tool_name(client, name) == sent


@pytest.mark.parametrize("length", [63, 64, 80])
def test_gemini_cli_names_end_at_63_characters(length):
    assert len(client_tool_name("gemini-cli", "a" * length)) == 63  # with its mcp_ prefix


# Oracle: VS Code's own tests, src/vs/workbench/contrib/mcp/test/common/mcpPrefixGenerator.test.ts
def test_vscode_prefixes_as_its_own_tests_expect():
    assert vscode_tool_prefixes({"a": "Context7"}) == {"a": "mcp_context7_"}
    assert vscode_tool_prefixes({"a": "foo", "b": "foo", "c": "foo", "d": "bar"}) == {
        "a": "mcp_foo_", "b": "mcp_foo2_", "c": "mcp_foo3_", "d": "mcp_bar_"}
    assert list(vscode_tool_prefixes({"a": "My Server", "b": "my server", "c": "my/server"}).values()) == [
        "mcp_my_server_", "mcp_my_server2_", "mcp_my_server3_"]
    [long] = vscode_tool_prefixes({"a": "io.github.upstash/context7"}).values()
    assert long.startswith("mcp_") and len(long) <= 18
    many = vscode_tool_prefixes({str(i): "a" * 18 for i in range(12)}).values()
    assert len(set(many)) == 12 and all(p.endswith("_") and len(p) <= 18 for p in many)


def test_vscode_tool_names_are_cleaned_and_cut_at_64():
    assert vscode_tool_name("mcp_memory-server_", "create_entities") == "mcp_memory-server_create_entities"
    assert vscode_tool_name("mcp_io.github.ups_", "get.docs v2") == "mcp_io_github_ups_get_docs_v2"
    assert len(vscode_tool_name("mcp_x_", "t" * 80)) == 64
