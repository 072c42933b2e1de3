"""How a client's MCP context reads: the headline lines, the per-server and per-tool rows, and the
same as Markdown (measuring.client_context computes it)."""

from __future__ import annotations

from ..core.text import plural
from ..measuring.client_context import ClientContext
from .markdown import escape, table

SERVER_COLUMNS = ["server", "scope", "tools", "deferred", "instructions", "in context", "all loaded"]
TOOL_COLUMNS = ["server", "tool", "state", "in context", "loaded"]


def share(v: float) -> str:
    """A share of the context window: two decimals below 1% (0.06%), one above (12.5%)."""
    return f"{v:.2%}" if v < 0.01 else f"{v:.1%}"


def summary_lines(ctx: ClientContext) -> list[str]:
    """The figures first: where, which model and window, the tool-search setting, the tokens in the
    context and what they are made of."""
    t = ctx.totals
    made_of = [f"{t['loaded_tool_tokens']:,} for {plural(t['loaded'], 'loaded tool')}"] if t["loaded"] else []
    if t["deferred_name_tokens"]:
        made_of.append(f"{t['deferred_name_tokens']:,} for the names of {plural(t['deferred'], 'deferred tool')}")
    if t["namespace_tokens"]:
        made_of.append(f"{t['namespace_tokens']:,} for the names of {plural(t['deferred_servers'], 'server')} whose "
                       f"{plural(t['deferred'], 'tool is', 'tools are')} deferred")
    if t["search_tool_tokens"]:
        made_of.append(f"{t['search_tool_tokens']:,} for the search tool")
    made_of.append(f"{t['instruction_tokens']:,} of server instructions" if t["instruction_tokens"]
                   else "no server instructions")
    lines = [
        f"{ctx.label}: {plural(t['servers'], 'server')}, {plural(t['tools'], 'MCP tool')} for the model "
        f"{ctx.model} ({ctx.context_window:,}-token context window; {ctx.model_source})",
        f"tool search ({ctx.search.setting}): {ctx.search.why}",
        f"in the context: {t['in_context']:,} tokens, {share(t['context_share'])} of the window: "
        + ", ".join(made_of) + (f"; loaded, every tool and instruction would take {t['tokens_all_loaded']:,}"
                                if t["deferred"] else ""),
        f"tokens: {ctx.method} ({ctx.encoding})",
    ]
    if not t.get("complete", True):
        lines.append("incomplete: some servers could not be read (see the notes)")
    return lines


def server_rows(ctx: ClientContext) -> list[list]:
    return [[s["server"], s["scope"], s["tools"], s["deferred"], s["instructions"],
             s["in_context"], s["tokens_loaded"] + s["instructions"]] for s in ctx.servers]


def tool_rows(ctx: ClientContext) -> list[list]:
    return [[r["server"], r["name"], r["state"] + (" (always)" if r["always_load"] else ""), r["in_context"],
             r["tokens"]] for r in ctx.tools]


def context_markdown(ctx: ClientContext) -> str:
    """The context as a Markdown page: the figures, the limits it breaks, per server and per tool."""
    out = [f"## What {escape(ctx.label)} puts in the context", ""]
    out += [f"- {escape(line)}" for line in summary_lines(ctx)]
    if ctx.limits:
        out += ["", "**Over a limit:**", ""] + [f"- {escape(x)}" for x in ctx.limits]
    out += ["", "### Per server", "", table(SERVER_COLUMNS, _grouped(server_rows(ctx)), right=range(2, 7)),
            "", "### Per tool", "", table(TOOL_COLUMNS, _grouped(tool_rows(ctx)), right=(3, 4))]
    if ctx.notes:
        out += ["", "### Notes", ""] + [f"- {escape(n)}" for n in ctx.notes]
    out += ["", f"Sources: {escape('; '.join(ctx.sources))}"]
    return "\n".join(out) + "\n"


def _grouped(rows: list[list]) -> list[list]:
    """Counts with thousands separators, as the text table prints them (1,734, not 1734)."""
    return [[f"{v:,}" if isinstance(v, int) else v for v in row] for row in rows]
