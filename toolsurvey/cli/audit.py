"""`toolsurvey audit`: contract defects that cost tokens, steps or safety, ranked by impact."""

from __future__ import annotations

import argparse

HELP = "find tool-contract defects (descriptions, schemas, names, near-duplicates, poisoning), ranked by impact"
FORMATS = ("table", "csv", "json", "markdown", "sarif")


def configure(p: argparse.ArgumentParser) -> None:
    from ._common import add_fail_on, add_output_args, add_registry_args
    from ._measure import add_encoding_arg

    add_registry_args(p)
    add_fail_on(p, "exit 1 when any finding is at this severity or above")
    p.add_argument("--rules", default=None, help="only these rules (comma-separated ids or globs, e.g. 'schema-*')")
    p.add_argument("--config", default=None, metavar="FILE",
                   help="TOML file overriding thresholds of toolsurvey/assumptions/audit.toml")
    add_encoding_arg(p, "tiktoken encoding for token figures", by_model=False)
    p.add_argument("--by", choices=("finding", "rule"), default="finding", help="one row per finding, or per rule")
    p.add_argument("--own", default=None, metavar="SERVERS",
                   help="comma-separated servers you own: their near-duplicates are mergeable (overlap); others "
                        "are overlap-across-servers (default: only near-duplicates within one server are mergeable)")
    p.add_argument("--queries", metavar="FILE",
                   help='JSON Lines of {"id", "query", "gold"}: add the never-found rule (tools no query finds)')
    p.add_argument("--eval", metavar="FILE",
                   help="an eval file (toolsurvey eval --format json, or its --log): add the confused-pair rule "
                        "(tools the model took for each other, [selection] min_confusions times or more); a "
                        "description-length sweep adds description-needed (tools whose recall drops when their "
                        "description is cut)")
    add_output_args(p, formats=FORMATS)
    from ._progress import add_quiet_arg

    add_quiet_arg(p)


def header(findings, tools: int) -> str:
    from ..core.severity import tally

    per = tally(findings["severity"]) or "none"
    from ..advice.pricing import price_findings

    priced = price_findings(findings)  # each text counted once, as the report and the plan count it
    saving = int(round(priced[priced > 0].sum()))
    cost = int(round(-priced[priced < 0].sum()))
    return (f"{len(findings):,} findings on {findings[['server', 'tool']].drop_duplicates().shape[0]:,} of "
            f"{tools:,} tools ({per}); the fixes that cut text save {saving:,} tokens per request, the ones "
            f"that add text cost {cost:,} (tokens: + saves, - costs, per request)")


def markdown(df, head: str) -> str:
    import pandas as pd

    from ..present.markdown import table

    numeric = [i for i, c in enumerate(df.columns) if c in ("tokens", "findings", "tools", "group")]
    rows = [["" if pd.isna(v) else v for v in r] for r in df.itertuples(index=False)]
    return f"{head}\n\n" + table(list(df.columns), rows, right=numeric) + "\n"


def sarif_log(findings, paths: list[str]) -> str:
    """The findings as SARIF 2.1.0, each located at its tool's entry in the registry files given."""
    import json
    from pathlib import Path

    from .. import __version__
    from ..advice.audit.run import RULES
    from ..core.files import read_text
    from ..present.sarif import locate, sarif

    files = [f for p in paths if p != "-" for f in (sorted(Path(p).glob("*.json")) if Path(p).is_dir() else [Path(p)])]
    texts = {f.as_posix(): read_text(f, "registry") for f in files}
    where = locate(texts, set(zip(findings["server"], findings["tool"], strict=True)))
    return json.dumps(sarif(findings, RULES, version=__version__, locations=where), indent=1) + "\n"


def run(args: argparse.Namespace) -> int:
    from ..advice.audit.run import audit, fails, summary
    from ._common import emit, load_registry, write

    reg = load_registry(args)
    rules = [r.strip() for r in args.rules.split(",") if r.strip()] if args.rules else None
    from ._progress import Bar

    with Bar("auditing tools", len(reg), quiet=args.quiet) as bar:
        findings = audit(reg, rules=rules, config=args.config, encoding=args.encoding, own=args.own,
                         progress=lambda total: bar.advance(total=total), queries=args.queries,
                         eval=args.eval)
    out = summary(findings) if args.by == "rule" else findings
    if args.format == "table" and args.by == "finding":
        out = out[["severity", "rule", "server", "tool", "tokens", "evidence", "fix"]]
    notes = findings.attrs.get("notes", [])  # how the eval was read; they name tools (escaped below)
    head = header(findings, len(reg)) + "".join(f"\n{n}" for n in notes)
    if args.format == "sarif":
        write(sarif_log(findings, args.paths), args.output)
    elif args.format == "table" and out.empty:
        write(head + "\n", args.output)
    elif args.format == "markdown":
        from ..present.markdown import escape

        write(markdown(out, header(findings, len(reg)) + "".join(f"\n\n{escape(n)}" for n in notes)), args.output)
    else:
        emit(out.astype({"group": "object"}) if "group" in out else out, args.format, args.output, head,
             wide=args.wide)
    return 1 if args.fail_on and fails(findings, args.fail_on) else 0
