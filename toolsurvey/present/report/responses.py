"""The section on tool results: what they cost per tool under the scenario, and the tools never called."""

from __future__ import annotations

from ...measuring.footprint import tools_only
from ..units import money
from .document import NOT_PRICED, Section, Table
from .inputs import Inputs, month, simulate_quietly


def responses_section(inp: Inputs) -> Section:
    """Result tokens and cost per tool from the usage log; says so when there is no log."""
    s = Section("responses", "What tool results cost")
    if inp.usage is None:
        s.missing = f"Not written: {inp.missing.get('usage', 'no usage log')}."
        return s
    u = inp.usage
    called = u[u["calls"] > 0].copy()
    mean = float((called["response_tokens_mean"] * called["share"]).sum() / called["share"].sum()) \
        if called["share"].sum() else 0.0
    s.text.append(f"A tool's result stays in the conversation for every later step of the task, so a long "
                  f"result is paid several times. The usage log has {u.attrs['calls']:,} calls; a result "
                  f"is {mean:,.0f} tokens on average, and {u.attrs['repeated_share']:.0%} of calls repeat an "
                  "identical earlier call in the same task.")
    sc = inp.scenario
    assumed = sc.response_tokens.expected()
    # Dollars per month of one more token in the average result, from the simulation itself.
    rate = (month(simulate_quietly(inp.reg, sc, response_tokens=assumed + 100)) - month(inp.run)) / 100
    called["cost_per_month_usd"] = rate * called["response_tokens_mean"].fillna(0) * called["share"]
    s.notes.append(f"Cost per tool: the scenario's monthly cost of tool results ({money(rate, missing=NOT_PRICED)} "
                   "per month for each token of the average result) split by each tool's share of calls and its "
                   f"mean result size in the log. Today's cost uses the log's mean result of every call, "
                   f"{assumed:,.0f} tokens, in place of the scenario's {inp.given_response_tokens:,.0f}"
                   f" (the {u.attrs['window_days']:g}-day window above averages {mean:,.0f}).")
    called = called.sort_values("cost_per_month_usd", ascending=False, kind="stable").head(inp.top)
    cols = ["server", "tool", "calls", "share", "response_tokens_mean", "response_tokens_total", "repeated",
            "errors", "cost_per_month_usd"]
    from ..charts.responses import result_tokens

    s.charts.append(result_tokens(called, top=inp.top))
    s.tables.append(Table("responses", f"The {len(called)} tools whose results cost the most",
                          called[cols].rename(columns={"share": "call_share"}).reset_index(drop=True)))
    never = u[u["status"] == "never called"]
    if not never.empty:
        fp = tools_only(inp.table).set_index(["server", "tool"])["tokens"]
        never = never[["server", "tool"]].assign(
            tokens=[int(fp.get((a, b), 0)) for a, b in zip(never["server"], never["tool"], strict=True)])
        s.tables.append(Table("never_called", f"{len(never)} tools never called in the log, still sent with "
                              "every request", never.sort_values("tokens", ascending=False).reset_index(drop=True)))
    s.notes += [f"Usage log: {p}" for p in u.attrs.get("warnings", [])[:10]]
    return s
