"""`toolsurvey plan`: a consolidation plan with its simulated before/after table."""

from __future__ import annotations

import argparse
import json

HELP = "plan deletions, merges, trims and phase gating from usage logs, and simulate before and after"
FORMATS = ("table", "csv", "json", "markdown")


def configure(p: argparse.ArgumentParser) -> None:
    from ._common import add_output_args, add_registry_args
    from ._measure import add_plan_inputs

    add_registry_args(p)
    add_plan_inputs(p)
    p.add_argument("--window-days", dest="window_days", type=_window, default="90", metavar="DAYS",
                   help="a tool not called in the log's last DAYS days (> 0) is unused; 'all': the whole log "
                        "(default: %(default)s)")
    p.add_argument("--own", default=None, metavar="SERVERS",
                   help="comma-separated servers you own: merges may join their tools across them "
                        "(default: merges only within one server)")
    p.add_argument("--no-delete", dest="delete", action="store_false", help="do not delete unused tools")
    p.add_argument("--no-merge", dest="merge", action="store_false", help="do not merge near-duplicates")
    p.add_argument("--no-trim", dest="trim", action="store_false", help="do not trim tool results")
    p.add_argument("--no-defer", dest="defer", action="store_false",
                   help="do not defer tools behind the provider's tool search (the last stage)")
    p.add_argument("--queries", metavar="FILE",
                   help='JSON Lines of {"id", "query", "gold"}: price deferred loading at the hit rate they measure')
    p.add_argument("--eval", metavar="FILE",
                   help="an eval file (toolsurvey eval --format json, or its --log): the pairs the model confused "
                        "join the merge stage, each beside the near-duplicate rule's score for it; an eval run "
                        "with --defer prices deferred loading at its end-to-end rate (docs/eval.md)")
    p.add_argument("--unphased", choices=("all", "hide"), default="all",
                   help="tools matching no phase: visible in every phase (default) or hidden")
    p.add_argument("--config", default=None, metavar="FILE", help="TOML overriding assumptions/audit.toml")
    p.add_argument("--show", choices=("summary", "actions", "stages"), default="summary",
                   help="the table printed for csv/json output (table/markdown print all; json's summary is "
                        "a document that also names the release and data dates that produced it)")
    add_output_args(p, formats=FORMATS)


def _window(text: str) -> float | None:
    """--window-days: a number of days > 0, or "all" for the whole log (None); a one-line error otherwise."""
    if text.strip().lower() == "all":
        return None
    try:
        days = float(text)
    except ValueError:
        days = float("nan")
    if not days > 0:
        raise argparse.ArgumentTypeError(f"expected a number of days > 0 or 'all', found {text!r}"
                                         + (" (0 days would call every tool unused)" if days == 0 else ""))
    return days


def _fmt(v: float, unit: str) -> str:
    from ..present.units import money, number

    if v != v:
        return "-"
    if unit == "share":
        return f"{v:.1%}"
    if unit == "USD":
        return money(v)
    return number(v)


def _pretty(table):
    import pandas as pd

    from ..present.units import points

    rows = []
    for r in table.itertuples(index=False):
        change = "-" if r.change_share != r.change_share else f"{r.change_share:+.0%}"
        delta = _fmt(r.change, r.unit) if r.unit != "share" else "-" if r.change != r.change else points(r.change)
        rows.append({"": r.metric, "before": _fmt(r.before, r.unit), "after": _fmt(r.after, r.unit),
                     "change": delta, "%": change})
    return pd.DataFrame(rows)


def _assumption_lines(assumptions: dict) -> list[str]:
    """One readable line per assumption: the accuracy curve's points, the price per million tokens
    with its source and date, phases by name, other values as text (never a raw JSON record)."""
    from ..present.prices import price_line

    out = []
    for k, v in assumptions.items():
        if isinstance(v, dict) and "points" in v:
            pts = ", ".join(f"{p['visible']:g} tools: {p['wrong']:.0%} wrong / {p['success']:.0%} success"
                            for p in v["points"])
            v = f"{pts} ({v.get('interpolation')}, {v.get('outside')} outside; {v.get('source')})"
        elif isinstance(v, dict) and {"model", "input", "output"} <= set(v):
            k, v = "price", price_line(v)
        elif isinstance(v, list) and all(isinstance(x, dict) and "name" in x for x in v):
            v = "; ".join(f"{x['name']} ({len(x.get('tools', []))} tool patterns"
                          + (f", {x['steps']:g} step{'s' * (x['steps'] != 1)})" if x.get("steps") is not None else ")")
                          for x in v)
        elif isinstance(v, list):
            v = ", ".join(map(str, v))
        elif isinstance(v, dict):
            v = "; ".join(f"{key} = {val}" for key, val in v.items())
        out.append(f"{k}: {'none' if v is None else v}")
    return out


def run(args: argparse.Namespace) -> int:
    from ..advice.plan.stages import STAGES, plan
    from ..errors import InputError
    from ..model.assumed import with_options
    from ._common import emit, load_registry, print_warnings, write

    reg = load_registry(args)
    if not len(reg):
        raise InputError(f"{', '.join(args.paths)}: expected at least one tool, found none; nothing to plan")
    scenario, stated = with_options(args.scenario, model=args.model, tasks_per_day=args.tasks_per_day,
                                    caching=args.caching, system_prompt_tokens=args.system_prompt_tokens,
                                    accuracy_curve=args.accuracy_curve)
    stages = [s for s in STAGES if getattr(args, s)]  # --no-delete, --no-merge, --no-trim, --no-defer
    p = plan(reg, usage=args.usage, phases=args.phases, scenario=scenario, stages=stages,
             window_days=args.window_days, unphased=args.unphased, config=args.config, own=args.own,
             queries=args.queries, eval=args.eval)
    print_warnings(p.warnings)
    actions = p.actions_table()
    if args.format in ("csv", "json") and args.show != "summary":
        emit(actions if args.show == "actions" else p.stages, args.format, args.output, wide=args.wide)
    elif args.format == "csv":
        emit(p.table, "csv", args.output)
    elif args.format == "json":
        from ..model.provenance import provenance

        doc = {"produced_by": provenance(), "table": json.loads(p.table.to_json(orient="records")),
               "actions": json.loads(actions.to_json(orient="records")),
               "stages": json.loads(p.stages.to_json(orient="records")),
               "assumptions": json.loads(json.dumps(p.assumptions, default=str)), "warnings": p.warnings}
        write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", args.output)
    else:
        write(_text(p, actions, _head(reg, p, actions, scenario, stated), args.format, args.wide), args.output)
    return 0


def _head(reg, p, actions, scenario, stated: set[str]) -> str:
    """The plan's first line: its actions, the model and visible set simulated, and what was assumed."""
    from ..model.assumed import unstated_line

    counts = actions["kind"].value_counts()
    head = (f"plan for {len(reg):,} tools: " + (", ".join(f"{int(counts[k])} {k}" for k in ("delete", "merge", "trim", "gate")
                                                          if k in counts) or "no actions")
            + f"; simulated with {p.assumptions['model']} (before: {p.assumptions['visible set before']}; "
            + f"merges {p.assumptions['merges']})")
    unstated = unstated_line(scenario, stated, p.runs.get("before"))
    return head + "\n" + unstated if unstated else head


def _text(p, actions, head: str, fmt: str, wide: bool) -> str:
    """The plan as Markdown or as text tables: before/after, actions, stages and assumptions."""
    from ._common import fit, render_table

    shown = actions.assign(tokens_per_request=actions["tokens_per_request"].round(0).astype("int64"),
                           tokens_per_task=actions["tokens_per_task"].round(0).astype("int64"))
    shown = shown[["kind", "target", "tokens_per_request", "tokens_per_task", "detail"]]
    stages = p.stages.round({"mean_visible": 1, "tool_tokens_per_request": 0, "steps_per_task": 2,
                             "wrong_rate": 3, "success": 3, "input_tokens_per_task": 0, "cost_per_task": 4,
                             "cost_per_completed_task": 4})
    if fmt == "markdown":
        from ..present.markdown import escape, table

        def md(df, right):
            return table(list(df.columns), [list(r) for r in df.itertuples(index=False)], right=right)

        return "\n\n".join([f"**{head}**", md(_pretty(p.table), [1, 2, 3, 4]), "### Actions",
                             md(shown, [2, 3]), "### Stages", md(stages, range(1, 10)), "### Assumptions",
                             "\n".join(f"- {escape(line)}" for line in _assumption_lines(p.assumptions))]) + "\n"
    return "\n\n".join([fit(head, wide), render_table(_pretty(p.table), wide=wide),
                         fit("actions (tokens saved per request and per task; negative: the action costs tokens):", wide),
                         render_table(shown, wide=wide), "stages (each simulated):", render_table(stages, wide=wide),
                         "assumptions:",
                         fit("\n".join("  " + line for line in _assumption_lines(p.assumptions)), wide)]) + "\n"
