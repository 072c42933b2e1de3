"""The report's section on search: what a search finds in this registry (hit@k by k, MRR) and the
findability table (the tools queries need, least found first, and the tools that outrank them)."""

from __future__ import annotations

from ..retrieval import by_k, findability
from .document import Headline, Section, Table
from .inputs import Inputs


def search_section(inp: Inputs) -> Section:
    """hit@k and recall@k by k, MRR, the never-found tools and the findability table."""
    ev = inp.retrieval
    s = Section("search", "What a search finds in this registry")
    s.text.append(f"{ev.summary['queries']:,} queries, each with the tools it needs, ranked against all "
                  f"{ev.summary['tools']:,} tools by {ev.method} (name, description and parameters; ties go to "
                  f"a tool the query does not need). The search levers above use hit@k at the search's k.")
    s.figures += [Headline(f"hit_at_{k}", f"of queries find a needed tool in the top {k}", ev.summary[f"hit@{k}"],
                           f"{ev.summary[f'hit@{k}']:.0%}") for k in ev.k]
    s.figures.append(Headline("mrr", "mean reciprocal rank of the best needed tool", ev.summary["mrr"],
                              f"{ev.summary['mrr']:.2f}"))
    s.tables.append(Table("search_by_k", "hit@k (a needed tool in the top k) and recall@k (the share of needed "
                          "tools in the top k)", by_k(ev)))
    never = ev.never_found()
    s.tables.append(Table("findability", f"Findability: how often a query that needs a tool finds it in the top "
                          f"{ev.find_k}, least found first", findability(ev, inp.top),
                          note=f"{len(never)} tool(s) no query finds; the audit lists them (rule never-found)."))
    return s
