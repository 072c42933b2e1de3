"""The sections on the tool surface: where the definition tokens go, and the audit findings that cost money."""

from __future__ import annotations

from ...advice.pricing import price_findings
from ...core.severity import at_least
from ...measuring.footprint import by_server, tools_only
from .document import Section, Table
from .inputs import Inputs, priced, token_rate
from .summary import lever_rules


def surface_section(inp: Inputs) -> Section:
    """Tokens per server and the largest tools, as a table and stacked by part."""
    t = inp.table
    s = Section("surface", "Where the tokens go: servers and tools")
    s.text.append("Each server's share of the tool definitions sent with every request, and the tools "
                  "that cost the most. A large tool is not a defect in itself: a clear description "
                  "can save steps. The tables show where a change would matter most.")
    s.tables.append(Table("servers", "Tokens per server", by_server(t)))
    tools = tools_only(t).sort_values("tokens", ascending=False, kind="stable").head(inp.top)
    keep = ["server", "tool", "tokens", "description", "schema", "param_descriptions"]
    s.tables.append(Table("top_tools", f"The {len(tools)} largest tools", tools[keep].reset_index(drop=True)))
    from ..charts.footprint import parts_bar

    s.charts.append(parts_bar(t, top=inp.top))
    return s


def findings_section(inp: Inputs) -> Section:
    """The findings that add tokens, by rule and the costliest ones, priced under the scenario; all by severity."""
    s = Section("findings", "Findings that cost money")
    f = inp.findings
    s.text.append("The audit checks every tool against rules for good tool contracts. Some findings make "
                  "every request longer; their monthly cost is what those tokens cost under the scenario. "
                  "Others cost steps (the model picks the wrong tool or retries) or break some clients.")
    once = price_findings(f)  # with every tool visible: the audit's own figures, counted once
    costly = f.assign(tokens_all_visible=once.round().astype("int64"), tokens_as_visible=priced(inp))
    costly = costly[costly["tokens_all_visible"] > 0]
    rate = token_rate(inp)
    if not costly.empty:
        s.tables += _costly_tables(inp, costly, rate)
    counts = f.groupby(["severity", "impact"]).size().rename("findings").reset_index()
    s.tables.append(Table("findings_count", "All findings by severity and kind of impact", counts))
    serious = f[[at_least(v, "error") for v in f["severity"]]]
    if not serious.empty:
        s.tables.append(Table("findings_serious", "Security and error findings (fix these first)",
                              serious[["severity", "rule", "server", "tool", "evidence", "fix"]].reset_index(drop=True)))
    return s


def _costly_tables(inp: Inputs, costly, rate: float) -> list[Table]:
    """The findings that add tokens to requests: by rule, and the costliest ones."""
    covered = lever_rules(inp)
    by_rule = costly.groupby("rule", sort=False).agg(tools=("tool", "nunique"),
                                                     tokens_all_visible=("tokens_all_visible", "sum"),
                                                     tokens_as_visible=("tokens_as_visible", "sum"))
    by_rule["cost_per_month_usd"] = by_rule["tokens_as_visible"] * rate
    by_rule["in_lever"] = ["yes" if r in covered else "" for r in by_rule.index]  # its findings that cut text
    by_rule = by_rule.sort_values("tokens_as_visible", ascending=False, kind="stable").reset_index()
    top = costly.sort_values("tokens_as_visible", ascending=False, kind="stable").head(inp.top)
    top = top[["rule", "server", "tool", "tokens_all_visible", "tokens_as_visible", "evidence", "fix"]]
    top = top.reset_index(drop=True)
    top.insert(5, "cost_per_month_usd", top["tokens_as_visible"] * rate)
    return [Table("findings_by_rule", "Findings that add tokens to requests, by rule", by_rule,
                  note="Each text is counted once (two rules about one description charge once; "
                       "a merge once per cluster), then weighted by how often the tool is visible "
                       "under the scenario. \"In lever\": counted in the \"fix the audit "
                       "findings\" lever; overlap is the plan's merge stage instead."),
            Table("findings", f"The {len(top)} costliest findings", top)]
