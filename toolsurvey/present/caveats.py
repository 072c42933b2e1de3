"""The views of what a result assumed and what it warns about: a short table of assumptions (what,
value, source and date) and a list of warnings. Each value is said in a few words with its unit;
`.to_dict()` on the object gives every field as it is."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import Any

from ..core.text import plural
from ..model.assumed import FIELD_LABELS
from .tables import NO_MATH
from .units import money, number, percent

LONG = 160  # characters: a longer value shows its first sentence, the rest a click away
# Fields of a run's assumptions not shown (the object keeps them): the scenario's name and description
# head the table, the visible set states strategy, phases and overflow in one line, and the rest say
# nothing unless set (prices and price_file overrides, samples and their seed).
QUIET = {"name", "description", "strategy", "phases", "overflow", "visible", "tools", "caching", "render",
         "encoding", "calibration", "tool_tokens", "registry_size", "accuracy", "prices", "price_file",
         "samples", "seed", "price", "accuracy_curve", "caching_rules", "render_used"}
# Fields that matter only for some strategies.
BY_STRATEGY = {"core": ("retrieval", "tool_search"), "retrieval_k": ("retrieval",),
               "search_k": ("tool_search",), "searches": ("tool_search",),
               "search_tool_tokens": ("tool_search",), "search_result_tokens": ("tool_search",)}
TOKENS = {"system_prompt_tokens", "user_message_tokens", "call_tokens", "response_tokens", "answer_tokens",
          "overhead_tokens", "search_tool_tokens", "search_result_tokens"}


def _when(d: Mapping) -> str:
    source, as_of = str(d.get("source", "")), str(d.get("as_of", ""))
    return ", ".join(x for x in (source, as_of) if x)


def _price(p: Mapping) -> tuple[str, str]:
    parts = [f"{name} {money(p[key])}" for key, name in (("input", "input"), ("output", "output"),
             ("cache_write", "cache write"), ("cache_read", "cache read")) if p.get(key) is not None]
    origins = sorted(set((p.get("origins") or {}).values())) or [_when(p)]
    return f"{p.get('model', '')}: {', '.join(parts)} per million tokens", "; ".join(o for o in origins if o)


def _curve(c: Mapping) -> tuple[str, str]:
    pts = c.get("points") or []
    if not pts:
        return str(c), _when(c)
    a, b = pts[0], pts[-1]
    value = (f"wrong-tool rate {percent(a['wrong'])} at {number(a['visible'])} visible tools to "
             f"{percent(b['wrong'])} at {number(b['visible'])}; task success {percent(a['success'])} to "
             f"{percent(b['success'])} ({plural(len(pts), 'measured point')}, {c.get('interpolation', 'linear')} between)")
    return value, _when(c)


def _phases(ps: list) -> str:
    return "; ".join(f"{p.get('name')}: {plural(int(p.get('steps', 1)), 'step')} ({', '.join(map(str, p.get('tools', [])))})"
                     for p in ps)


def _plain(v: Any) -> str:
    """A value in a few words: numbers with separators, lists joined, mappings as key value pairs."""
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, int | float):
        return number(v)
    if isinstance(v, list) and v and all(isinstance(x, Mapping) and "name" in x for x in v):
        return _phases(v)
    if isinstance(v, list | tuple):
        return ", ".join(map(_plain, v))
    if isinstance(v, Mapping):
        return "; ".join(f"{k.replace('_', ' ')} {_plain(x)}" for k, x in v.items() if x not in (None, "", [], {}))
    return re.sub(r"\s+", " ", str(v)).strip()


def _row(key: str, v: Any, scenario: str) -> tuple[str, str, str]:
    """(what, value, source and date) of one assumption."""
    what = FIELD_LABELS.get(key, key.replace("_", " "))
    if isinstance(v, Mapping) and "input" in v and "output" in v:
        return (what if what != key else "price", *_price(v))
    if isinstance(v, Mapping) and "points" in v:
        return (what, *_curve(v))
    if isinstance(v, Mapping) and "note" in v and "source" in v:
        return what, _plain(v["note"]), _when(v)
    value = _plain(v)
    if key in TOKENS and isinstance(v, int | float):
        value += " tokens"
    return what, value, scenario


def run_rows(a: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """The rows a reader needs of a run's assumptions, in reading order."""
    scenario = f"scenario “{a['name']}”" if a.get("name") else "Scenario() defaults"
    strategy = a.get("strategy")
    rows = [("model", str(a.get("model")), scenario)]
    if isinstance(a.get("price"), Mapping):
        rows.append(("price", *_price(a["price"])))
    for key, v in a.items():
        if key in QUIET or key == "model" or v in (None, "", [], {}):
            continue
        if key in BY_STRATEGY and strategy not in BY_STRATEGY[key]:
            continue
        if key == "caching_used":
            rows.append(("prompt caching", _plain(v), _when(a.get("caching_rules") or {}) or scenario))
            continue
        source = "toolsurvey's cost model (docs/simulation.md)" if key == "rules" else \
            "measured" if key in ("tool_tokens_method", "overhead_tokens", "visible_set", "tool_tokens_note") else scenario
        rows.append(_row(key, v, scenario)[:2] + (source,))
    if isinstance(a.get("accuracy_curve"), Mapping):
        rows.append(("accuracy curve", *_curve(a["accuracy_curve"])))
    elif a.get("accuracy_curve"):
        rows.append(("accuracy curve", _plain(a["accuracy_curve"]), scenario))
    if a.get("samples"):
        rows.append(("Monte Carlo", f"{number(a['samples'])} sampled tasks, seed {a.get('seed')}", scenario))
    return rows


def plan_rows(a: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """The rows of a plan's assumptions (its keys already read as words)."""
    return [_row(k, v, "the plan" if k in ("merge estimate", "near-duplicates", "merges", "trim rule") else
                 "the usage log" if k in ("usage", "tool result tokens per call") else "the scenario")
            for k, v in a.items() if v not in (None, "", [], {})]


def _cell(text: str) -> str:
    """A value cell: long text shows its first sentence, the rest in a <details> a click away."""
    if len(text) <= LONG:
        return html.escape(text)
    cut = text.find("; ", 60, LONG)
    cut = cut if cut > 0 else text.rfind(" ", 0, LONG)
    return (f"<details><summary>{html.escape(text[:cut])} …</summary>"
            f"{html.escape(text[cut:].lstrip('; '))}</details>")


def assumptions_html(a: Mapping[str, Any]) -> str:
    rows = run_rows(a) if "rules" in a and "steps" in a else plan_rows(a)
    head = html.escape(f"Assumptions ({len(rows)} of {len(a)} fields shown; .to_dict() has all of them)")
    body = "".join(f"<tr><td>{html.escape(w)}</td><td>{_cell(v)}</td><td>{html.escape(s)}</td></tr>" for w, v, s in rows)
    return (f'<div class="toolsurvey-rich {NO_MATH}"><strong>{head}</strong>'
            '<table class="toolsurvey-table" style="table-layout:auto;max-width:100%">'
            '<thead><tr><th style="text-align:left">what</th><th style="text-align:left">value</th>'
            '<th style="text-align:left">source and date</th></tr></thead>'
            f'<tbody style="vertical-align:top;text-align:left;overflow-wrap:anywhere">{body}</tbody></table></div>')


def assumptions_text(a: Mapping[str, Any]) -> str:
    rows = run_rows(a) if "rules" in a and "steps" in a else plan_rows(a)
    cut = lambda s: s if len(s) <= LONG else s[:LONG - 1] + "…"
    return "\n".join([f"Assumptions ({len(rows)} of {len(a)} fields; .to_dict() has all of them)"]
                     + [f"  {w}: {cut(v)}" + (f" [{s}]" if s else "") for w, v, s in rows])


def warnings_list(ws: list[str]) -> str:
    """The warnings as an HTML list under a count, each once; '' for none."""
    if not ws:
        return ""
    items = "".join(f"<li>{html.escape(w)}</li>" for w in ws)
    return f'<p><strong>{html.escape(plural(len(ws), "warning"))}</strong></p><ul style="overflow-wrap:anywhere">{items}</ul>'


def warnings_html(ws: list[str]) -> str:
    return f'<div class="toolsurvey-rich {NO_MATH}">{warnings_list(ws) or "<em>no warnings</em>"}</div>'


def warnings_text(ws: list[str]) -> str:
    return "\n".join([plural(len(ws), "warning")] + [f"  - {w}" for w in ws])
