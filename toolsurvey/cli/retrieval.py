"""`toolsurvey retrieval`: how often a search finds the tools each task needs in this registry."""

from __future__ import annotations

import argparse
import json

HELP = "measure a tool search on your registry: hit@k, recall@k, MRR per method, and which tools are never found"
METHODS = ("bm25", "regex", "tfidf", "embedding")


def _ks(text: str) -> tuple[int, ...]:
    try:
        ks = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        ks = ()
    if not ks or min(ks) < 1:
        raise argparse.ArgumentTypeError(f"expected whole numbers >= 1 separated by commas (1,3,5,10), found {text!r}")
    return ks


def configure(p: argparse.ArgumentParser) -> None:
    from ._common import add_output_args, add_registry_args

    add_registry_args(p)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--queries", metavar="FILE", help='JSON Lines of {"id", "query", "gold": [tool names]}')
    src.add_argument("--traces", metavar="PATH",
                     help="agent traces: each user prompt, with the registry tools then called, is a query")
    p.add_argument("--method", choices=METHODS, default="bm25", help="how tools are ranked (default: %(default)s)")
    p.add_argument("--rankings", metavar="FILE",
                   help='JSON Lines of {"id", "ranked": [tool names, best first]}: your own retriever\'s output')
    p.add_argument("-k", type=_ks, default=(1, 3, 5, 10), metavar="K,K,...", help="cut-offs (default: 1,3,5,10)")
    p.add_argument("--ties", choices=("pessimistic", "optimistic"), default="pessimistic",
                   help="equal scores: a tool the query does not need ranks first (default) or last")
    p.add_argument("--model", metavar="DIR", help="the model2vec model directory for --method embedding")
    add_output_args(p)


def run(args: argparse.Namespace) -> int:
    from ..measuring.retrieval.evaluation import retrieval_eval
    from ._common import load_registry, print_warnings, write

    reg = load_registry(args)
    queries = args.queries
    if args.traces:
        from ..inputs.trace_queries import queries_from_traces

        queries = queries_from_traces(args.traces, reg)
        print_warnings(queries.warnings)
    ev = retrieval_eval(reg, queries, method=args.method, k=args.k, rankings=args.rankings, ties=args.ties,
                        model=args.model)
    print_warnings(ev.warnings)
    if args.format == "json":
        write(json.dumps(ev.to_json(), indent=2, ensure_ascii=False) + "\n", args.output)
    else:
        from ..present.retrieval import queries_csv, retrieval_text

        write(queries_csv(ev) if args.format == "csv" else retrieval_text(ev), args.output)
    return 0
