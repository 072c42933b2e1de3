"""A selection eval shown: the headline rates with their 95% intervals, the per-tool table, the
confusion matrix (expected against called), the estimate beside what was billed, and the caveat
that the figures describe one model on these queries. As a terminal page, Markdown, CSV (one row per
answer) and the Jupyter views. Tool names, queries and answers are third-party text: escaped in
every output."""

from __future__ import annotations

import csv
import io

from ..core.writing import safe_text
from .markdown import escape, visible
from .units import money, number, percent

HEADLINES = (("accuracy", "accuracy (right tool, or rightly no call)"), ("tool_accuracy", "right tool, of queries needing one"),
             ("skip_rate", "skip (no call, a tool needed)"), ("false_call_rate", "false call (a call, none needed)"),
             ("invalid_rate", "invalid call"))
MAX_TOOLS = 25  # rows and columns of the text confusion matrix and per-tool table (JSON has them all)


def _rate(r: dict) -> str:
    if r["rate"] is None:
        return f"–  (0 of {r['of']})"
    return f"{percent(r['rate'])}  [{percent(r['low'])}, {percent(r['high'])}]  ({r['count']} of {r['of']})"


def rate_text(r: dict) -> str:
    """A rate of an eval's summary with its 95% interval and counts: `81.0%  [70.2%, 88.6%]  (47 of 58)`."""
    return _rate(r)


def headline_rows(ev) -> list[list[str]]:
    s = ev.summary
    rows = [[label, _rate(s[key])] for key, label in HEADLINES]
    rows.append(["right tool, arguments failing its schema", str(s["right_invalid_args"])])
    if s["args_match"]["of"]:
        rows.append(["expected arguments matched (of right answers with args)", _rate(s["args_match"])])
    agree = ev.agreement()
    if agree:
        rows.append(["answers that agree across repeats", _rate(agree)])
    return rows


DEFER_RATES = (("searched", "searched (of all queries)"),
               ("search_found_gold", "a search found a gold tool (of searches for queries needing a tool)"),
               ("end_to_end", "right tool in the end (of queries needing a tool): end to end"))


def defer_rows(ev) -> list[list[str]]:
    """The deferred-loading figures (eval --defer), or none for a plain eval."""
    d = ev.defer()
    if d is None:
        return []
    rows = [[label, _rate(d[key])] for key, label in DEFER_RATES]
    rows.append(["right without a search", str(d["right_without_search"])])
    if d["rounds_exhausted"]:
        rows.append(["still searching at the last request (counted as no call)", str(d["rounds_exhausted"])])
    tok = lambda v, per: "not separable (searched inside one request)" if v is None else (  # noqa: E731
        f"{number(v)} ({per:,.1f} per query)")
    rows.append(["searches run", "–" if d["search_requests"] is None else number(d["search_requests"])])
    rows.append(["extra requests", tok(d["extra_requests"], d["extra_requests_per_query"] or 0)])
    rows.append(["extra input tokens", tok(d["extra_input_tokens"], d["extra_input_tokens_per_query"] or 0)])
    rows.append(["extra output tokens", tok(d["extra_output_tokens"], d["extra_output_tokens_per_query"] or 0)])
    return rows


def defer_head(ev) -> str:
    d = ev.defer()
    return f"deferred loading ({', '.join(d['modes'])}), the model in the loop (docs/eval.md):"


def cost_lines(ev) -> list[str]:
    """The estimate made before sending, and what the answers were billed."""
    e, b = ev.estimate, ev.billed()
    est = (f"estimate: {number(e.requests)} requests, {number(e.input_tokens)} input tokens"
           + (f", {money(e.cost)} ({money(e.cost_cached)} with the tools cached)" if e.cost is not None
              else " (no price is known for this model: tokens only)"))
    u = b["usage"]
    billed_in = sum(u.get(k, 0) for k in ("input", "cache_write_5m", "cache_write_1h", "cache_read"))
    got = (f"billed: {number(b['requests'])} requests sent ({number(b['from_cache'])} answers from the cache, "
           f"not billed), {number(billed_in)} input tokens ({number(u.get('cache_read', 0))} read from the "
           f"provider's cache), {number(u.get('output', 0))} output tokens"
           + (f", {money(b['cost'])}" if b["cost"] is not None else ""))
    return [est, got]


def per_tool_frame(ev):
    import pandas as pd

    rows = ev.per_tool()
    cols = ["tool", "expected", "called", "right", "precision", "recall", "skip_rate"]
    return pd.DataFrame(rows, columns=cols)


def confusion_frame(ev):
    import pandas as pd

    c = ev.confusion()
    return pd.DataFrame(c["counts"], index=pd.Index(c["rows"], name="expected \\ called"), columns=c["columns"])


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    fmt = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
    return [fmt(header), *(fmt(r) for r in rows)]


def _short(names: list[str]) -> dict[str, str]:
    """Column labels for the confusion matrix: c1, c2, ... with a legend (names are long)."""
    return {n: f"t{i}" for i, n in enumerate(names, 1)}


def selection_text(ev) -> str:
    """The eval as a terminal page."""
    lines = [visible(ev.describe()), f"api: {ev.api}" + (f" at {visible(ev.base_url)}" if ev.base_url else ""), ""]
    lines += _table(["rate", "value  [95% interval]  (count)"], headline_rows(ev))
    if defer_rows(ev):
        lines += ["", defer_head(ev)]
        lines += _table(["figure", "value  [95% interval]  (count)"], [[a, visible(b)] for a, b in defer_rows(ev)])
    pt = ev.per_tool()[:MAX_TOOLS]
    lines += ["", "per tool (expected: queries it answers; called: answers naming it):"]
    lines += _table(["tool", "expected", "called", "right", "precision", "recall", "skip"],
                    [[visible(r["tool"]), str(r["expected"]), str(r["called"]), str(r["right"]), percent(r["precision"]),
                      percent(r["recall"]), percent(r["skip_rate"])] for r in pt])
    c = ev.confusion()
    tools = [n for n in c["rows"] if n != "none"][:MAX_TOOLS]
    short = _short(tools)
    lines += ["", "confusion (rows expected, columns called):"]
    head = ["expected \\ called", *(short[n] for n in tools), "none", "invalid"]
    keep = [c["columns"].index(n) for n in tools] + [c["columns"].index("none"), c["columns"].index("invalid")]
    rows = [[short.get(r, r), *(str(c["counts"][i][j]) for j in keep)] for i, r in enumerate(c["rows"])
            if r in short or r == "none"]
    lines += _table(head, rows)
    lines += [f"  {short[n]} = {visible(n)}" for n in tools]
    lines += ["", *cost_lines(ev), "", f"note: {_caveat()}"]
    lines += [f"warning: {visible(w)}" for w in ev.warnings]
    return "\n".join(lines) + "\n"


def _caveat() -> str:
    from ..measuring.selection.result import CAVEAT

    return CAVEAT


def selection_markdown(ev) -> str:
    """The eval as Markdown: headline table, per-tool table, confusion matrix, cost, caveat."""
    out = [f"## Tool selection: {escape(ev.describe())}", "", "| rate | value [95% interval] (count) |", "|---|---|"]
    out += [f"| {escape(a)} | {escape(b)} |" for a, b in headline_rows(ev)]
    if defer_rows(ev):
        out += ["", f"**{escape(defer_head(ev))}**", "", "| figure | value [95% interval] (count) |", "|---|---|"]
        out += [f"| {escape(a)} | {escape(b)} |" for a, b in defer_rows(ev)]
    out += ["", "| tool | expected | called | right | precision | recall | skip |", "|---|---:|---:|---:|---:|---:|---:|"]
    out += [f"| {escape(r['tool'])} | {r['expected']} | {r['called']} | {r['right']} | {percent(r['precision'])} | "
            f"{percent(r['recall'])} | {percent(r['skip_rate'])} |" for r in ev.per_tool()]
    c = ev.confusion()
    out += ["", "| expected \\ called | " + " | ".join(escape(x) for x in c["columns"]) + " |",
            "|---|" + "---:|" * len(c["columns"])]
    out += [f"| {escape(r)} | " + " | ".join(str(v) for v in row) + " |" for r, row in zip(c["rows"], c["counts"], strict=True)]
    out += ["", *(f"- {escape(x)}" for x in cost_lines(ev)), "", f"_{escape(_caveat())}_"]
    out += [f"- warning: {escape(w)}" for w in ev.warnings]
    return "\n".join(out) + "\n"


CSV_COLUMNS = ("id", "repeat", "outcome", "expected", "called", "args_valid", "args_match", "tool", "text",
               "latency_s", "cost", "from_cache")


DEFER_CSV = ("mode", "searched", "found_gold", "search_requests", "extra_requests", "extra_input_tokens",
             "extra_output_tokens")


def records_csv(ev) -> str:
    """One row per answer (the log's main fields, and with --defer the defer fields), spreadsheet-safe."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    extra = DEFER_CSV if ev.defer() is not None else ()
    w.writerow([*CSV_COLUMNS, *(f"defer_{k}" for k in extra)])
    for r in ev.records:
        d = r.get("defer") or {}
        w.writerow([safe_text("" if r[k] is None else r[k]) for k in CSV_COLUMNS]
                   + [safe_text("" if d.get(k) is None else d[k]) for k in extra])
    return buf.getvalue()


def view_lines(ev) -> tuple[str, list[str]]:
    """The Jupyter view's title and lines: the headline rates, cost, caveat, warnings."""
    lines = [f"{a}: {b}" for a, b in headline_rows(ev) + defer_rows(ev)] + cost_lines(ev) + [_caveat()]
    return f"Tool selection: {ev.describe()}", lines + [f"warning: {w}" for w in ev.warnings[:5]]


def _task(t: dict) -> str:
    tok = "–" if t["tokens_per_request"] is None else f"{number(t['tokens_per_request'])} tool tokens per request"
    per = t["tokens_per_completed_task"]
    task = "no task completed" if per is None else f"{number(per)} tokens per completed task"
    cost = "" if t["cost_per_completed_task"] is None else f", {money(t['cost_per_completed_task'])} per completed task"
    return f"{tok}, {task}{cost}" + (f" ({t['note']})" if t.get("note") else "")


def comparison_text(c: dict, markdown: bool = False) -> str:
    """The baseline comparison: accuracy before and after with McNemar's exact p, each registry's
    tokens and cost per completed task (simulated with the measured accuracy), and the queries whose
    outcome changed."""
    esc = escape if markdown else visible
    acc = lambda v: "–" if v is None else percent(v)
    diff = "–" if c["difference"] is None else f"{c['difference'] * 100:+.1f} points"
    lines = [("## " if markdown else "") + "Against the baseline", "",
             f"accuracy: {acc(c['accuracy_before'])} → {acc(c['accuracy_after'])} ({diff}) over {c['paired']} paired "
             f"queries; {c['b']} right before only, {c['c']} right after only; exact McNemar p = {c['p_value']:.4g}",
             f"baseline: {_task(c['before'])}", f"this registry: {_task(c['after'])}", "",
             f"{len(c['changed'])} queries changed outcome:"]
    lines += [f"{'- ' if markdown else '  '}{esc(x['id'])}: {x['before']} ({esc(x['called_before'])}) → {x['after']} "
              f"({esc(x['called_after'])}): {esc(x['query'])}" for x in c["changed"]]
    return "\n".join(lines) + "\n"


SWEEP_RATES = (("wrong_call_rate", "wrong call"), ("accuracy", "accuracy"), ("tool_accuracy", "right tool"),
               ("skip_rate", "skip"), ("false_call_rate", "false call"), ("invalid_rate", "invalid"))
SWEEP_CSV = ("visible", "tools_offered", "queries", *(f"{k}_{x}" for k, _ in SWEEP_RATES
                                                     for x in ("count", "of", "rate", "low", "high")))


def _sweep_head(sw) -> list[str]:
    ev = sw.eval
    return [f"catalog-size sweep: {sw.eval.model}, {sw.queries} queries, {sw.registry_size} tools in the registry; "
            f"each query's gold tools plus {sw.distractors} distractors (seed {sw.seed})",
            "wrong call = (wrong + invalid) / calls made, over the queries that need a tool (docs/eval.md)",
            f"api: {ev.api}" + (f" at {ev.base_url}" if ev.base_url else "")]


def sweep_rows(sw) -> list[list[str]]:
    return [[str(r["visible"]), f"{r['tools_offered']:.3g}", str(r["queries"]),
             *(_rate(r[k]) for k, _ in SWEEP_RATES)] for r in sw.by_size()]


def sweep_text(sw) -> str:
    """The sweep as a terminal page: one row per size, each rate with its 95% interval and counts."""
    lines = [visible(x) for x in _sweep_head(sw)] + [""]
    lines += _table(["visible", "tools", "queries", *(label for _, label in SWEEP_RATES)], sweep_rows(sw))
    lines += ["", *cost_lines(sw.eval), "", f"note: {_caveat()}"]
    lines += [f"warning: {visible(w)}" for w in sw.eval.warnings + sw.warnings]
    return "\n".join(lines) + "\n"


def sweep_markdown(sw) -> str:
    out = [f"## Tool selection against catalog size: {escape(sw.describe())}", "",
           *(f"{escape(x)}  " for x in _sweep_head(sw)), "",
           "| visible | tools | queries | " + " | ".join(label for _, label in SWEEP_RATES) + " |",
           "|---|---:|---:|" + "---:|" * len(SWEEP_RATES)]
    out += ["| " + " | ".join(escape(c) for c in row) + " |" for row in sweep_rows(sw)]
    out += ["", *(f"- {escape(x)}" for x in cost_lines(sw.eval)), "", f"_{escape(_caveat())}_"]
    out += [f"- warning: {escape(w)}" for w in sw.eval.warnings + sw.warnings]
    return "\n".join(out) + "\n"


def sweep_csv(sw) -> str:
    """One row per size: the rates' count, of, rate and interval."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(SWEEP_CSV)
    for r in sw.by_size():
        w.writerow([r["visible"], r["tools_offered"], r["queries"],
                    *("" if r[k][x] is None else r[k][x] for k, _ in SWEEP_RATES for x in ("count", "of", "rate", "low", "high"))])
    return buf.getvalue()


DESC_CSV = ("description_tokens", "mean_description_tokens", "descriptions_cut", "queries",
            *(f"{k}_{x}" for k, _ in SWEEP_RATES for x in ("count", "of", "rate", "low", "high")))


def _descriptions_head(de) -> list[str]:
    ev = de.eval
    return [f"description-length sweep: {ev.model}, {de.queries} queries, {de.registry_size} tools, every tool "
            f"offered; each description cut at N {de.encoding} tokens by the trimming cut (with its marker), "
            "as it is (full), or removed (none)",
            "wrong call = (wrong + invalid) / calls made, over the queries that need a tool (docs/eval.md)",
            f"api: {ev.api}" + (f" at {ev.base_url}" if ev.base_url else "")]


def descriptions_rows(de) -> list[list[str]]:
    def tokens(v):
        return "n/a" if v is None else f"{v:.3g}"

    return [[str(r["description_tokens"]), tokens(r["mean_description_tokens"]),
              "" if r["descriptions_cut"] is None else str(r["descriptions_cut"]), str(r["queries"]),
              *(_rate(r[k]) for k, _ in SWEEP_RATES)] for r in de.by_description()]


DESC_HEADER = ("descriptions", "mean tokens shown", "cut", "queries")


def descriptions_text(de) -> str:
    """The description sweep as a terminal page: one row per variant, each rate with its 95% interval and counts."""
    lines = [visible(x) for x in _descriptions_head(de)] + [""]
    lines += _table([*DESC_HEADER, *(label for _, label in SWEEP_RATES)], descriptions_rows(de))
    lines += ["", *cost_lines(de.eval), "", f"note: {_caveat()}"]
    lines += [f"warning: {visible(w)}" for w in de.eval.warnings + de.warnings]
    return "\n".join(lines) + "\n"


def descriptions_markdown(de) -> str:
    out = [f"## Tool selection against description length: {escape(de.describe())}", "",
           *(f"{escape(x)}  " for x in _descriptions_head(de)), "",
           "| " + " | ".join([*DESC_HEADER, *(label for _, label in SWEEP_RATES)]) + " |",
           "|---|---:|---:|---:|" + "---:|" * len(SWEEP_RATES)]
    out += ["| " + " | ".join(escape(c) for c in row) + " |" for row in descriptions_rows(de)]
    out += ["", *(f"- {escape(x)}" for x in cost_lines(de.eval)), "", f"_{escape(_caveat())}_"]
    out += [f"- warning: {escape(w)}" for w in de.eval.warnings + de.warnings]
    return "\n".join(out) + "\n"


def descriptions_csv(de) -> str:
    """One row per variant: the mean description tokens shown, then the rates' count, of, rate and interval."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(DESC_CSV)
    for r in de.by_description():
        w.writerow([r["description_tokens"], "" if r["mean_description_tokens"] is None else r["mean_description_tokens"],
                    "" if r["descriptions_cut"] is None else r["descriptions_cut"], r["queries"],
                    *("" if r[k][x] is None else r[k][x] for k, _ in SWEEP_RATES for x in ("count", "of", "rate", "low", "high"))])
    return buf.getvalue()


def descriptions_frame(de):
    """One row per variant of a description sweep: the mean tokens shown, and each rate as 'k of n' with its interval."""
    import pandas as pd

    return pd.DataFrame([{"descriptions": str(r["description_tokens"]),
                          "mean tokens shown": r["mean_description_tokens"],
                          **{label: _rate(r[k]) for k, label in SWEEP_RATES[:3]}} for r in de.by_description()])
