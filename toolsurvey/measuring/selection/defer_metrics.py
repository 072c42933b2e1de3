"""What a deferred-loading eval (`toolsurvey eval --defer MODE`) adds up to, counted from each
record's `"defer"` field over each query's first answer (repeat 0):

- searched: the queries whose model searched at least once, over all queries;
- search found gold: of the queries that need a tool and whose model searched, those where a search
  returned a gold tool (the BM25 hit rate, but on the queries the model itself wrote);
- end to end: of the queries that need a tool, those whose final answer is right (every call to a
  gold tool), whatever the model did before. With `--defer client` a deferred tool can be called only
  after a search loaded it, so a right answer there is always a right answer after a search; the
  count of right answers made without a search is reported beside it;
- extra requests and tokens: the requests after each query's first, and their input and output
  tokens (None where the provider bills the searches inside one request: Anthropic's server-side
  search, whose searches are counted in `search_requests` instead).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .metrics import first_answers, rate


def deferred(records: Sequence[dict]) -> bool:
    """Whether these records come from a `--defer` eval."""
    return any(isinstance(r.get("defer"), dict) for r in records)


def _total(values: list) -> int | None:
    return None if any(v is None for v in values) else int(sum(values))


def defer_summary(records: Sequence[dict]) -> dict:
    """The figures of the module docstring, each rate as metrics.rate gives it (count, of, rate,
    low, high), and the extra requests and tokens in total and per query."""
    first = [r for r in first_answers(records) if isinstance(r.get("defer"), dict)]
    n = len(first)
    need = [r for r in first if r["gold"]]
    searched = [r for r in first if r["defer"]["searched"]]
    need_searched = [r for r in need if r["defer"]["searched"]]
    right = [r for r in need if r["outcome"] == "right"]
    extra_req = [r["defer"]["extra_requests"] for r in first]
    extra_in = [r["defer"]["extra_input_tokens"] for r in first]
    extra_out = [r["defer"].get("extra_output_tokens") for r in first]
    per = lambda t: None if t is None or not n else t / n  # noqa: E731
    tot_req, tot_in, tot_out = _total(extra_req), _total(extra_in), _total(extra_out)
    return {"modes": sorted(Counter(r["defer"]["mode"] for r in first)), "queries": n, "need_tool": len(need),
            "searched": rate(len(searched), n),
            "search_found_gold": rate(sum(1 for r in need_searched if r["defer"]["found_gold"]), len(need_searched)),
            "end_to_end": rate(len(right), len(need)),
            "right_without_search": sum(1 for r in right if not r["defer"]["searched"]),
            "search_requests": _total([r["defer"].get("search_requests") for r in first]),
            "rounds_exhausted": sum(1 for r in first if r["defer"].get("exhausted")),
            "extra_requests": tot_req, "extra_requests_per_query": per(tot_req),
            "extra_input_tokens": tot_in, "extra_input_tokens_per_query": per(tot_in),
            "extra_output_tokens": tot_out, "extra_output_tokens_per_query": per(tot_out)}
