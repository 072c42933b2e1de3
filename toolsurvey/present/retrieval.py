"""A retrieval evaluation shown: the summary (hit@k, recall@k, MRR), the per-query CSV, and the
findability table (the tools queries miss, and what outranks them) as text and in Jupyter."""

from __future__ import annotations

import csv
import io

import pandas as pd

from ..core.writing import safe_text
from .markdown import visible
from .units import percent

MAX_ROWS = 15  # findability rows in the text and Markdown tables (the JSON has them all)


def summary_rows(ev) -> list[list[str]]:
    """One row per k: hit@k and recall@k."""
    return [[str(k), percent(ev.summary[f"hit@{k}"]), percent(ev.summary[f"recall@{k}"])] for k in ev.k]


def hard_tools(ev, n: int = MAX_ROWS):
    """The tools queries need, least found first (then most needed): the findability table's rows."""
    t = ev.tools[ev.tools["needed"] > 0]
    return t.sort_values(["found_share", "needed", "tool"], ascending=[True, False, True]).head(n)


def _found(row) -> str:
    return f"{row['found']}/{row['needed']}"


def by_k(ev) -> pd.DataFrame:
    """hit@k and recall@k, one row per k."""
    return pd.DataFrame({"k": list(ev.k), "hit_at_k": [ev.summary[f"hit@{k}"] for k in ev.k],
                         "recall_at_k": [ev.summary[f"recall@{k}"] for k in ev.k]})


def findability(ev, n: int = MAX_ROWS) -> pd.DataFrame:
    """The findability table: the tools queries need, least found first, with the tools that outrank them."""
    hard = hard_tools(ev, n).assign(confusions=lambda d: d["confusions"].map(", ".join))
    return hard[["tool", "needed", "found", "found_share", "best_rank", "confusions"]].reset_index(drop=True)


def view_lines(ev) -> tuple[str, list[str]]:
    """The Jupyter view's title and headline lines: method and figures, MRR, the tools never found."""
    never = ev.never_found()
    needed = int((ev.tools["needed"] > 0).sum())
    shown = ", ".join(never[:5]) + (f" and {len(never) - 5} more" if len(never) > 5 else "")
    return (f"Retrieval: {ev.describe()}",
            [f"ties: {ev.ties}", f"{len(never)} of {needed} needed tools never found in the top {ev.find_k}"
             + (f": {shown}" if never else ""), *(f"warning: {w}" for w in ev.warnings[:5])])


def retrieval_text(ev) -> str:
    """The evaluation as a terminal page: method line, hit@k / recall@k by k, MRR, never-found tools
    and the findability of the tools most often missed."""
    s = ev.summary
    lines = [visible(ev.describe()), f"ties: {ev.ties} (a tool the query does not need wins an equal score)"
             if ev.ties == "pessimistic" else "ties: optimistic (a needed tool wins an equal score)", "",
             f"{'k':>4}  {'hit@k':>7}  {'recall@k':>8}"]
    lines += [f"{k:>4}  {h:>7}  {r:>8}" for k, h, r in summary_rows(ev)]
    lines += [f"MRR {s['mrr']:.3f}", ""]
    never = ev.never_found()
    needed = int((ev.tools["needed"] > 0).sum())
    lines.append(f"{len(never)} of {needed} needed tools never found in the top {ev.find_k}"
                 + (":" if never else "."))
    lines += [f"  {visible(t)}" for t in never[:MAX_ROWS]]
    if len(never) > MAX_ROWS:
        lines.append(f"  … and {len(never) - MAX_ROWS} more (--format json lists them all)")
    lines += ["", f"findability (least found first; top {ev.find_k}):"]
    for _, r in hard_tools(ev).iterrows():
        conf = ", ".join(r["confusions"])
        lines.append(f"  {visible(r['tool'])}: {_found(r)} found" + (f"; outranked by {visible(conf)}" if conf else ""))
    return "\n".join(lines) + "\n"


def queries_csv(ev) -> str:
    """One row per query: id, gold tools, their ranks, the best rank, and hit@k for each k."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["id", "gold", "ranks", "best_rank", *(f"hit@{k}" for k in ev.k), "top", "query"])
    for _, q in ev.queries.iterrows():
        best = q["best_rank"]
        ranks = " ".join("-" if r != r else str(int(r)) for r in q["ranks"])
        hits = [int(best == best and best <= k) for k in ev.k]
        w.writerow([safe_text(v) for v in (q["id"], " ".join(q["gold"]), ranks, "" if best != best else int(best),
                                           *hits, " ".join(q["top"]), q["query"])])
    return buf.getvalue()
