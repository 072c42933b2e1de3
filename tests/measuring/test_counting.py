"""Exact counts from the providers' endpoints, against an httpx.MockTransport speaking their wire formats
(tests/fake_providers.py): the client's real code, with only the wire replaced."""

import json
import subprocess
import sys

import pytest
from _mock_http import Hostile, route_httpx
from fake_providers import (
    KEY,
    TOOL_OVERHEAD,
    FakeProviders,
    Reply,
    compact,
    expected_count,
    route_clients,
    tokens,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsurvey.core.registry import Registry, Server, Tool
from toolsurvey.errors import InputError, ProviderError
from toolsurvey.measuring.counting.attribution import attribute, largest_remainder
from toolsurvey.measuring.counting.cache import Cache
from toolsurvey.measuring.counting.client import Client, _retry_after
from toolsurvey.measuring.counting.exact import dry_run, exact_footprint
from toolsurvey.measuring.counting.requests import plan

ENV = {"ANTHROPIC_API_KEY": KEY, "OPENAI_API_KEY": KEY, "GEMINI_API_KEY": KEY}
TARGETS = {"anthropic": "anthropic:claude-sonnet-4-5", "openai": "openai:gpt-5", "gemini": "gemini:gemini-2.5-flash"}


def make_tools():
    return [
        Tool("get_weather", "Current weather for a city, in Celsius.",
             {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}},
              "required": ["city"]}, server="weather"),
        Tool("search_tickets", "Search support tickets by text and status.",
             {"type": "object", "properties": {
                 "query": {"type": "string", "description": "Words to look for"},
                 "status": {"type": "string", "enum": ["open", "closed", "pending"]}}}, server="desk"),
        Tool("close_ticket", "Close a ticket.", {"type": "object", "properties": {"id": {"type": "integer"}}},
             server="desk"),
    ]


def make_registry(instructions=True):
    tools = make_tools()
    reg = Registry.from_tools(tools)
    if instructions:
        reg.servers["desk"] = Server("desk", reg.servers["desk"].tools, "Use the desk tools for tickets only.")
    return reg


def wire_tools(provider, tools):
    """The `tools` value each provider documents, written out here independently of formats.dump."""
    if provider == "anthropic":
        return [{"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in tools]
    if provider == "openai":
        return [{"type": "function", "name": t.name, "description": t.description, "parameters": t.input_schema}
                for t in tools]
    return [{"name": t.name, "description": t.description, "parametersJsonSchema": t.input_schema} for t in tools]


def base_for(fake, provider):
    return fake.url + ("/v1" if provider == "openai" else "")  # OpenAI's base URL includes /v1, as its SDK's


@pytest.fixture
def fake(monkeypatch):
    with FakeProviders() as f:
        route_clients(monkeypatch, f)
        yield f


def run(reg, provider, fake, tmp_path, **kw):
    kw.setdefault("environ", ENV)
    return exact_footprint(reg, TARGETS[provider], base=base_for(fake, provider), cache_dir=tmp_path / "cache",
                           **kw)


# --- attribution (pure) ----------------------------------------------------------------------------


def test_largest_remainder_by_hand():
    assert largest_remainder(10, [1, 1, 1]) == [4, 3, 3]
    assert largest_remainder(7, [5, 3, 2]) == [4, 2, 1]  # 3.5, 2.1, 1.4: the one unit left goes to .5
    assert largest_remainder(-7, [5, 3, 2]) == [-4, -2, -1]
    assert largest_remainder(5, [0, 0]) == [3, 2]
    assert largest_remainder(0, [3, 4]) == [0, 0]
    assert largest_remainder(3, []) == []


def test_attribute_recovers_overhead_and_tools_by_hand():
    # baseline 10, overhead 30, tools of 70, 20 and 5 tokens, no interaction
    a = attribute(10, [10 + 30 + 95], [110, 60, 45])
    assert (a.overhead, a.tools, a.whole, a.residual) == (30, [70, 20, 5], 125, 0)
    # the same registry counted in two parts (tools 1+2, tool 3): each part carries the overhead
    a = attribute(10, [10 + 30 + 90, 10 + 30 + 5], [110, 60, 45])
    assert (a.overhead, a.tools, a.whole) == (30, [70, 20, 5], 125)


def test_attribute_one_tool_uses_the_documented_overhead():
    a = attribute(4, [4 + 346 + 60], [4 + 346 + 60], documented_overhead=346)
    assert (a.overhead, a.tools) == (346, [60])
    a = attribute(4, [4 + 346 + 60], [4 + 346 + 60])
    assert (a.overhead, a.tools) == (0, [406])


@settings(max_examples=300, deadline=None)
@given(own=st.lists(st.integers(0, 2000), min_size=1, max_size=12), overhead=st.integers(0, 500),
       baseline=st.integers(1, 50), instr=st.lists(st.integers(0, 300), max_size=3),
       data=st.data())
def test_attribute_adds_up_exactly(own, overhead, baseline, instr, data):
    n = len(own)
    k = data.draw(st.integers(1, n))
    cuts = sorted(data.draw(st.lists(st.integers(1, max(1, n - 1)), min_size=k - 1, max_size=k - 1, unique=True))) \
        if n > 1 and k > 1 else []
    bounds = [0, *cuts, n]
    noise = data.draw(st.lists(st.integers(-3, 3), min_size=len(bounds) - 1, max_size=len(bounds) - 1))
    chunks = [baseline + overhead + sum(own[a:b]) + e + (sum(instr) if i == 0 else 0)
              for i, (a, b, e) in enumerate(zip(bounds, bounds[1:], noise, strict=False))]
    singles = [baseline + overhead + x for x in own]
    try:
        a = attribute(baseline, chunks, singles, [baseline + x for x in instr])
    except InputError as e:  # only for counts no endpoint gives: fewer tokens with tools than without
        assert "fewer tokens with the tools" in str(e) and min(noise) < 0
        return
    assert a.overhead + sum(a.tools) + sum(a.instructions) == a.whole
    assert a.whole == sum(c - baseline for c in chunks) - (len(chunks) - 1) * a.overhead
    assert min([a.overhead, *a.tools, *a.instructions]) >= 0
    if all(e == 0 for e in noise) and n > len(chunks):  # additive counts: everything is recovered
        assert a.overhead == overhead and a.tools == own and a.instructions == instr


def test_retry_after_forms():
    assert _retry_after({"retry-after": "3"}) == 3.0
    assert _retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert _retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # a date in the past
    assert _retry_after({}) is None and _retry_after({"retry-after": "soon"}) is None


# --- each provider end to end ---------------------------------------------------------------------------


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini"])
def test_exact_counts_match_the_server_and_add_up(provider, fake, tmp_path):
    reg = make_registry()
    table = run(reg, provider, fake, tmp_path)
    assert fake.invalid == []  # every request had the documented shape
    tools = reg.tools
    system = "Use the desk tools for tickets only."
    whole = expected_count(provider, wire_tools(provider, tools), system) - expected_count(provider, None, None)
    assert int(table["tokens"].sum()) == whole  # the whole-request figure, exactly
    parts = [c for c in table.columns if c not in ("server", "tool", "kind", "tokens")]
    assert (table[parts].sum(axis=1) == table["tokens"]).all()
    ex = table.attrs["exact"]
    assert ex["requests"] == 1 + 1 + len(tools) + 1 == ex["sent"]  # baseline, all tools, each alone, instructions
    over = table.loc[table["kind"] == "overhead", "tokens"].item()
    assert abs(over - TOOL_OVERHEAD[provider]) <= 3  # JSON list separators blur it by a token or two
    for t in tools:
        own = tokens(compact(wire_tools(provider, [t])), provider)
        got = table.loc[table["tool"] == t.name, "tokens"].item()
        assert abs(got - own) <= 4, (t.name, got, own)
    instr = table.loc[table["kind"] == "instructions", "tokens"].item()
    assert abs(instr - (2 + tokens(system, provider))) <= 2


def test_gemini_key_from_google_api_key_and_base_url_from_env(fake, tmp_path):
    env = {"GOOGLE_API_KEY": KEY, "GOOGLE_GEMINI_BASE_URL": fake.url}
    table = exact_footprint(make_registry(False), TARGETS["gemini"], cache_dir=tmp_path, environ=env)
    assert table.attrs["exact"]["url"].startswith(fake.url + "/v1beta/models/gemini-2.5-flash:countTokens")
    assert fake.count_for("gemini") == 5


def test_openai_base_url_from_env(fake, tmp_path):
    env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": fake.url + "/v1/"}
    table = exact_footprint(make_registry(False), TARGETS["openai"], cache_dir=tmp_path, environ=env)
    assert table.attrs["exact"]["sent"] == 5 and fake.invalid == []


# --- the cache ------------------------------------------------------------------------------------------


def test_second_run_sends_nothing_and_a_change_sends_only_what_changed(fake, tmp_path):
    reg = make_registry()
    first = run(reg, "anthropic", fake, tmp_path)
    sent = len(fake.requests)
    again = run(reg, "anthropic", fake, tmp_path)
    assert len(fake.requests) == sent  # nothing sent
    assert again.attrs["exact"]["sent"] == 0 and again.attrs["exact"]["cached"] == sent
    assert again["tokens"].tolist() == first["tokens"].tolist()
    changed = reg.map(lambda t: t if t.name != "close_ticket" else Tool(
        t.name, "Close a ticket for good.", t.input_schema, server=t.server))
    run(changed, "anthropic", fake, tmp_path)
    assert len(fake.requests) == sent + 2  # that tool alone, and the all-tools request
    other_model = exact_footprint(reg, "anthropic:claude-haiku-4-5", base=fake.url, cache_dir=tmp_path / "cache",
                                  environ=ENV)
    assert other_model.attrs["exact"]["sent"] == sent  # the model is part of the key


def test_no_cache_sends_everything_and_writes_nothing(fake, tmp_path):
    run(make_registry(), "openai", fake, tmp_path, use_cache=False)
    run(make_registry(), "openai", fake, tmp_path, use_cache=False)
    assert len(fake.requests) == 12
    assert not (tmp_path / "cache").exists()


def test_dry_run_counts_requests_and_needs_no_key(fake, tmp_path):
    reg = make_registry()
    info = dry_run(reg, TARGETS["anthropic"], base=fake.url, cache_dir=tmp_path / "cache", environ={})
    assert (info["requests"], info["to_send"], info["key_set"]) == (6, 6, False)
    run(reg, "anthropic", fake, tmp_path)
    info = dry_run(reg, TARGETS["anthropic"], base=fake.url, cache_dir=tmp_path / "cache", environ=ENV)
    assert (info["to_send"], info["cached"], info["key_set"]) == (0, 6, True)
    assert len(fake.requests) == 6  # the dry runs sent nothing


# --- failures ---------------------------------------------------------------------------------------------


def test_429_waits_as_retry_after_says(fake, tmp_path):
    waits = []
    fake.fail_next(Reply(429, {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}},
                         headers={"retry-after": "7"}))
    table = run(make_registry(), "anthropic", fake, tmp_path, sleep=waits.append, concurrency=1)
    assert waits == [7.0]
    assert table.attrs["exact"]["retries"] == 1 and len(fake.requests) == 7
    assert int(table["tokens"].sum()) > 0


def test_500_and_529_are_retried_with_backoff(fake, tmp_path):
    waits = []
    fake.fail_next(Reply(500, {"type": "error", "error": {"type": "api_error", "message": "oops"}}),
                   Reply(529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}))
    run(make_registry(False), "anthropic", fake, tmp_path, sleep=waits.append, concurrency=1, retries=3)
    assert len(waits) == 2 and all(0 < w <= 2 for w in waits)  # 0.5 s then 1 s, with jitter
    assert len(fake.requests) == 5 + 2


def test_gives_up_after_the_retries_and_says_why(fake, tmp_path):
    fake.fail_next(*[Reply(503, {"error": {"message": "unavailable", "type": "server_error"}})] * 3)
    with pytest.raises(ProviderError, match=r"gave up .* after 3 tries: HTTP 503 server_error: unavailable"):
        run(make_registry(False), "openai", fake, tmp_path, sleep=lambda s: None, concurrency=1, retries=2)


def test_timeouts_are_retried_then_reported(fake, tmp_path):
    fake.fail_next(Reply(200, {"input_tokens": 1}, delay=1.0))
    client = Client(TARGETS["anthropic"], base=fake.url, cache=Cache(tmp_path, False), timeout=0.2, retries=1,
                    sleep=lambda s: None, environ=ENV, transport=fake.transport)
    p = plan(make_registry(False), TARGETS["anthropic"])
    assert client.count([p.baseline]) == [expected_count("anthropic", None, None)]
    fake.fail_next(*[Reply(200, {"input_tokens": 1}, delay=1.0)] * 2)
    with pytest.raises(ProviderError, match=r"no answer within 0.2 s"):
        client.count([p.baseline])


@pytest.mark.parametrize("reply, expected", [
    (Reply(200, b'{"input_tokens": 1', content_type="application/json"), r"malformed JSON .*base URL"),
    (Reply(200, "<!doctype html><p>Sign in</p>", content_type="text/html"), r"text/html .*expected JSON"),
    (Reply(502, "<html>Bad gateway</html>", content_type="text/html"), r"gave up .* HTTP 502"),
    (Reply(200, {"tokens": 5}), r"without a non-negative integer 'input_tokens'"),
    (Reply(200, {"input_tokens": -1}), r"non-negative integer"),
])
def test_bad_answers_are_clear_errors(reply, expected, fake, tmp_path):
    fake.fail_next(*[reply] * 3)
    with pytest.raises(ProviderError, match=expected):
        run(make_registry(False), "anthropic", fake, tmp_path, sleep=lambda s: None, concurrency=1, retries=2)


def test_each_provider_is_read_at_its_own_answer_field(fake, tmp_path):
    fake.fail_next(*[Reply(200, {"input_tokens": 5})] * 3)  # Anthropic's and OpenAI's field, not Gemini's
    with pytest.raises(ProviderError, match=r"without a non-negative integer 'totalTokens'"):
        run(make_registry(False), "gemini", fake, tmp_path, sleep=lambda s: None, concurrency=1, retries=2)


def test_html_from_a_wrong_base_url(fake, tmp_path):
    with pytest.raises(ProviderError, match=r"404 with text/html .*--base-url or ANTHROPIC_BASE_URL"):
        exact_footprint(make_registry(), TARGETS["anthropic"], base=fake.url + "/wrong", cache_dir=tmp_path,
                        environ=ENV)


@pytest.mark.parametrize("provider, env, names", [
    ("anthropic", {}, "ANTHROPIC_API_KEY"), ("openai", {"OPENAI_API_KEY": "  "}, "OPENAI_API_KEY"),
    ("gemini", {}, "GEMINI_API_KEY or GOOGLE_API_KEY")])
def test_no_key_names_the_variable_and_sends_nothing(provider, env, names, fake, tmp_path):
    with pytest.raises(ProviderError, match=f"set {names} in the environment"):
        run(make_registry(), provider, fake, tmp_path, environ=env)
    assert fake.requests == []


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini"])
def test_a_refused_key_is_named_and_never_shown(provider, fake, tmp_path):
    wrong = "sk-wrong-SECRET-abcdef0123456789"
    env = {v: wrong for v in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY")}
    with pytest.raises(ProviderError) as e:
        run(make_registry(), provider, fake, tmp_path, environ=env)
    assert "refused the key in" in str(e.value) and wrong not in str(e.value)
    assert e.value.__cause__ is None and e.value.__context__ is None  # no chained exception keeps it either


@pytest.mark.parametrize("target, expected", [
    ("mistral:large", r"unknown provider 'mistral'.*anthropic, openai, gemini"),
    ("anthropic", r"no model in 'anthropic'"),
    ("openai:", r"no model"),
    ("openai:gpt 5", r"has a space"),
])
def test_bad_targets(target, expected):
    with pytest.raises(InputError, match=expected):
        plan(make_registry(), target)


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini"])
def test_unknown_model_is_named(provider, fake, tmp_path):
    target = TARGETS[provider].split(":")[0] + ":no-such-model"
    with pytest.raises(InputError, match=r"does not know model 'no-such-model'"):
        exact_footprint(make_registry(), target, base=base_for(fake, provider), cache_dir=tmp_path, environ=ENV)


# --- registries too large for one request --------------------------------------------------------------


def big_registry(n=12):
    return Registry.from_tools([Tool(f"tool_{i}", f"Tool number {i} does a thing with widgets. " * 5,
                                     {"type": "object", "properties": {"x": {"type": "string"}}})
                                for i in range(n)])


def test_split_before_sending_when_over_the_size_limit(fake, tmp_path):
    reg = big_registry()
    single = len(json.dumps(plan(reg, TARGETS["anthropic"]).singles[0].body, separators=(",", ":")).encode())
    table = run(reg, "anthropic", fake, tmp_path, max_body_bytes=single * 4)
    ex = table.attrs["exact"]
    assert ex["parts"] >= 3 and "too large for one request; counted in" in table.attrs["method"]
    assert max(r["bytes"] for r in fake.requests) <= single * 4
    whole = expected_count("anthropic", wire_tools("anthropic", reg.tools), None) - expected_count("anthropic", None, None)
    assert int(table["tokens"].sum()) == ex["whole"]
    assert abs(ex["whole"] - whole) <= ex["parts"] * 2  # only the parts' list separators differ


def test_split_when_the_endpoint_refuses_the_size(tmp_path, monkeypatch):
    reg = big_registry()
    with FakeProviders(max_body_bytes=2500) as fake:
        route_clients(monkeypatch, fake)
        table = run(reg, "anthropic", fake, tmp_path)
        refused = [r for r in fake.requests if r["bytes"] > 2500]
    ex = table.attrs["exact"]
    assert refused and ex["parts"] >= 2
    assert any("refused a request for its size; split into" in s for s in ex["splits"])
    assert int(table["tokens"].sum()) == ex["whole"]


def test_greedy_parts_by_hand():
    from toolsurvey.measuring.counting.requests import _chunks

    # a tool-less body of 10 bytes, tools adding 5 each, parts of at most 20 bytes: two tools a part
    assert _chunks([5, 5, 5, 5, 5], 0, 10, 20) == [(0, 2), (2, 4), (4, 5)]
    assert _chunks([5, 5, 5], 6, 10, 20) == [(0, 1), (1, 3)]  # the first part also carries 6 bytes of instructions
    assert _chunks([50, 1], 0, 10, 20) == [(0, 1), (1, 2)]  # one tool always makes a part
    assert _chunks([1, 1], 0, 10, 10**6) == [(0, 2)]


def test_a_single_tool_over_the_limit_is_named(fake):
    reg = big_registry(2)
    with pytest.raises(InputError, match=r"tool 'default/tool_0' alone makes a .*-byte request"):
        plan(reg, TARGETS["anthropic"], max_body_bytes=300)


def test_progress_is_reported(fake, tmp_path):
    seen = []
    run(make_registry(), "gemini", fake, tmp_path, progress=lambda *a: seen.append(a))
    assert seen[-1][:2] == (6, 6) and seen[-1][2] == 6


def test_importing_counting_does_not_import_httpx():
    modules = ", ".join(f"toolsurvey.measuring.counting.{m}" for m in ("requests", "cache", "client", "attribution", "exact"))
    code = f"import sys, {modules}, toolsurvey.measuring.calibration; print('httpx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@settings(max_examples=300, deadline=None)
@given(total=st.integers(-10_000, 10_000), weights=st.lists(st.integers(0, 5_000), min_size=1, max_size=20))
def test_largest_remainder_is_exact_and_fair(total, weights):
    got = largest_remainder(total, weights)
    assert sum(got) == total
    w = weights if sum(weights) else [1] * len(weights)
    for g, x in zip(got, w, strict=True):
        assert abs(g - total * x / sum(w)) < 1  # never a whole token away from its exact share


@pytest.mark.parametrize("path, headers, body, problem", [
    ("/v1/messages/count_tokens", {"x-api-key": KEY},
     {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "Hi"}]}, "anthropic-version"),
    ("/v1/messages/count_tokens", {"x-api-key": KEY, "anthropic-version": "2023-06-01"},
     {"model": "claude-sonnet-4-5", "messages": [], "tools": []}, "messages"),
    ("/v1/messages/count_tokens", {"x-api-key": KEY, "anthropic-version": "2023-06-01"},
     {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "Hi"}],
      "tools": [{"name": "x", "inputSchema": {}}]}, "tools[]"),
    ("/v1/responses/input_tokens", {"authorization": f"Bearer {KEY}"},
     {"model": "gpt-5", "input": "Hi", "tools": [{"type": "function", "function": {"name": "x"}}]}, "tools[]"),
    ("/v1beta/models/gemini-2.5-flash:countTokens", {"x-goog-api-key": KEY},
     {"contents": [], "generateContentRequest": {}}, "exactly one"),
    ("/v1beta/models/gemini-2.5-flash:countTokens", {"x-goog-api-key": KEY},
     {"generateContentRequest": {"model": "gemini-2.5-flash", "contents": [{"parts": [{"text": "Hi"}]}]}},
     "models/{model}"),
])
def test_the_fake_rejects_what_the_documentation_rejects(path, headers, body, problem, fake):
    import httpx

    with httpx.Client(transport=fake.transport) as http:
        r = http.post(fake.url + path, json=body, headers=headers)
    assert r.status_code == 400 and problem in r.json()["error"]["message"]
    assert fake.invalid and problem in fake.invalid[-1]


def test_progress_lines_on_a_pipe():
    import io

    from toolsurvey.cli._counting import Progress

    out = io.StringIO()
    p = Progress(out)
    for done in range(0, 41):
        p(done, 40, done, 0)
    lines = out.getvalue().splitlines()
    assert lines[-1] == "counting: 40/40 requests (0 cached, 40 sent)" and 4 <= len(lines) <= 5
    quiet = io.StringIO()
    Progress(quiet)(3, 3, 3, 0)  # short runs say nothing
    assert quiet.getvalue() == ""


@pytest.mark.timeout(60)
def test_a_fatal_error_ends_the_pauses_of_the_other_requests(fake, tmp_path):
    # one request is told to wait 250 s, another meets a refused key: the run ends at once, not in 250 s
    refused = {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}
    fake.fail_next(Reply(429, {"type": "error", "error": {"type": "rate_limit_error", "message": "wait"}},
                         headers={"retry-after": "250"}), Reply(401, refused, delay=0.3))
    with pytest.raises(ProviderError, match="refused the key"):
        run(make_registry(), "anthropic", fake, tmp_path, concurrency=2)


# --- hostile endpoints (tests/_mock_http.py's Hostile), through the CLI ---------------------------

@pytest.fixture
def hostile_count(cli, monkeypatch, tmp_path):
    """`footprint --count-with` against a base URL of Hostile's: the exit code, the standard error and
    the Hostile (whose `pulled` says how much was read)."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    registry = tmp_path / "tools.json"
    registry.write_text(json.dumps({"tools": [{"name": "lookup", "description": "Look up one customer by id.",
                                               "inputSchema": {"type": "object"}}]}))

    def count(path: str, **kw):
        hostile = Hostile(**kw)
        route_httpx(monkeypatch, hostile)
        code, _, err = cli("footprint", registry, "--count-with", "anthropic:claude-sonnet-4-5", "--base-url",
                           f"https://hostile.test/{path}", "--timeout", "1", "--retries", "0", "--no-cache")
        assert code == 2 and "Traceback" not in err and KEY not in err, err[-2000:]
        assert all(line.startswith("  ") for line in err.strip().splitlines()[1:])  # one line, maybe wrapped
        return " ".join(err.split()), hostile  # the line may be wrapped to 100 columns
    return count


def test_counting_refuses_a_huge_content_length(hostile_count):
    err, hostile = hostile_count("huge-length")
    assert "announced 2,147,483,648 bytes (Content-Length)" in err and hostile.pulled == 0


def test_counting_stops_an_endless_answer_at_the_cap(hostile_count):
    err, hostile = hostile_count("endless")
    assert "sent more than 1,048,576 bytes; stopped reading" in err
    assert hostile.read and max(hostile.read) <= 2**20 + len(Hostile.CHUNK)  # each answer: one chunk past the cap


def test_counting_gives_up_on_a_trickle_at_the_timeout(hostile_count):
    err, hostile = hostile_count("trickle", period=0.1)  # no read waits 1 s; the whole answer is late
    assert "no answer within 1 s (the whole answer" in err and max(hostile.read) < hostile.limit_trickle
