"""The executive summary: today's cost from the scenario's run, and the biggest levers, each simulated
on its own."""

from __future__ import annotations

from typing import Any

from ...advice.deferral import deferred_searches, describe_search, price_search
from ...core.text import plural
from ...errors import ToolsurveyError
from ...inputs.usage import unused
from ...measuring.footprint import tools_only
from ...model.assumed import unstated_line
from ...providers.caching import caching_is_a_lever, caching_rules
from ..units import money, whole
from .document import NOT_PRICED, Headline, Section
from .inputs import Inputs, month, priced, simulate_quietly, token_rate


def summary_section(inp: Inputs) -> Section:
    """Today's tokens and cost, where the input tokens go, the biggest levers and what was assumed."""
    s = Section("summary", "Executive summary")
    s.figures += _cost_figures(inp)
    shares = input_shares(inp.run)
    if shares:
        s.figures += [Headline("share_tools", "of input tokens are tool definitions", shares["tools"], f"{shares['tools']:.0%}"),
                      Headline("share_history", "are tool calls and results kept in the conversation",
                               shares["history"], f"{shares['history']:.0%}"),
                      Headline("share_rest", "are the system prompt, user message and provider overhead",
                               shares["rest"], f"{shares['rest']:.0%}")]
        s.shares = [("tool definitions", shares["tools"]), ("tool calls and results", shares["history"]),
                    ("the rest", shares["rest"])]
    from ..charts.task import request_tokens

    s.charts.append(request_tokens(inp.run.steps))
    s.text.append(_task_text(inp))
    inp.levers = levers(inp)
    s.bullets_title = "The biggest levers, each simulated on its own against the scenario:"
    s.bullets += [f"{label}: saves about {money(saving, missing=NOT_PRICED)} per month"
                  for label, saving in inp.levers[:3]]
    if inp.levers:
        s.figures.append(Headline("top_lever_saving", "per month saved by the biggest lever",
                                  inp.levers[0][1], money(inp.levers[0][1], missing=NOT_PRICED)))
    if inp.plan_line:
        s.text.append(inp.plan_line)
    s.notes += inp.search_notes
    if "scenario" in inp.missing:
        s.notes.append(inp.missing["scenario"].capitalize() + ".")
    line = unstated_line(inp.scenario, inp.stated, inp.run)
    if line:
        s.notes.append(line)
    if not inp.run.summary.get("within_limits", True):
        s.text.append("Over the provider's documented limits, so the provider would refuse these requests "
                      "(costs are what they would be if accepted): "
                      + "; ".join(w.split(": ", 1)[-1] for w in inp.run.warnings if "limit" in w or "name(s)" in w) + ".")
    return s


def _cost_figures(inp: Inputs) -> list[Headline]:
    r, t = inp.run.summary, inp.table
    every = int(t.loc[t["kind"] != "overhead", "tokens"].sum())  # the simulation counts the overhead apart
    label = ("tokens of tool definitions in every request" if r["tool_tokens_per_request"] == every else
             f"tool-definition tokens per request (mean, {inp.scenario.strategy} strategy; {every:,} with every tool)")
    per_task = r["input_tokens_per_task"] + r["output_tokens_per_task"]
    return [
        Headline("tool_tokens_per_request", label, r["tool_tokens_per_request"], whole(r["tool_tokens_per_request"])),
        Headline("tokens_per_task", "tokens per task (input and output)", per_task, whole(per_task)),
        Headline("cost_per_task", "cost per task attempt", r["cost_per_task"],
                 money(r["cost_per_task"], missing=NOT_PRICED)),
        Headline("cost_per_completed_task", "cost per completed task", r["cost_per_completed_task"],
                 money(r["cost_per_completed_task"], missing=NOT_PRICED)),
        Headline("cost_per_month", f"per month ({r['tasks_per_month']:,.0f} completed tasks)",
                 r["cost_per_month"], money(r["cost_per_month"], missing=NOT_PRICED)),
    ]


def _task_text(inp: Inputs) -> str:
    r, sc = inp.run.summary, inp.scenario
    return (f"The agent makes about {r['expected_requests']:.1f} requests per task (wrong tool calls included) "
            f"with {sc.model}, {sc.tasks_per_day:,.0f} tasks a day. Every request carries the definitions of "
            f"the tools it can see (about {r['mean_visible']:.0f} of {len(tools_only(inp.table)):,}), which adds up to "
            f"{r['tool_tokens_per_task']:,.0f} tokens of tool definitions per task. {r['success']:.0%} of tasks "
            f"succeed under the accuracy assumption, so a completed task costs "
            f"{money(r['cost_per_completed_task'], missing=NOT_PRICED)}.")


def input_shares(run: Any) -> dict[str, float]:
    """Input tokens of one task split into tool definitions, tool calls and results, and the rest."""
    st = run.steps
    w = st["weight"]
    tools = float((st["tools"] * w).sum())
    history = float((st["history"] * w).sum())
    rest = float(((st["overhead"] + st["system"] + st["user"]) * w).sum())
    total = tools + history + rest
    return {"tools": tools / total, "history": history / total, "rest": rest / total} if total else {}


def levers(inp: Inputs) -> list[tuple[str, float]]:
    """Changes whose monthly saving the simulation can compute, largest saving first."""
    sc, base = inp.scenario, month(inp.run)
    n = len(tools_only(inp.table))
    out: list[tuple[str, float]] = []

    def try_change(label: str, reg: Any = None, **changes: Any) -> None:
        try:
            after = month(simulate_quietly(reg if reg is not None else inp.reg, sc, **changes))
        except ToolsurveyError:  # e.g. a phase left with no tool: this lever does not apply here
            return
        if after == after and base - after > 0:
            out.append((label, base - after))

    out += search_levers(inp, n)
    # Only levers that apply: caching is offered where the provider needs it turned on (Anthropic);
    # where it is automatic (OpenAI, Gemini's implicit caching) there is nothing to turn on.
    provider = inp.run.assumptions["price"].get("provider", "")
    if str(inp.run.assumptions.get("caching_used", "")).startswith("none") and caching_is_a_lever(provider):
        try_change("Cache the tool definitions and system prompt (prompt caching)", caching="prefix")
    if (caching_rules(provider).get("explicit") and inp.run.assumptions["price"].get("cache_storage") is not None
            and not str(inp.run.assumptions.get("caching_used", "")).startswith("explicit")):
        try_change("Hold the tool definitions and system prompt in an explicit context cache", caching="explicit")
    never = unused(inp.usage) if inp.usage is not None else []
    if never:
        keep = {(t.server, t.name) for t in inp.reg} - set(never)
        try_change(f"Remove the {plural(len(never), 'tool')} the usage log shows "
                   "were never called",
                   reg=inp.reg.filter(lambda t: (t.server, t.name) in keep))
    out += _findings_lever(inp)
    return sorted(out, key=lambda x: -x[1])


def search_levers(inp: Inputs, n: int) -> list[tuple[str, float]]:
    """Retrieval, and the provider's deferred loading where it offers one, each priced at the measured
    hit rate (queries given) or at the assumption that every search finds the tool, with the
    break-even rate (advice.deferral, the same figures as the plan's deferred-loading stage)."""
    sc, base = inp.scenario, month(inp.run)
    instead = (f" instead of all {n}" if sc.strategy == "all" else " instead of phase gating"
               if sc.strategy == "phases" else " instead of a fixed set")
    options = []
    if sc.strategy in ("all", "fixed", "phases") and n > 15:
        options.append(("Show each request only the 10 tools most relevant to it (retrieval)" + instead,
                        dict(strategy="retrieval", retrieval_k=10)))
    if sc.strategy != "tool_search" and n > 15:
        provider = inp.run.assumptions["price"].get("provider", "")
        for rules in deferred_searches(sc.model, provider)[:1]:
            options.append((f"Defer every tool behind {describe_search(rules)}, loading {rules.results_per_search} "
                            "per search" + instead, dict(strategy="tool_search", search=rules.name, search_k=None)))
    out = []
    for label, changes in options:
        try:
            quality = inp.deferral if changes["strategy"] == "tool_search" and inp.deferral is not None \
                else inp.retrieval
            ch = price_search(inp.reg, sc, float(inp.run.summary["cost_per_completed_task"]), quality,
                              samples=0, **changes)
        except ToolsurveyError:
            continue
        saving = base - month(ch.run)
        if saving == saving and saving > 0:
            out.append((f"{label} ({ch.rests_on()})", saving))
        elif ch.measured:
            inp.search_notes.append(f"{label} would not save money at the measured hit rate ({ch.rests_on()}).")
    return out


def _findings_lever(inp: Inputs) -> list[tuple[str, float]]:
    """The "fix the audit findings" lever, when some findings' fixes cut text the simulation counts."""
    covered = lever_rules(inp)
    if not covered:
        return []
    tokens = priced(inp)
    cuts = inp.findings["rule"].isin(covered) & (tokens > 0)
    fixable = float(tokens[cuts].sum())
    n = int(cuts.sum())
    return [(f"Fix the audit findings that waste tokens ({fixable:,.0f} tokens per request, weighted by how "
             f"often each tool is visible; covers the {n} finding{'s' * (n != 1)} of {', '.join(covered)} "
             "whose fix cuts text)", fixable * token_rate(inp))]


def lever_rules(inp: Inputs) -> list[str]:
    """The rules whose findings the "fix the findings" lever covers: those whose fix only cuts prompt
    text the simulation counts (impact "tokens") and saves some under the scenario. Merges are the
    plan's, not this lever's."""
    if inp.findings.empty:
        return []
    f = inp.findings.assign(priced=priced(inp))
    # output schemas are not part of the definitions the simulation counts (only some clients send them)
    f = f[(f["impact"] == "tokens") & (f["priced"] > 0) & (f["rule"] != "output-schema-heavy")]
    return list(dict.fromkeys(f.sort_values("priced", ascending=False, kind="stable")["rule"]))
