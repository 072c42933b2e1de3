"""The session model fitted to traces and checked against their bill: sessions written here whose usage
follows the model's rules exactly are fitted back to the sizes they were written with, and priced to
the cent from their own structure, in-sample and leaving one session out."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from _public_data import absent_reason, shared_path

import toolsurvey as ts
from toolsurvey.errors import InputError
from toolsurvey.model.fit import fit_details

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SONNET, HAIKU = "claude-sonnet-4-5", "claude-haiku-4-5"


class Writer:
    """Claude Code lines for one thread: prompts, and requests whose usage is given."""

    def __init__(self, session: str, agent: str = ""):
        self.session, self.agent, self.lines, self.n = session, agent, [], 0

    def _base(self, t: float) -> dict:
        self.n += 1
        extra = {"agentId": self.agent, "isSidechain": True} if self.agent else {}
        return {"sessionId": self.session, "uuid": f"{self.session}-{self.agent}-{self.n}",
                "timestamp": (T0 + timedelta(seconds=t)).isoformat().replace("+00:00", "Z"), **extra}

    def prompt(self, t: float, text: str = "go on") -> Writer:
        self.lines.append({**self._base(t), "type": "user", "message": {"role": "user", "content": text}})
        return self

    def request(self, t: float, model: str, *, write: int, read: int = 0, out: int, hour: bool = False,
                calls: int = 0) -> Writer:
        """A request whose usage is given, making `calls` tool calls (in parallel) on its line."""
        usage = {"input_tokens": 0, "cache_creation_input_tokens": write, "cache_read_input_tokens": read,
                 "output_tokens": out, "cache_creation": {"ephemeral_5m_input_tokens": 0 if hour else write,
                                                          "ephemeral_1h_input_tokens": write if hour else 0}}
        base = self._base(t)
        uses = [{"type": "tool_use", "id": f"{base['uuid']}-call-{i}", "name": "Read", "input": {"file_path": f"f{i}"}}
                for i in range(calls)]
        self.lines.append({**base, "type": "assistant", "requestId": f"req-{self.session}-{self.agent}-{self.n}",
                           "message": {"model": model, "content": [{"type": "text", "text": "ok"}, *uses],
                                       "usage": usage}})
        return self

    def compaction(self, t: float, pre: int) -> Writer:
        self.lines.append({**self._base(t), "type": "system", "subtype": "compact_boundary",
                           "compactMetadata": {"trigger": "auto", "preTokens": pre}})
        return self

    def save(self, path):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(x) + "\n" for x in self.lines))


def two_turns(session: str, hour: bool = False) -> Writer:
    """Two turns written as the model has them: a 5,000-token start (a 4,800-token prefix and a
    200-token prompt), calls of 100 output tokens whose results add 1,000, answers of 50, and a next
    prompt of 200 after 600 s of thought (longer than a 5-minute cache lives, shorter than an hour)."""
    w = Writer(session).prompt(0, "fix the bug")
    w.request(5, SONNET, write=5000, out=100, hour=hour)                  # cold: all written
    w.request(15, SONNET, write=1100, read=5000, out=100, hour=hour)      # + 100 + 1,000
    w.request(25, SONNET, write=1100, read=6100, out=50, hour=hour)       # the answer
    w.prompt(625)
    if hour:  # the 1-hour cache outlived the think time: the history is read
        w.request(630, SONNET, write=250, read=7200, out=100, hour=True)  # 7,200 + 50 + 200 = 7,450
    else:     # expired: everything is written again
        w.request(630, SONNET, write=7450, read=0, out=100)
    return w.request(640, SONNET, write=1100, read=7450, out=50, hour=hour)


@pytest.fixture
def traces(tmp_path):
    """Two sessions of two_turns; the first also starts a haiku subagent of two requests."""
    for s in ("s1", "s2"):
        two_turns(s).save(tmp_path / f"{s}.jsonl")
    sub = Writer("s1", "a1").prompt(8, "explore the auth module")
    sub.request(9, HAIKU, write=5000, out=30).request(12, HAIKU, write=530, read=5000, out=60)  # + 30 + 500
    sub.save(tmp_path / "s1" / "subagents" / "agent-a1.jsonl")
    return ts.load_traces(tmp_path, engine="python")


# The bill of one two_turns session at Claude Sonnet 4.5's prices ($3.75 5-minute and $6 1-hour writes,
# $0.30 reads, $15 output per million): writes 5,000 + 1,100 + 1,100 + 7,450 + 1,100 = 15,750 x 3.75 =
# 59,062.5; reads 5,000 + 6,100 + 7,450 = 18,550 x 0.30 = 5,565; output 400 x 15 = 6,000.
SESSION = (59_062.5 + 5_565 + 6_000) / 1e6
# The subagent at Claude Haiku 4.5's ($1.25 writes, $0.10 reads, $5 output): 5,530 x 1.25 + 5,000 x 0.10 + 90 x 5.
SUBAGENT = (5_530 * 1.25 + 5_000 * 0.10 + 90 * 5) / 1e6


def test_the_fit_reads_back_the_sizes_and_structure_the_sessions_were_written_with(traces):
    d = fit_details(traces)
    m = d["main"]
    assert (m["prefix"], m["user_message_tokens"], m["response_tokens"]) == (5000, 200, 1000)
    assert (m["call_tokens"], m["answer_tokens"]) == (100, 50)
    assert m["growth_by_step"] == (1.0, 1.0, 1.0)  # every result adds the same, wherever it comes
    assert (m["cache_1h_share"], m["prefix_hit"], m["cache_miss"], m["prompt_cache_miss"]) == (0, 0, 0, 0)
    assert d["turns"] == 2 and d["steps"] == (3.0, 2.0, 3.0, 2.0) and d["think_time"] == 605
    assert d["caching"] == "incremental" and d["compaction_at"] is None
    (sub,) = d["subagents"]
    assert (sub.model, sub.count, sub.steps.expected(), sub.system_prompt_tokens) == (HAIKU, 0.5, 2, 5000)
    assert (sub.response_tokens.expected(), sub.call_tokens, sub.answer_tokens) == (500, 30, 60)
    sc = ts.fit_scenario(traces)
    assert sc.system_prompt_tokens == 4800 and sc.is_session()


def test_compare_prices_each_session_from_its_structure_to_the_cent(traces):
    table = ts.compare(traces)
    by = table.set_index("session")
    assert by.loc["s1", "billed"] == pytest.approx(SESSION + SUBAGENT, abs=1e-12)
    assert by.loc["s1", "simulated"] == pytest.approx(SESSION + SUBAGENT, abs=1e-12)
    assert by.loc["s2", "simulated"] == pytest.approx(SESSION, abs=1e-12)
    assert abs(table.attrs["total_error"]) < 1e-12
    # sessions of 7 and 5 requests: the per-session figure is on a line of its own, not in the median
    short = table.attrs["short_sessions"]
    assert short["count"] == 2 and short["median_abs_error"] < 1e-12 and table.attrs["median_abs_error"] != 0
    assert table.attrs["sessions"].startswith("no session of 10+ requests; 2 shorter session(s)")
    assert all(abs(v) < 1e-12 for k, v in table.attrs["component_errors"].items() if k != "uncached")
    assert "within 0.0%" in table.attrs["verdict"]


def test_leaving_a_session_out_fits_it_from_the_other(traces):
    # s2 is predicted from s1 alone and s1 from s2 alone; the sessions are alike, so the main threads
    # are priced exactly; s1's subagent, fitted from s2 (which has none), takes the main agent's sizes.
    table = ts.compare(traces, cv=True)
    by = table.set_index("session")
    assert by.loc["s2", "simulated"] == pytest.approx(SESSION, abs=1e-12)
    assert by.loc["s1", "simulated"] > SESSION and "leaving each session out" in table.attrs["verdict"]
    assert table.attrs["cv"] is True
    with pytest.raises(InputError, match="not both"):
        ts.compare(traces, ts.fit_scenario(traces), cv=True)


def test_one_hour_writes_and_a_cache_that_outlives_the_think_time(tmp_path):
    two_turns("h1", hour=True).save(tmp_path / "h1.jsonl")
    two_turns("h2", hour=True).save(tmp_path / "h2.jsonl")
    tr = ts.load_traces(tmp_path, engine="python")
    sc = ts.fit_scenario(tr)
    assert sc.cache_1h_share == 1.0
    # writes 5,000 + 1,100 + 1,100 + 250 + 1,100 = 8,550 x 6; reads 5,000 + 6,100 + 7,200 + 7,450 = 25,750 x 0.30
    billed = (8_550 * 6 + 25_750 * 0.30 + 400 * 15) / 1e6
    table = ts.compare(tr)
    assert table.iloc[-1]["billed"] == pytest.approx(2 * billed, abs=1e-12)
    assert table.iloc[-1]["simulated"] == pytest.approx(2 * billed, abs=1e-12)
    with pytest.raises(InputError, match="at least two sessions"):
        ts.compare(ts.load_traces(tmp_path / "h1.jsonl", engine="python"), cv=True)


def test_a_what_if_prices_the_traced_sessions_again_under_another_cache_lifetime(tmp_path):
    # The sessions were written with 1-hour writes; asked what a 5-minute cache would have cost, the
    # model keeps their structure (the 605 s before the second turn now outlives the cache: its first
    # request writes all 7,450 again) and prices it at $3.75: the bill of two_turns with a 5-minute
    # cache, SESSION. The bill itself stays what was billed.
    two_turns("h1", hour=True).save(tmp_path / "h1.jsonl")
    two_turns("h2", hour=True).save(tmp_path / "h2.jsonl")
    tr = ts.load_traces(tmp_path, engine="python")
    billed = (8_550 * 6 + 25_750 * 0.30 + 400 * 15) / 1e6
    table = ts.compare(tr, cache_1h_share=0.0)
    assert table.iloc[-1]["billed"] == pytest.approx(2 * billed, abs=1e-12)
    assert table.iloc[-1]["simulated"] == pytest.approx(2 * SESSION, abs=1e-12)
    # And the other way: sessions billed with a 5-minute cache, priced with a 1-hour one.
    for s in ("m1", "m2"):
        two_turns(s).save(tmp_path / "five" / f"{s}.jsonl")
    five = ts.compare(ts.load_traces(tmp_path / "five", engine="python"), cache_1h_share=1.0)
    assert five.iloc[-1]["billed"] == pytest.approx(2 * SESSION, abs=1e-12)
    assert five.iloc[-1]["simulated"] == pytest.approx(2 * billed, abs=1e-12)


def test_a_compaction_is_fitted_and_predicted_where_it_happened(tmp_path):
    # One turn (so the 5,000-token start is all fixed prefix) growing by 1,100 a request; the 5th request
    # (9,400 tokens) would pass the 9,000 the traces record as the automatic compaction's size, so a
    # compaction request reads 8,300, writes 1,100 and outputs 400; the history left is 1,300 tokens:
    # the 5th request sends 5,000 + 1,300 = 6,300, reading the prefix and writing the rest.
    for s in ("c1", "c2"):
        w = Writer(s).prompt(0)
        for i, (write, read) in enumerate([(5000, 0), (1100, 5000), (1100, 6100), (1100, 7200)]):
            w.request(5 + 10 * i, SONNET, write=write, read=read, out=100)
        w.compaction(44, 9000)
        w.request(45, SONNET, write=1300, read=5000, out=100).request(55, SONNET, write=1100, read=6300, out=50)
        w.save(tmp_path / f"{s}.jsonl")
        Writer(s, "acompact-1").request(43, SONNET, write=1100, read=8300, out=400).save(
            tmp_path / s / "subagents" / "agent-acompact-1.jsonl")
    tr = ts.load_traces(tmp_path, engine="python")
    d = fit_details(tr)
    assert (d["compaction_at"], d["compaction_tokens"], d["compaction_output_tokens"]) == (9000, 1300, 400)
    assert d["subagents"] == ()  # the compaction thread is the compaction, not a subagent
    table = ts.compare(tr)
    assert abs(table.attrs["total_error"]) < 1e-12
    assert list(table["simulated_requests"]) == [7, 7, 14]  # 6 requests and the predicted compaction


def parallel(session: str) -> Writer:
    """One turn whose first request calls two tools in parallel: a 5,000-token start, then the 100
    output tokens and the two results of 1,000 each (2,100 written), then one call and its result
    (1,100), then the answer of 50."""
    w = Writer(session).prompt(0, "read both files")
    w.request(5, SONNET, write=5000, out=100, calls=2)
    w.request(15, SONNET, write=2100, read=5000, out=100, calls=1)
    return w.request(25, SONNET, write=1100, read=7100, out=50)


def test_parallel_calls_bring_all_their_results_into_the_next_request(tmp_path):
    # The fit reads the size of one result, not of one step: (2,000 + 1,000) / (2 + 1) calls = 1,000,
    # 1.5 calls a step. Each session is then priced from the calls its requests made, to the cent: writes
    # 5,000 + 2,100 + 1,100 = 8,200 x $3.75, reads 5,000 + 7,100 = 12,100 x $0.30, output 250 x $15 (per
    # million). One size per step (1,500 after each request) would read 5,000 + 6,600 instead.
    for s in ("p1", "p2"):
        parallel(s).save(tmp_path / f"{s}.jsonl")
    tr = ts.load_traces(tmp_path, engine="python")
    m = fit_details(tr)["main"]
    assert (m["response_tokens"], m["calls_per_step"], m["growth_by_step"]) == (1000, 1.5, (1.0, 1.0))
    bill = (8_200 * 3.75 + 12_100 * 0.30 + 250 * 15) / 1e6
    for cv in (False, True):
        table = ts.compare(tr, cv=cv)
        assert list(table["simulated"]) == pytest.approx([bill, bill, 2 * bill], abs=1e-12)
    # A session simulated from the fitted scenario makes 1.5 calls a step: each adds 100 + 1.5 x 1,000.
    sc = ts.fit_scenario(tr)
    run = ts.simulate(None, sc, turns=1, steps=3)
    assert list(run.steps["input"]) == pytest.approx([5000, 6600, 8200], abs=1e-9)


def test_calls_per_step_multiplies_a_steps_results():
    # A single task of 3 requests with 2 calls a step of 400 tokens is the task with one result of 800.
    task = {"steps": 3, "accuracy": False, "tool_tokens": 200, "registry_size": 10, "system_prompt_tokens": 2000}
    two = ts.simulate(None, ts.Scenario(calls_per_step=2, response_tokens=400, **task))
    one = ts.simulate(None, ts.Scenario(response_tokens=800, **task))
    assert two.summary["cost_per_task"] == pytest.approx(one.summary["cost_per_task"], rel=1e-12)
    assert list(two.steps["history"]) == [0, 860, 1720]  # each step: a call of 60 and 2 x 400 of results
    assert two.summary["cost_per_task"] == pytest.approx(one.summary["cost_per_task"], rel=1e-12)
    with pytest.raises(InputError, match="calls_per_step must be a number > 0, found 0"):
        ts.Scenario(calls_per_step=0)


@pytest.mark.parametrize("name", ["spotter", "irrlicht"])
def test_real_sessions_are_compared_with_what_they_were_billed(name):
    path = shared_path("traces", name)
    if path is None:
        pytest.skip(absent_reason("traces", name))
    tr = ts.load_traces(path, engine="python")
    table = ts.compare(tr, cv=True)
    priced = tr.requests.loc[tr.requests["cost"].notna()]
    assert table.iloc[-1]["billed"] == pytest.approx(priced["cost"].sum(), rel=1e-9)
    assert len(table) == tr.requests["session"].nunique() + 1 and table["simulated"].notna().all()


def test_the_verdict_names_the_input_that_closes_the_gap(tmp_path):
    # One-turn sessions written with 1-hour writes, compared with a scenario that says none are: the
    # cache writes fall short (7,200 x $3.75 instead of x $6), and the 1-hour share is what moves them;
    # the cost is linear in it, so the share that closes the gap is the true one, 1.
    for s in ("h1", "h2"):
        w = Writer(s).prompt(0).request(5, SONNET, write=5000, out=100, hour=True)
        w.request(15, SONNET, write=1100, read=5000, out=100, hour=True)
        w.request(25, SONNET, write=1100, read=6100, out=50, hour=True).save(tmp_path / f"{s}.jsonl")
    tr = ts.load_traces(tmp_path, engine="python")
    wrong = ts.fit_scenario(tr, cache_1h_share=0.0)
    verdict = ts.compare(tr, wrong).attrs["verdict"]
    assert "under the billed cost" in verdict and "largest gap is in cache write" in verdict
    assert "close it with the least change: cache_1h_share (fitted 0.00; about 1.00)" in verdict


def test_many_sessions_are_left_out_a_fold_at_a_time(monkeypatch):
    from conftest import ROOT

    from toolsurvey.model import compare as cmp
    from toolsurvey.model.trace_shapes import requests_table

    ids = [f"session-{i}" for i in range(cmp.LOO_SESSIONS + 50)]
    fold = cmp.folds(ids)
    assert set(fold.values()) == set(range(cmp.FOLDS)) and fold == cmp.folds(list(reversed(ids)))
    assert cmp.folds(ids[:9]) == {s: i for i, s in enumerate(ids[:9])}  # few sessions: each its own fold
    # With folds forced on the six sample sessions, each is priced by the model of the sessions outside its fold.
    monkeypatch.setattr(cmp, "LOO_SESSIONS", 2)
    monkeypatch.setattr(cmp, "FOLDS", 3)
    tr = ts.load_traces(ROOT / "data" / "traces" / "claude-code", engine="python")
    table = ts.compare(tr, cv=True)
    fold = cmp.folds(sorted(tr.requests["session"].unique()))
    assert table.attrs["folds"] == len(set(fold.values())) > 1
    r = requests_table(tr)
    for s, f in fold.items():
        others = ts.fit_scenario(cmp._without(tr, {x for x, g in fold.items() if g == f}))
        want = cmp.simulated(r[r["session"] == s], others)["cost"]
        assert table.set_index("session").loc[s, "simulated"] == pytest.approx(want, rel=1e-12)
