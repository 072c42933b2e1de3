"""The stakeholder report: build its data from the library's own functions, then render it as
self-contained HTML (plotly.js inline, opens offline), Markdown or CSV tables."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..advice.diff import as_registry
from ..core.viewable import Viewable
from ..core.writing import atomic_write, spreadsheet_safe
from ..errors import InputError, ToolsurveyError
from ..measuring.footprint import by_server, footprint, request_total, tools_only
from .report_render import fmt_int as _fmt_int
from .report_render import render_html as _render_html
from .report_render import render_markdown as _render_markdown
from .report_render import usd as _usd

FORMATS = ("html", "markdown", "csv")
USAGE_WINDOW_DAYS = 90  # "never called" means: not in the log's last 90 days (the audit window of the Interview Reference's “Tool registry design”)

@dataclass
class Headline:
    """One figure of the executive summary: a key tests and scripts can find, its value and its text."""

    key: str
    label: str
    value: float
    shown: str


@dataclass
class Table:
    """A table of the report: the data as computed (CSV) and its caption (HTML, Markdown)."""

    name: str
    caption: str
    data: pd.DataFrame
    note: str = ""
    shown: pd.DataFrame | None = None  # text cells to show instead of `data` (rows with mixed units)


@dataclass
class Section:
    """A part of the report; `missing` says which input it needs when it could not be written."""

    key: str
    title: str
    text: list[str] = field(default_factory=list)
    figures: list[Headline] = field(default_factory=list)
    bullets: list[str] = field(default_factory=list)
    bullets_title: str = ""
    shares: list[tuple[str, float]] = field(default_factory=list)  # a bar of parts of a whole
    tables: list[Table] = field(default_factory=list)
    charts: list[Any] = field(default_factory=list)  # plotly Figures
    notes: list[str] = field(default_factory=list)
    missing: str | None = None


@dataclass(repr=False)
class Report(Viewable):
    """Everything the report shows, computed; `to_html`, `to_markdown`, `to_csv` and `save` render it."""

    view_name = "report"

    title: str
    subtitle: str
    sections: list[Section]
    levers: list[tuple[str, float]] = field(default_factory=list)  # (change, dollars saved per month)
    meta: dict[str, Any] = field(default_factory=dict)  # date, version, inputs: [(name, short sha256)]



    def section(self, key: str) -> Section:
        return next(s for s in self.sections if s.key == key)

    @property
    def headlines(self) -> dict[str, Headline]:
        return {f.key: f for s in self.sections for f in s.figures}

    @property
    def tables(self) -> dict[str, Table]:
        return {t.name: t for s in self.sections for t in s.tables}

    def summary_text(self) -> str:
        """The executive summary as plain lines for a terminal."""
        import textwrap

        s = self.section("summary")
        width = max((len(f.shown) for f in s.figures), default=0)
        lines = [f"{self.title}: {self.subtitle}", ""]
        lines += [f"  {f.shown.rjust(width)}  {f.label}" for f in s.figures]
        if s.bullets:
            lines += ["", "Biggest levers:"] + [textwrap.fill(b, 100, initial_indent="  - ", subsequent_indent="    ")
                                                 for b in s.bullets]
        lines += [""] + [textwrap.fill(p, 100) for p in s.text + s.notes]
        lines += [textwrap.fill(f"({x.title}: {x.missing})", 100) for x in self.sections if x.missing]
        return "\n".join(lines)

    def to_html(self) -> str:
        """One self-contained HTML page: every string escaped, plotly.js inline, only our scripts allowed."""
        return _render_html(self)

    def to_markdown(self) -> str:
        """The report as Markdown (for wikis and pull requests); cells escaped."""
        return _render_markdown(self)

    def to_csv(self) -> dict[str, str]:
        """File name -> CSV text of every table, plus `summary.csv` with the headline figures."""
        out = {"summary.csv": _csv(pd.DataFrame(
            [{"figure": f.key, "label": f.label, "value": f.value} for f in self.headlines.values()]))}
        if self.levers:
            out["levers.csv"] = _csv(pd.DataFrame(self.levers, columns=["lever", "saving_per_month_usd"]))
        for name, t in self.tables.items():
            out[f"{name}.csv"] = _csv(t.data)
        return out

    def save(self, path: str | os.PathLike, format: str | None = None) -> list[Path]:
        """Write the report atomically (CSV: a folder of files); the format follows the suffix if not given.

        Everything is rendered before anything is written, so a failure leaves no partial file.
        Raises InputError for an unknown format or a path that cannot be written.
        """
        p = Path(path)
        format = format or format_for(p)
        if format not in FORMATS:
            raise InputError(f"unknown report format {format!r}; expected one of: {', '.join(FORMATS)}")
        if format == "csv":
            files = self.to_csv()
            folder = p.with_suffix("") if p.suffix.lower() == ".csv" else p
            try:
                folder.mkdir(parents=True, exist_ok=True)
                return _write_csv_set(folder, files)
            except OSError as e:
                raise InputError(f"cannot write {folder}: {e.strerror}") from None
        text = self.to_html() if format == "html" else self.to_markdown()
        try:
            return [atomic_write(p, text)]
        except OSError as e:
            raise InputError(f"cannot write {p}: {e.strerror}") from None


_MANIFEST = ".toolsurvey-report"  # in a CSV report's folder: the files of the set written last


def _write_csv_set(folder: Path, files: dict[str, str]) -> list[Path]:
    """Write the CSV files, then remove those of the previous set (listed in the manifest) not in this one."""
    try:
        old = (folder / _MANIFEST).read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        old = []
    paths = [atomic_write(folder / name, text) for name, text in files.items()]
    atomic_write(folder / _MANIFEST, "".join(f"{name}\n" for name in files))
    for name in old:  # only plain names we wrote: a doctored manifest cannot reach outside the folder
        if name.endswith(".csv") and name not in files and Path(name).name == name:
            (folder / name).unlink(missing_ok=True)
    return paths


def format_for(path: str | os.PathLike) -> str:
    """The report format a file name asks for: .md/.markdown Markdown, .csv CSV, anything else HTML."""
    return {".md": "markdown", ".markdown": "markdown", ".csv": "csv"}.get(Path(path).suffix.lower(), "html")


def _csv(df: pd.DataFrame) -> str:
    return spreadsheet_safe(df).to_csv(index=False)


# ---------------------------------------------------------------- building the data

@dataclass
class _Inputs:
    reg: Any
    table: pd.DataFrame
    top: int = 15
    scenario: Any = None
    run: Any = None  # the simulation of the scenario, when the simulation module is present
    usage: Any = None  # usage.summarize table
    usage_log: Any = None  # the Usage it was made from
    findings: pd.DataFrame | None = None
    missing: dict[str, str] = field(default_factory=dict)  # input -> why it is missing
    levers: list[tuple[str, float]] = field(default_factory=list)
    plan_line: str = ""
    stated: set = field(default_factory=set)  # scenario fields given by a file or an option
    own: Any = None  # the servers the user owns
    given_response_tokens: float | None = None  # the scenario's result size before the log's replaced it


def report(reg: Any, *, scenario: Any = None, usage: Any = None, encoding: str | None = None,
           render: str | None = None, model: str | None = None, top: int = 15, title: str | None = None,
           tasks_per_day: float | None = None, caching: str | None = None,
           system_prompt_tokens: float | None = None, own: Any = None, traces: Any = None) -> Report:
    """Build the report for a registry (or path), with an optional scenario (TOML path or Scenario)
    and usage log; `model`, `tasks_per_day`, `caching` and `system_prompt_tokens` override the
    scenario's. Every key assumption not given is named in the executive summary.
    Today's cost is `advice.baseline`: the scenario with the log's mean tool result, the same run as the
    plan's "before". `own` names the servers the user owns (merges may join their tools).
    Agent traces (a trace path as `usage`, or `traces`) add the section "What your traces say".

    Raises InputError for inputs that cannot be loaded; a section whose input is missing says so.
    """
    from ..advice.diff import measure_settings

    reg = as_registry(reg)
    inp = _Inputs(reg, pd.DataFrame(), top=top)
    inp.scenario = _load_scenario(scenario, inp)
    if inp.scenario is not None:
        from ..model.assumed import with_options

        inp.scenario, inp.stated = with_options(scenario, tasks_per_day=tasks_per_day, caching=caching,
                                                system_prompt_tokens=system_prompt_tokens)
        if model:
            inp.stated.add("model")
    given = {k: v for k, v in (("encoding", encoding), ("render", render), ("model", model)) if v}
    if inp.scenario is not None:
        import dataclasses

        # The options given win over the scenario's, for the simulation too, so that both agree.
        inp.scenario = dataclasses.replace(inp.scenario, **given)
        given = measure_settings(inp.scenario)
    inp.table = footprint(reg, **{"render": "json", **given})
    inp.own = own
    from .trace_report import for_report

    named = {"scenario": scenario, "usage": usage, "traces": traces}  # the inputs as given, for the meta line
    traces, usage = for_report(traces, usage)
    inp.usage = _usage(usage, reg, inp)
    if inp.scenario is not None:
        from ..advice.baseline import baseline

        inp.given_response_tokens = inp.scenario.response_tokens.expected()
        inp.scenario = baseline(reg, inp.scenario, inp.usage_log)
        inp.run = _simulate(reg, inp.scenario)
    inp.findings = _audit(reg, inp)
    planned = _plan(inp)  # before the summary, which quotes the plan's result
    sections = [_summary(inp), _surface(inp), _findings(inp), _responses(inp), planned,
                _sensitivity(inp), _method(inp)]
    if traces is not None:
        from .trace_report import section as traces_section

        sections.insert(-1, traces_section(traces))
    n_tools, n_servers = len(tools_only(inp.table)), len(reg.servers)
    sources = ", ".join(Path(s).name for s in reg.sources) or "a registry built in code"
    from .report_meta import meta

    return Report(title or "What our agent's tools cost",
                  f"{n_tools:,} tool{'s' * (n_tools != 1)} in {n_servers:,} server{'s' * (n_servers != 1)}, "
                  f"from {sources}", sections, inp.levers,
                  meta=meta(reg.sources, **named))


def _load_scenario(scenario: Any, inp: _Inputs) -> Any:
    try:
        from ..model.scenario import Scenario, load_scenario
    except ImportError:
        inp.missing["simulation"] = "the simulation module (toolsurvey.scenario) is not installed"
        return None
    if scenario is None:
        inp.missing["scenario"] = ("no scenario file was given, so the simulation's default assumptions are "
                                   "used; pass --scenario to use yours")
        return Scenario()
    if isinstance(scenario, (str, os.PathLike)):
        return load_scenario(scenario)
    return scenario


def _simulate(reg: Any, sc: Any, **changes) -> Any:
    """`simulate` with its warnings kept on the run (they are printed in the method section).
    What-if runs (any change) use expected values only: Monte Carlo is for the main run's spread."""
    import warnings

    from ..model.simulate import simulate

    if changes:
        changes.setdefault("samples", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return simulate(reg, sc, **changes)


def _audit(reg: Any, inp: _Inputs) -> pd.DataFrame | None:
    try:
        from ..advice.audit.run import audit
    except ImportError:
        inp.missing["audit"] = "the audit module (toolsurvey.auditing) is not installed"
        return None
    return audit(reg, own=inp.own)


def _priced(inp: _Inputs) -> pd.Series:
    """Each finding's tokens per request, counted once and weighted by how often its tool is visible
    under the scenario (advice.price_findings: the audit summary and the plan price the same way)."""
    from ..advice.pricing import price_findings
    from ..advice.visibility import visibility

    return price_findings(inp.findings, visibility(inp.reg, inp.run) if inp.run is not None else None)


def _usage(usage: Any, reg: Any, inp: _Inputs) -> Any:
    if usage is None:
        inp.missing["usage"] = "no usage log was given (--usage FILE)"
        return None
    try:
        from ..inputs.sources import load_usage
    except ImportError:
        inp.missing["usage"] = "the usage module (toolsurvey.usage) is not installed"
        return None
    from ..inputs.usage import summarize

    inp.usage_log = load_usage(usage) if isinstance(usage, (str, os.PathLike)) else usage
    # The same 90-day window as the plan's "never called", so both name the same tools.
    return summarize(inp.usage_log, reg, window_days=USAGE_WINDOW_DAYS)


def _month(run: Any) -> float:
    return float(run.summary["cost_per_month"])


def _token_rate(inp: _Inputs) -> float:
    """Dollars per month that one more token in every request costs under the scenario (from the
    simulation itself: one run with 1,000 extra per-request tokens)."""
    base = inp.run
    more = _simulate(inp.reg, inp.scenario, overhead_tokens=float(base.assumptions["overhead_tokens"]) + 1000)
    return (_month(more) - _month(base)) / 1000


def _input_shares(run: Any) -> dict[str, float]:
    """Input tokens of one task split into tool definitions, tool calls and results, and the rest."""
    st = run.steps
    w = st["weight"]
    tools = float((st["tools"] * w).sum())
    history = float((st["history"] * w).sum())
    rest = float(((st["overhead"] + st["system"] + st["user"]) * w).sum())
    total = tools + history + rest
    return {"tools": tools / total, "history": history / total, "rest": rest / total} if total else {}


def _summary(inp: _Inputs) -> Section:
    t = inp.table
    total = request_total(t)
    s = Section("summary", "Executive summary")
    s.figures.append(Headline("tool_tokens_per_request", "tokens of tool definitions in every request",
                              total, _fmt_int(total)))
    if inp.run is None:
        s.figures.append(Headline("tools", "tools the agent can see", len(tools_only(t)), f"{len(tools_only(t)):,}"))
        s.missing = f"No costs: {inp.missing.get('simulation', 'no simulation')}."
        s.text.append(f"Every request the agent makes carries the definitions of all its tools: {total:,} tokens, "
                      "sent again at every step of every task.")
        return s
    r = inp.run.summary
    sc = inp.scenario
    every = int(t.loc[t["kind"] != "overhead", "tokens"].sum())  # the simulation counts the overhead apart
    label = ("tokens of tool definitions in every request" if r["tool_tokens_per_request"] == every else
             f"tool-definition tokens per request (mean, {sc.strategy} strategy; {every:,} with every tool)")
    s.figures[0] = Headline("tool_tokens_per_request", label, r["tool_tokens_per_request"],
                            _fmt_int(r["tool_tokens_per_request"]))
    s.figures += [
        Headline("tokens_per_task", "tokens per task (input and output)",
                 r["input_tokens_per_task"] + r["output_tokens_per_task"],
                 _fmt_int(r["input_tokens_per_task"] + r["output_tokens_per_task"])),
        Headline("cost_per_task", "cost per task attempt", r["cost_per_task"], _usd(r["cost_per_task"])),
        Headline("cost_per_completed_task", "cost per completed task", r["cost_per_completed_task"],
                 _usd(r["cost_per_completed_task"])),
        Headline("cost_per_month", f"per month ({r['tasks_per_month']:,.0f} completed tasks)",
                 r["cost_per_month"], _usd(r["cost_per_month"])),
    ]
    shares = _input_shares(inp.run)
    if shares:
        s.figures += [Headline("share_tools", "of input tokens are tool definitions", shares["tools"], f"{shares['tools']:.0%}"),
                      Headline("share_history", "are tool calls and results kept in the conversation",
                               shares["history"], f"{shares['history']:.0%}"),
                      Headline("share_rest", "are the system prompt, user message and provider overhead",
                               shares["rest"], f"{shares['rest']:.0%}")]
        s.shares = [("tool definitions", shares["tools"]), ("tool calls and results", shares["history"]),
                    ("the rest", shares["rest"])]
    from .charts import request_tokens

    s.charts.append(request_tokens(inp.run.steps))
    s.text.append(
        f"The agent makes about {r['expected_requests']:.1f} requests per task (wrong tool calls included) "
        f"with {sc.model}, {sc.tasks_per_day:,.0f} tasks a day. Every request carries the definitions of "
        f"the tools it can see (about {r['mean_visible']:.0f} of {len(tools_only(t)):,}), which adds up to "
        f"{r['tool_tokens_per_task']:,.0f} tokens of tool definitions per task. {r['success']:.0%} of tasks "
        f"succeed under the accuracy assumption, so a completed task costs {_usd(r['cost_per_completed_task'])}.")
    inp.levers = _levers(inp)
    s.bullets_title = "The biggest levers, each simulated on its own against the scenario:"
    for label, saving in inp.levers[:3]:
        s.bullets.append(f"{label}: saves about {_usd(saving)} per month")
    if inp.levers:
        s.figures.append(Headline("top_lever_saving", "per month saved by the biggest lever",
                                  inp.levers[0][1], _usd(inp.levers[0][1])))
    if inp.plan_line:
        s.text.append(inp.plan_line)
    if "scenario" in inp.missing:
        s.notes.append(inp.missing["scenario"].capitalize() + ".")
    from ..model.assumed import unstated_line

    line = unstated_line(sc, inp.stated, inp.run)
    if line:
        s.notes.append(line)
    if not r.get("within_limits", True):
        s.text.append("Over the provider's documented limits, so the provider would refuse these requests "
                      "(costs are what they would be if accepted): "
                      + "; ".join(w.split(": ", 1)[-1] for w in inp.run.warnings if "limit" in w or "name(s)" in w) + ".")
    return s


def _levers(inp: _Inputs) -> list[tuple[str, float]]:
    """Changes whose monthly saving the simulation can compute, largest saving first."""
    sc, base = inp.scenario, _month(inp.run)
    n = len(tools_only(inp.table))
    out: list[tuple[str, float]] = []

    def try_change(label: str, reg: Any = None, **changes: Any) -> None:
        try:
            after = _month(_simulate(reg if reg is not None else inp.reg, sc, **changes))
        except ToolsurveyError:  # e.g. a phase left with no tool: this lever does not apply here
            return
        if after == after and base - after > 0:
            out.append((label, base - after))

    if sc.strategy in ("all", "fixed", "phases") and n > 15:
        try_change("Show each request only the 10 tools most relevant to it (retrieval)"
                   + (f" instead of all {n}" if sc.strategy == "all" else
                      " instead of phase gating" if sc.strategy == "phases" else " instead of a fixed set"),
                   strategy="retrieval", retrieval_k=10)
    # Only levers that apply: caching is offered where the provider needs it turned on (Anthropic);
    # where it is automatic (OpenAI, Gemini's implicit caching) there is nothing to turn on.
    from ..providers.caching import caching_is_a_lever, caching_rules

    provider = inp.run.assumptions["price"].get("provider", "")
    if str(inp.run.assumptions.get("caching_used", "")).startswith("none") and caching_is_a_lever(provider):
        try_change("Cache the tool definitions and system prompt (prompt caching)", caching="prefix")
    if (caching_rules(provider).get("explicit") and inp.run.assumptions["price"].get("cache_storage") is not None
            and not str(inp.run.assumptions.get("caching_used", "")).startswith("explicit")):
        try_change("Hold the tool definitions and system prompt in an explicit context cache", caching="explicit")
    unused = _unused_tools(inp)
    if unused:
        keep = {(t.server, t.name) for t in inp.reg} - set(unused)
        try_change(f"Remove the {len(unused)} tool{'s' if len(unused) != 1 else ''} the usage log shows "
                   "were never called",
                   reg=inp.reg.filter(lambda t: (t.server, t.name) in keep))
    covered = _lever_rules(inp)
    if covered:
        f, priced = inp.findings, _priced(inp)
        cuts = f["rule"].isin(covered) & (priced > 0)
        fixable = float(priced[cuts].sum())
        out.append((f"Fix the audit findings that waste tokens ({fixable:,.0f} tokens per request, weighted by how "
                    f"often each tool is visible; covers the {int(cuts.sum())} finding{'s' * (int(cuts.sum()) != 1)} of "
                    f"{', '.join(covered)} "
                    "whose fix cuts text)", fixable * _token_rate(inp)))
    return sorted(out, key=lambda x: -x[1])


def _lever_rules(inp: _Inputs) -> list[str]:
    """The rules whose findings the "fix the findings" lever covers: those whose fix only cuts prompt
    text the simulation counts (impact "tokens") and saves some under the scenario. Merges are the
    plan's, not this lever's."""
    if inp.findings is None or inp.findings.empty or inp.run is None:
        return []
    f = inp.findings.assign(priced=_priced(inp))
    # output schemas are not part of the definitions the simulation counts (only some clients send them)
    f = f[(f["impact"] == "tokens") & (f["priced"] > 0) & (f["rule"] != "output-schema-heavy")]
    return list(dict.fromkeys(f.sort_values("priced", ascending=False, kind="stable")["rule"]))


def _unused_tools(inp: _Inputs) -> list[tuple[str, str]]:
    if inp.usage is None:
        return []
    from ..inputs.usage import unused

    return unused(inp.usage)


def _surface(inp: _Inputs) -> Section:
    t = inp.table
    s = Section("surface", "Where the tokens go: servers and tools")
    s.text.append("Each server's share of the tool definitions sent with every request, and the tools "
                  "that cost the most. A large tool is not a defect in itself: a clear description "
                  "can save steps. The tables show where a change would matter most.")
    s.tables.append(Table("servers", "Tokens per server", by_server(t)))
    tools = tools_only(t).sort_values("tokens", ascending=False, kind="stable").head(inp.top)
    keep = ["server", "tool", "tokens", "description", "schema", "param_descriptions"]
    s.tables.append(Table("top_tools", f"The {len(tools)} largest tools", tools[keep].reset_index(drop=True)))
    from .charts import parts_bar

    s.charts.append(parts_bar(t, top=inp.top))
    return s


def _findings(inp: _Inputs) -> Section:
    s = Section("findings", "Findings that cost money")
    if inp.findings is None:
        s.missing = f"Not written: {inp.missing['audit']}."
        return s
    f = inp.findings
    s.text.append("The audit checks every tool against rules for good tool contracts. Some findings make "
                  "every request longer; their monthly cost is what those tokens cost under the scenario. "
                  "Others cost steps (the model picks the wrong tool or retries) or break some clients.")
    from ..advice.pricing import price_findings

    once = price_findings(f)  # with every tool visible: the audit's own figures, counted once
    costly = f.assign(tokens_all_visible=once.round().astype("int64"), tokens_as_visible=_priced(inp))
    costly = costly[costly["tokens_all_visible"] > 0]
    rate = _token_rate(inp) if inp.run is not None else None
    covered = _lever_rules(inp)
    if not costly.empty:
        by_rule = costly.groupby("rule", sort=False).agg(tools=("tool", "nunique"),
                                                         tokens_all_visible=("tokens_all_visible", "sum"),
                                                         tokens_as_visible=("tokens_as_visible", "sum"))
        if rate is not None:
            by_rule["cost_per_month_usd"] = by_rule["tokens_as_visible"] * rate
        by_rule["in_lever"] = ["yes" if r in covered else "" for r in by_rule.index]  # its findings that cut text
        by_rule = by_rule.sort_values("tokens_as_visible", ascending=False, kind="stable").reset_index()
        s.tables.append(Table("findings_by_rule", "Findings that add tokens to requests, by rule", by_rule,
                              note="Each text is counted once (two rules about one description charge once; "
                                   "a merge once per cluster), then weighted by how often the tool is visible "
                                   "under the scenario. \"In lever\": counted in the \"fix the audit "
                                   "findings\" lever; overlap is the plan's merge stage instead."))
        top = costly.sort_values("tokens_as_visible", ascending=False, kind="stable").head(inp.top)
        top = top[["rule", "server", "tool", "tokens_all_visible", "tokens_as_visible", "evidence", "fix"]]
        top = top.reset_index(drop=True)
        if rate is not None:
            top.insert(5, "cost_per_month_usd", top["tokens_as_visible"] * rate)
        s.tables.append(Table("findings", f"The {len(top)} costliest findings", top))
    counts = f.groupby(["severity", "impact"]).size().rename("findings").reset_index()
    s.tables.append(Table("findings_count", "All findings by severity and kind of impact", counts))
    serious = f[f["severity"].isin(["poisoning", "error"])]
    if not serious.empty:
        s.tables.append(Table("findings_serious", "Security and error findings (fix these first)",
                              serious[["severity", "rule", "server", "tool", "evidence", "fix"]].reset_index(drop=True)))
    return s


def _responses(inp: _Inputs) -> Section:
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
    if inp.run is not None:
        sc = inp.scenario
        assumed = sc.response_tokens.expected()
        # Dollars per month of one more token in the average result, from the simulation itself.
        more = _simulate(inp.reg, sc, response_tokens=assumed + 100)
        rate = (_month(more) - _month(inp.run)) / 100
        called["cost_per_month_usd"] = rate * called["response_tokens_mean"].fillna(0) * called["share"]
        s.notes.append(f"Cost per tool: the scenario's monthly cost of tool results ({_usd(rate)} per month "
                       "for each token of the average result) split by each tool's share of calls and its "
                       f"mean result size in the log. Today's cost uses the log's mean result of every call, "
                       f"{assumed:,.0f} tokens, in place of the scenario's {inp.given_response_tokens:,.0f}"
                       f" (the {u.attrs['window_days']:g}-day window above averages {mean:,.0f}).")
    called = called.sort_values("cost_per_month_usd" if "cost_per_month_usd" in called else
                                "response_tokens_total", ascending=False, kind="stable").head(inp.top)
    cols = ["server", "tool", "calls", "share", "response_tokens_mean", "response_tokens_total", "repeated",
            "errors"] + (["cost_per_month_usd"] if "cost_per_month_usd" in called else [])
    from .charts import result_tokens

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
    s.notes += [f"Usage log: {p}" for p in u.attrs.get("problems", [])[:10]]
    return s


_UNITS = {"tools": lambda v: f"{v:,.1f}".removesuffix(".0"), "tokens": lambda v: f"{v:,.0f}",
          "requests": lambda v: f"{v:,.1f}", "share": lambda v: f"{v:.1%}", "USD": _usd}


def _plan(inp: _Inputs) -> Section:
    s = Section("plan", "The consolidation plan: before and after")
    try:
        from ..advice.plan.stages import plan
    except ImportError:
        s.missing = "Not written: the planning module (toolsurvey.planning) is not installed."
        return s
    if inp.run is None:
        s.missing = f"Not written: {inp.missing.get('simulation')}."
        return s
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = plan(inp.reg, usage=inp.usage_log, scenario=inp.scenario, window_days=USAGE_WINDOW_DAYS,
                     own=inp.own)
    except ToolsurveyError as e:
        s.missing = f"Not written: the plan could not be made for this registry and scenario ({e})."
        return s
    before, after = p.before_scenario, p.after_scenario
    s.text.append(
        "The plan deletes tools nobody calls, merges near-duplicates the user can merge (within one server, "
        "or among the servers they own), trims long tool results and, unless the scenario already does, shows "
        "each step of a task only the tools its phase needs; each stage is simulated with the same "
        f"assumptions. It starts from today's cost above: the {before.strategy} strategy with tool results of "
        f"{before.response_tokens.expected():,.0f} tokens"
        + (" (the usage log's mean)" if inp.usage_log is not None else "")
        + f", and ends with the {after.strategy} strategy and results of {after.response_tokens.expected():,.0f} tokens.")
    if inp.usage_log is None:
        s.notes.append("Without a usage log (--usage) the plan cannot delete unused tools or trim results.")
    t = p.table
    in_units = lambda col: [_UNITS.get(u, _fmt_int)(v) if v == v else ""  # noqa: E731
                            for v, u in zip(t[col], t["unit"], strict=True)]
    shown = pd.DataFrame({
        "metric": t["metric"], "before": in_units("before"), "after": in_units("after"),
        "change": [f"{c:+.0%}" if c == c else "" for c in t["change_share"]]})
    s.tables.append(Table("plan", "Before and after the plan", t, shown=shown))
    months = {k: float(r.summary["cost_per_month"]) for k, r in p.runs.items()}
    if months["before"] > 0:
        change = months["after"] / months["before"] - 1
        verb = "takes the cost down" if change <= 0 else "raises the cost"
        inp.plan_line = (f"The consolidation plan {verb} from today's {_usd(months['before'])} to "
                         f"{_usd(months['after'])} per month ({change:+.0%}) "
                         f"and the tools from {len(p.before):,} to {len(p.after):,}; see its section for "
                         "each stage's saving or cost.")
    stages = p.stages.copy()
    stages["cost_per_month_usd"] = [months[k] for k in stages["stage"]]
    delta = (stages["cost_per_month_usd"].shift(1) - stages["cost_per_month_usd"]).fillna(0)
    stages["saving_per_month_usd"] = delta
    stages["effect"] = ["" if i == 0 else f"saves {_usd(d)} a month" if d > 0 else
                        f"costs {_usd(-d)} more a month" if d < 0 else "no change" for i, d in enumerate(delta)]
    names, short = dict(_STAGES), dict(_WATERFALL)
    if not any(a.kind == "gate" for a in p.actions):
        kept = before.strategy == "phases"
        names["after"] = ("the plan (the scenario's phase gating, kept throughout)" if kept
                          else "the plan (no phase gating)")
        short["after"] = "phase gating kept" if kept else "no phase gating"
    from .charts import plan_waterfall

    s.charts.append(plan_waterfall(stages, labels=short))
    stages["stage"] = stages["stage"].map(names).fillna(stages["stage"])
    s.tables.append(Table("plan_stages", "What each stage of the plan saves or costs", stages[[
        "stage", "tools", "mean_visible", "tool_tokens_per_request", "steps_per_task", "success",
        "cost_per_completed_task", "cost_per_month_usd", "saving_per_month_usd", "effect"]],
        note="Each stage is simulated from the one above it; a negative saving is a cost."))
    actions = p.actions_table().sort_values("tokens_per_task", ascending=False, kind="stable").head(inp.top)
    s.tables.append(Table("plan_actions", f"The {len(actions)} actions that save the most tokens per task",
                          actions[["kind", "target", "detail", "tokens_per_request", "tokens_per_task"]]
                          .reset_index(drop=True)))
    s.notes += [f"Plan: {w}" for w in p.warnings[:10]]
    return s


_WATERFALL = {"before": "today", "delete": "delete unused", "merge": "merge duplicates", "trim": "trim results",
              "after": "gate by phase"}
_STAGES = {"before": "before", "delete": "after deleting unused tools", "merge": "after merging near-duplicates",
           "trim": "after trimming tool results", "after": "after phase gating (the plan)"}


def _sensitivity(inp: _Inputs) -> Section:
    s = Section("sensitivity", "How much the result depends on the assumptions")
    if inp.run is None:
        s.missing = f"Not written: {inp.missing.get('simulation')}."
        return s
    sc, base = inp.scenario, _month(inp.run)
    steps = sc.steps.expected()
    rows = []

    def row(assumption: str, low_label: str, high_label: str, low: dict, high: dict) -> None:
        lo, hi = _month(_simulate(inp.reg, sc, **low)), _month(_simulate(inp.reg, sc, **high))
        rows.append({"assumption": assumption, "low": low_label, "cost_per_month_low_usd": lo,
                     "cost_per_month_base_usd": base, "high": high_label, "cost_per_month_high_usd": hi})

    row("Steps per task", f"{steps / 2:g}", f"{steps * 1.5:g}", {"steps": max(1.0, steps / 2)}, {"steps": steps * 1.5})
    row("Tasks per day", f"{sc.tasks_per_day / 2:,.0f}", f"{sc.tasks_per_day * 2:,.0f}",
        {"tasks_per_day": sc.tasks_per_day / 2}, {"tasks_per_day": sc.tasks_per_day * 2})
    if sc.accuracy:
        row("Accuracy curve (more tools, more wrong calls)", "off", "on (as assumed)", {"accuracy": False}, {})
    rt = sc.response_tokens.expected()
    row("Tokens per tool result", f"{rt / 2:,.0f}", f"{rt * 2:,.0f}",
        {"response_tokens": rt / 2}, {"response_tokens": rt * 2})
    table = pd.DataFrame(rows)
    s.text.append("The monthly cost recomputed with one assumption changed at a time, the others as in "
                  "the scenario. A wide range means that assumption deserves a measurement of its own.")
    s.tables.append(Table("sensitivity", "Cost per month when one assumption changes", table))
    s.charts += _cost_curves(inp)
    pct = inp.run.percentiles
    if pct is not None:
        spread = pct.reset_index().rename(columns={"index": "percentile"})
        s.tables.append(Table("spread", f"Spread over {pct.attrs.get('samples', 0):,} simulated tasks "
                              f"(seed {pct.attrs.get('seed')})", spread,
                              note="Steps and result sizes drawn from the scenario's distributions."))
    return s


def _cost_curves(inp: _Inputs) -> list:
    """Cost per task against requests per task and against visible tools, today's point marked."""
    import warnings

    from ..model.sweeps import sweep
    from .charts import cost_curve
    from .widgets import visible_points

    sc, r = inp.scenario, inp.run.summary
    steps = sc.steps.expected()
    today = f"today ({steps:g} requests, {r['mean_visible']:.0f} tools visible)"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        by_steps = sweep(inp.reg, sc, steps=list(range(1, max(20, int(2 * steps)) + 1)), samples=0)
        by_visible = sweep(inp.reg, sc, visible=visible_points(len(inp.reg), count=12), strategy="all", samples=0)
    return [cost_curve(by_steps, x="steps", today=(steps, r["cost_per_task"]), today_label=today),
            cost_curve(by_visible, x="visible", today=(r["mean_visible"], r["cost_per_task"]), today_label=today,
                       title="Cost per task attempt against tools visible per request (every tool up to the cap)")]


def _method(inp: _Inputs) -> Section:
    a = inp.table.attrs
    s = Section("method", "Method and assumptions")
    s.text.append(f"Tokens are counted with the {a['encoding']} tokenizer (tiktoken) on the text the model "
                  f"receives. Rendering: {a['method']}.")
    if a.get("model"):
        s.text.append(f"Provider formatting constants are those of {a['model']}.")
    if inp.run is not None:
        run = inp.run
        s.text.append("Costs come from toolsurvey's simulation of an agent task: at every step the model "
                      "receives the visible tool definitions, the system prompt, the user message and "
                      "every earlier tool call and result; " + run.assumptions["rules"] + ".")
        price = run.assumptions["price"]
        s.tables.append(Table("prices", "Price used (US dollars per million tokens)", pd.DataFrame([{
            "model": price["model"], "input_usd": price["input"], "output_usd": price["output"],
            "cache_write_usd": price["cache_write"], "cache_read_usd": price["cache_read"],
            "context_window": price["context_window"], "as_of": price["as_of"], "source": price["source"]}])))
        curve = run.assumptions["accuracy_curve"]
        if isinstance(curve, dict):
            pts = pd.DataFrame(curve.get("points", []))
            if not pts.empty:
                pts = pts.rename(columns={"visible": "tools_visible", "wrong": "wrong_tool_share",
                                          "success": "task_success_share"})
                if "tools_visible" in pts and (pts["tools_visible"] % 1 == 0).all():
                    pts["tools_visible"] = pts["tools_visible"].astype("int64")
                s.tables.append(Table("accuracy_curve", "Accuracy assumption: wrong tool calls and task success "
                                      "vs tools visible", pts,
                                      note=f"Source: {curve.get('source', '')}. Read as: "
                                           + curve.get("reading", f"{curve.get('interpolation', '')}; outside: "
                                                                  f"{curve.get('outside', '')}") + "."))
        else:
            s.notes.append(f"Accuracy effect: {curve}.")
        rows = [{"assumption": label, "value": _plain(run.assumptions.get(k)), "field": k}
                for k, label in _ASSUMPTIONS.items() if run.assumptions.get(k) not in (None, "", [], {})]
        s.tables.append(Table("assumptions", "Scenario assumptions", pd.DataFrame(rows)))
        s.notes += [f"Simulation warning: {w}" for w in run.warnings]
    for key, why in inp.missing.items():
        s.notes.append(f"Missing input ({key}): {why}.")
    s.notes += [f"Input: {src}" for src in a.get("sources", [])]
    return s


# Scenario fields shown in the method section, in words a reader knows.
_ASSUMPTIONS = {
    "name": "scenario", "model": "model", "steps": "requests per task before wrong calls",
    "strategy": "which tools each request carries", "visible_set": "visible set", "caching": "prompt caching",
    "system_prompt_tokens": "system prompt (tokens)", "user_message_tokens": "user message (tokens)",
    "call_tokens": "one tool call's output (tokens)", "response_tokens": "one tool result (tokens)",
    "answer_tokens": "final answer (tokens)", "wrong_call_steps": "extra requests per wrong tool call",
    "tasks_per_day": "tasks per day", "days_per_month": "days per month", "render": "tool rendering",
    "tool_tokens_method": "tool definitions measured as", "caching_used": "prompt caching used",
    "tool_tokens_note": "per-tool counts",
}


def _plain(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, (dict, list)):
        return json.dumps(v, ensure_ascii=False)
    return str(v)
