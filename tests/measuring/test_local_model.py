"""The local test model (tests/_local_model.py) answers the official `openai` SDK in the Chat
Completions wire format, through the counting proxy.

The server is real (llama-cpp-python's) and so is the model (Gemma 3 270M, a base model), but the
model's choices say nothing about how well any user's agent picks tools: these tests check the
shape of what comes back, never whether the tool is the right one.

Oracles: the facts of the request (the names offered, tool_choice) and the proxy's own count.
"""

import json

import pytest
from conftest import DATA

openai = pytest.importorskip("openai")

CATALOG_QUERY = "which team owns the payments-api service?"


@pytest.fixture(scope="module")
def catalog_tools(tmp_path_factory):
    """The sample registry's catalog server (9 tools), converted by toolsurvey to Chat Completions tools."""
    import toolsurvey as ts
    from toolsurvey.inputs.formats import dump

    sample = json.loads((DATA / "registries" / "ops_assistant.json").read_text("utf-8"))
    path = tmp_path_factory.mktemp("catalog") / "catalog.json"
    path.write_text(json.dumps({"servers": {"catalog": sample["servers"]["catalog"]}}), "utf-8")
    return dump(ts.load(path), "openai-chat")


def client(m):
    return openai.OpenAI(base_url=m.base_url, api_key="unused", timeout=300, max_retries=0)


def test_a_tool_call_or_text_in_the_documented_shape(local_model, catalog_tools):
    before = local_model.proxy.count()
    r = client(local_model).chat.completions.create(
        model=local_model.model, messages=[{"role": "user", "content": CATALOG_QUERY}],
        tools=catalog_tools, temperature=0)
    offered = {t["function"]["name"] for t in catalog_tools}
    msg = r.choices[0].message
    if msg.tool_calls:
        assert r.choices[0].finish_reason in ("tool_calls", "length")
        assert [c.function.name for c in msg.tool_calls][0] in offered
        assert msg.tool_calls[0].function.arguments.startswith("{")
    else:
        assert isinstance(msg.content, str)
    assert r.usage.prompt_tokens > 100  # the tools reached the prompt
    assert local_model.proxy.count() == before + 1
    sent = local_model.proxy.requests()[-1].json()
    assert [t["function"]["name"] for t in sent["tools"]] == [t["function"]["name"] for t in catalog_tools]


def test_tool_choice_none_and_named_are_obeyed(local_model, catalog_tools):
    c = client(local_model)
    ask = dict(model=local_model.model, messages=[{"role": "user", "content": CATALOG_QUERY}],
               tools=catalog_tools, temperature=0, max_tokens=8)
    text = c.chat.completions.create(tool_choice="none", **ask).choices[0].message
    assert text.tool_calls is None and isinstance(text.content, str)
    name = catalog_tools[-1]["function"]["name"]
    forced = c.chat.completions.create(tool_choice={"type": "function", "function": {"name": name}}, **ask)
    assert [t.function.name for t in forced.choices[0].message.tool_calls] == [name]
    with pytest.raises(openai.APIStatusError):  # a name that was not offered is refused, not guessed
        c.chat.completions.create(tool_choice={"type": "function", "function": {"name": "nope"}}, **ask)


def test_the_proxy_records_every_request_it_forwards(local_model):
    with openai.OpenAI(base_url=local_model.base_url, api_key="unused", max_retries=0) as c:
        before = len(local_model.proxy.records)
        assert local_model.model in [m.id for m in c.models.list().data]
    rec = local_model.proxy.records[before]
    assert (rec.method, rec.path, rec.status) == ("GET", "/v1/models", 200)
    assert json.loads(rec.body or "null") is None


def test_the_server_stops_even_when_the_test_using_it_fails(tmp_path):
    import psutil
    from _local_model import need, serve

    need()
    with pytest.raises(RuntimeError, match="a failing test"), serve(tmp_path / "server.log") as m:
        assert psutil.Process(m.pid).is_running()
        raise RuntimeError("a failing test")
    assert not psutil.pid_exists(m.pid)
