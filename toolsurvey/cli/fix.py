"""`toolsurvey fix`: the plan's changes written out: contract-preserving schema rewrites for the servers
you own, a review file for descriptions, and the client settings for the servers you don't."""

from __future__ import annotations

import argparse

HELP = "rewrite owned servers' schemas (proved equivalent) and write the client settings a plan calls for"

_EPILOG = """examples:
  toolsurvey fix REG.json --own catalog,deploys,metrics
  toolsurvey fix REG.json --own catalog,deploys,metrics --write -o fixed.json
  toolsurvey fix REG.json --own catalog --describe review.md   # descriptions to rewrite
  toolsurvey fix --client claude-code --snapshot snap.json --usage calls.jsonl
  toolsurvey fix --client codex --snapshot snap.json --usage calls.jsonl --write
  toolsurvey fix REG.json --own catalog --eval queries.jsonl --eval-model gpt-4o-mini --max-drop 2

Nothing is written without --write (the default is a dry run: the rewrites and a
unified diff). --eval FILE with --eval-model MODEL runs `toolsurvey eval NEW
--baseline OLD` (NEW: the fixed registry, OLD: the one read) on those queries and
prints the selection change next to the saving, the estimate first (--max-cost,
--yes); --max-drop POINTS flags a rewrite that lowers accuracy by more.

exit status: 0; 1 accuracy fell by more than --max-drop (the rest is still done and
written); 2 bad arguments, config or input (nothing is written)."""


def configure(p: argparse.ArgumentParser) -> None:
    from ._args import above
    from ._common import add_wide_arg
    from ._measure import add_plan_inputs
    from ._servers import add_client_args, add_discovery_args
    from .eval import add_asking_args

    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.epilog = _EPILOG
    p.add_argument("paths", nargs="*", metavar="PATH", help="tool files, registry files or snapshots (or --client)")
    p.add_argument("--input-format", dest="input_format", default=None, help="skip detection of PATH's format")
    p.add_argument("--own", default=None, metavar="SERVERS",
                   help="comma-separated servers you own: their schemas are rewritten (others: client settings)")
    p.add_argument("--providers", default=None, metavar="NAMES",
                   help="the providers the rewritten tools must suit (default: every one with schema facts)")
    p.add_argument("--rules", default=None, metavar="IDS", help="only these rewrite rules (comma-separated)")
    p.add_argument("--describe", default=None, metavar="FILE",
                   help="write a review file: flagged descriptions with the five-element skeleton")
    add_client_args(p)
    p.add_argument("--server", action="append", default=[], metavar="NAME", help="with --client: only this server")
    p.add_argument("--snapshot", metavar="FILE", help="with --client: the tools saved by discover (else start them)")
    add_discovery_args(p)
    add_plan_inputs(p)
    p.add_argument("--queries", metavar="FILE", help="queries for the plan's tool-search stage")
    p.add_argument("--no-defer", dest="defer", action="store_false", help="leave tool search out of the plan")
    p.add_argument("--eval-model", default=None, metavar="MODEL",
                   help="with --eval: the model asked which tool it calls, on the registry read and the fixed one")
    p.add_argument("--eval", dest="eval_file", default=None, metavar="FILE",
                   help="with --eval-model: the queries the selection change is measured on (as `eval --queries`)")
    p.add_argument("--max-drop", type=above(0), default=None, metavar="POINTS",
                   help="with --eval: flag (exit 1) rewrites that lower accuracy by more than POINTS percentage points")
    add_asking_args(p, concurrency="--eval-concurrency")
    p.add_argument("--write", action="store_true",
                   help="write: the fixed registry (-o) and the client's config files (backups kept)")
    p.add_argument("--format", choices=("table", "json"), default="table", help="output format (default: %(default)s)")
    p.add_argument("-o", "--output", default=None, metavar="FILE",
                   help="with --write: where the fixed registry goes (registry format; never the file read)")
    add_wide_arg(p)


def run(args: argparse.Namespace) -> int:
    import json

    from ..errors import InputError
    from ._common import print_warnings, say, write

    if bool(args.paths) == bool(args.client):
        raise InputError("give the registry to fix (PATH) or --client NAME (its servers' tools), one of them")
    wanted = _eval_wanted(args)
    reg, cfg = _registry(args)
    scenario, _ = _scenario(args)
    report: dict = {"rewrites": None, "settings": None}
    rw = None
    if args.own:
        rw, report["rewrites"] = _rewrites(args, reg, scenario)
    elif args.paths:
        raise InputError("name the servers you own with --own: fix rewrites schemas only on them")
    if wanted:
        report["selection"] = selection_change(args, reg, rw.after)
    if args.describe:
        _describe(args, reg)
    changes = []
    if cfg is not None:
        report["settings"], changes, plan_warnings = _settings(args, reg, cfg, scenario)
        print_warnings(plan_warnings)
    if args.write:
        _write(args, rw, changes)
    elif args.output or changes:
        say("dry run: nothing written (--write writes " + ", ".join(
            ([args.output] if args.output and rw else []) + [c.shown for c in changes if c.new != (c.old or "")])
            + ")" if (args.output and rw) or changes else "dry run")
    text = json.dumps(report, indent=2, ensure_ascii=False, default=str) + "\n" if args.format == "json" \
        else _text(report, changes)
    write(text, None)
    return 1 if (report.get("selection") or {}).get("flagged") else 0


def _eval_wanted(args: argparse.Namespace) -> bool:
    """Whether the selection change is asked for; one line (InputError) when a partner flag is missing."""
    from ..errors import InputError

    if not (args.eval_model or args.eval_file):
        if args.max_drop is not None:
            raise InputError("--max-drop flags a drop in accuracy measured with --eval FILE and --eval-model "
                             "MODEL; pass both")
        return False
    if not (args.eval_model and args.eval_file):
        given, missing = ("--eval", "--eval-model MODEL") if args.eval_file else ("--eval-model", "--eval FILE")
        raise InputError(f"{given} needs {missing} too: the queries and the model the selection change is "
                         "measured with")
    if not args.own:
        raise InputError("--eval measures the schema rewrites on the servers you own; name them with --own")
    return True


def selection_change(args: argparse.Namespace, old, new) -> dict:
    """`toolsurvey eval NEW --baseline OLD` on --eval's queries with --eval-model: the accuracy of both
    with intervals, the comparison (changed queries, McNemar's p, tokens and cost per completed task),
    and whether accuracy fell by more than --max-drop points (as eval's gate counts it)."""
    from .eval import compare_registries

    ev, base, comparison = compare_registries(args, new, old, [args.eval_file], args.eval_model)
    drop = None if base.accuracy is None or ev.accuracy is None else (base.accuracy - ev.accuracy) * 100
    return {"model": args.eval_model, "queries": args.eval_file,
            "accuracy_before": base.summary["accuracy"], "accuracy_after": ev.summary["accuracy"],
            "comparison": comparison,
            "drop_points": drop, "max_drop": args.max_drop,
            "flagged": args.max_drop is not None and drop is not None and drop > args.max_drop}


def _registry(args):
    from ._common import load_registry
    from ._servers import client_config, discover_client, from_snapshot

    if args.paths:
        return load_registry(args), None
    cfg = client_config(args)
    if args.snapshot:
        return from_snapshot(args.snapshot, cfg), cfg
    return discover_client(cfg, args), cfg


def _scenario(args):
    from ..model.assumed import with_options

    return with_options(args.scenario, model=args.model, tasks_per_day=args.tasks_per_day, caching=args.caching,
                        system_prompt_tokens=args.system_prompt_tokens, accuracy_curve=args.accuracy_curve)


def _rewrites(args, reg, scenario):
    from ..advice.baseline import baseline
    from ..advice.fix.money import rewrite_money
    from ..advice.fix.rewrite import rewrite

    providers = [p.strip() for p in args.providers.split(",")] if args.providers else None
    rules = [r.strip() for r in args.rules.split(",")] if args.rules else None
    rw = rewrite(reg, args.own, providers=providers, rules=rules)
    money = rewrite_money(rw, baseline(reg, scenario, args.usage))
    per_rule = rw.by_rule()
    rows = [{"rule": rid, **per_rule[rid], **money.get(rid, {"tokens_per_request": 0.0, "cost_per_month": 0.0,
                                                            "realises": "-"})} for rid in per_rule]
    report = {"own": sorted(rw.own), "providers": list(rw.providers), "tokens_saved": rw.saving,
              "rules": rows,
              "applied": [{"rule": a.rule, "tool": a.key, "sites": list(a.sites), "tokens_before": a.before,
                           "tokens_after": a.after, "saved": a.saving} for a in rw.applied],
              "refused": [{"rule": r.rule, "tool": r.key, "why": r.why} for r in rw.refused]}
    return rw, report


def _describe(args, reg) -> None:
    from ..advice.audit.run import audit
    from ..advice.fix.describe import reviews
    from ..advice.ownership import owned
    from ..core.writing import atomic_write
    from ..errors import InputError
    from ..present.markdown import escape
    from ._common import say

    own = owned(args.own) if args.own else None
    if not own:
        raise InputError("--describe needs --own: descriptions are yours to rewrite only on your servers")
    items = reviews(reg, audit(reg, own=args.own), own)
    lines = ["# Descriptions to review", "",
             "Written by `toolsurvey fix --describe`: descriptions are never rewritten automatically. Each "
             "skeleton follows the five elements of “Tool registry design”; the neighbour comes from the "
             "near-duplicate finding, the rest is yours to write.", ""]
    for r in items:
        lines += [f"## {escape(r.key)}", "", "Flagged: " + "; ".join(escape(f) for f in r.findings), "",
                  "Today: " + (escape(r.description) or "(no description)"), ""]
        lines += [f"{i}. **{name}**: {escape(text)}" for i, (name, text) in enumerate(r.elements.items(), 1)]
        lines.append("")
    atomic_write(args.describe, "\n".join(lines))
    say(f"wrote {args.describe}: {len(items)} tool(s) to review")


def _settings(args, reg, cfg, scenario):
    import os
    from pathlib import Path

    from ..advice.fix.money import setting_money, stage_money
    from ..advice.fix.settings import client_settings, server_tools
    from ..advice.ownership import owned
    from ..advice.plan.stages import STAGES, plan
    from ..core.registry import Registry
    from ..inputs.clients.edit import apply, load
    from ..measuring.client_context import client_context

    shown = {s.name: s for s in cfg.servers}
    reg = reg.filter(lambda t: t.server not in shown or shown[t.server].keeps(t.name))  # plan what the model sees
    stages = [s for s in STAGES if args.defer or s != "defer"]
    p = plan(reg, usage=args.usage, phases=args.phases, scenario=scenario, own=args.own, queries=args.queries,
             stages=stages)
    environ = dict(os.environ)
    home = Path(environ.get("HOME") or Path.home()).expanduser()
    project = Path(args.project or os.getcwd()).expanduser().resolve()
    before = client_context(reg, cfg, model=args.model, environ=environ)
    deferrable = before.search.setting != "none" and before.search.setting != "model"
    cp = client_settings(cfg, p.actions, server_tools(cfg, reg), owned(args.own), home=home, project=project,
                         environ=environ, search_deferred=before.search.deferred if deferrable else None,
                         model=before.model)
    started = Registry({s.name: reg.servers[s.name] for s in cp.after.servers if s.name in reg.servers})
    after = client_context(started, cp.after, model=args.model, environ={**environ, **cp.after.env})
    money = stage_money(p)
    changes: dict[str, object] = {}
    for s in cp.settings:
        if s.edit is None:
            continue
        c = changes.get(s.file) or load(s.file, s.syntax, _shown(s.file, home))
        changes[s.file] = c
        apply(c, s.edit)
    rows = [{"stage": s.stage, "target": s.target, "setting": s.what, "file": _shown(s.file, home) if s.file else None,
             "reachable": s.reachable, **setting_money(s, money), "source": s.source} for s in cp.settings]
    report = {"client": cfg.client, "label": cp.label, "model": before.model, "settings": rows,
              "in_context_before": before.totals["in_context"], "in_context_after": after.totals["in_context"],
              "plan_actions": {k: int(v) for k, v in p.actions_table()["kind"].value_counts().items()}}
    return report, list(changes.values()), list(p.warnings)


def _shown(path: str, home) -> str:
    from pathlib import Path

    try:
        return "~/" + Path(path).relative_to(home).as_posix()
    except ValueError:
        return str(path)


def _write(args, rw, changes) -> None:
    import json

    from ..core.writing import atomic_write
    from ..errors import InputError
    from ..inputs.clients.edit import write_all
    from ..inputs.formats import dump
    from ._common import say

    if rw is not None and not args.output and not changes:
        raise InputError("--write needs -o FILE for the fixed registry (fix never overwrites the files it read)")
    write_all(changes)
    for c in changes:
        if c.new != (c.old or ""):
            say(f"wrote {c.shown}" + (f" (backup: {c.shown}.toolsurvey-backup)" if c.old is not None else " (new)"))
    if rw is not None and args.output:
        atomic_write(args.output, json.dumps(dump(rw.after), indent=2, ensure_ascii=False) + "\n")
        say(f"wrote {args.output}: {len(rw.after)} tools, {rw.saving:,} tokens fewer")


def _text(report: dict, changes) -> str:
    from ..present.units import money
    from ._common import fit, text_table

    parts = []
    rw = report["rewrites"]
    if rw is not None:
        parts.append(fit(f"schema rewrites on the servers you own ({', '.join(rw['own'])}), safe for "
                         f"{', '.join(rw['providers'])}: {rw['tokens_saved']:,} tokens saved in the tool "
                         "definitions (compact JSON, each tool once)"))
        rows = [[r["rule"], r["tools"], r["sites"], r["tokens"], round(r["tokens_per_request"]),
                 money(r["cost_per_month"]), r["refused"], r["realises"]] for r in rw["rules"]]
        parts.append(text_table(["rule", "tools", "places", "tokens saved", "per request", "$/month", "refused",
                                 "realises"], rows, [False, True, True, True, True, True, True, False]))
        if rw["applied"]:
            parts.append(text_table(["rule", "tool", "tokens before", "after", "saved"],
                                    [[a["rule"], a["tool"], a["tokens_before"], a["tokens_after"], a["saved"]]
                                     for a in rw["applied"]], [False, False, True, True, True]))
        if rw["refused"]:
            lines = [f"not applied: {r['rule']} on {r['tool']}: {r['why']}" for r in rw["refused"]]
            more = f"\n… and {len(lines) - 20:,} more (--format json lists them all)" if len(lines) > 20 else ""
            parts.append(fit("\n".join(lines[:20]) + more))
    if report.get("selection") is not None:
        parts.append(_selection_text(report["selection"]))
    st = report["settings"]
    if st is not None:
        parts.append(fit(f"{st['label']} settings for the plan ({st['model']}): in the context "
                         f"{st['in_context_before']:,} tokens now, {st['in_context_after']:,} after (planned; "
                         f"`toolsurvey context --client {st['client']}` shows it once written)"))
        rows = [[s["stage"], s["target"], s["setting"], round(s["tokens_per_request"]), money(s["cost_per_month"]),
                 s["file"] or "-"] for s in st["settings"]]
        parts.append(text_table(["stage", "target", "setting", "per request", "$/month", "file"], rows,
                                [False, False, False, True, True, False]))
        sources = list(dict.fromkeys(s["source"] for s in st["settings"]))
        parts.append(fit("\n".join(f"source: {s}" for s in sources)))
        diffs = "".join(d if d.endswith("\n") else d + "\n" for c in changes if (d := c.diff()))
        if diffs:
            parts.append(diffs.rstrip("\n"))
    return "\n\n".join(parts) + "\n"


def _selection_text(sel: dict) -> str:
    """The selection change: both accuracies with intervals, then eval --baseline's comparison as eval
    prints it (the baseline is the registry read, "this registry" the fixed one), then the flag."""
    from ..present.markdown import visible
    from ..present.selection import comparison_text, rate_text
    from ..present.units import percent
    from ._common import fit

    head = fit(f"selection change of the rewrites: {visible(sel['model'])} asked which tool it calls for each query "
               f"of {visible(sel['queries'])}, on the registry read (the baseline) and the fixed one (this registry), "
               "as `toolsurvey eval FIXED --baseline READ` asks\n"
               f"  accuracy before: {rate_text(sel['accuracy_before'])}\n"
               f"  accuracy after:  {rate_text(sel['accuracy_after'])}")
    text = head + "\n\n" + comparison_text(sel["comparison"]).rstrip("\n")
    if sel["flagged"]:
        text += "\n\n" + fit(f"FLAGGED: accuracy dropped {sel['drop_points']:.1f} points "
                              f"({percent(sel['accuracy_before']['rate'])} → {percent(sel['accuracy_after']['rate'])}), "
                              f"more than --max-drop {sel['max_drop']:g}: the rewrites change which tool the model "
                              "calls (exit 1)")
    return text
