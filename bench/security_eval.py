"""The security rules measured on labelled sets: real tools from public MCP servers (none is an attack)
and published attack styles (every one is). Prints the `poisoning` findings on the real set (goal 0),
the share of real tools with a `suspicious` finding (goal at most 0.5%) and the attack recall (goal:
every attack flagged `poisoning`); exits 1 when a goal is missed. The real set is the tool lists
committed in tests/data/real_tools plus ../shared/data/tools (1,294 tools); without the shared data the
bench says so, measures the committed part and does not judge the suspicious share, a goal set on all.

    .venv/bin/python bench/security_eval.py [--real FILE_OR_FOLDER] [--attacks tests/data/attacks/attacks.json]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _shared_data import load_real_tools, shared_or_skip  # noqa: E402

from toolsurvey.advice.audit.run import audit  # noqa: E402
from toolsurvey.inputs.formats import load  # noqa: E402

RULES = ["poisoning-*", "suspicious-*"]
MAX_SUSPICIOUS = 0.005


def real_set(path: str | None):
    """(registry, where it came from, whether the suspicious-share goal applies): `path`, or the real set."""
    if path is not None:
        return load(path), path, True
    shared = shared_or_skip("tools", leaving_out="the 176 tools of GitHub's, Cloudflare's remote and two "
                            "reference servers; measuring the committed tool lists only")
    source = "tests/data/real_tools" + (f" and {shared}" if shared else "")
    return load_real_tools(), source, shared is not None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--real", help="tool lists to measure instead of the real set")
    ap.add_argument("--attacks", default=str(ROOT / "tests" / "data" / "attacks" / "attacks.json"))
    args = ap.parse_args()

    real, source, judged = real_set(args.real)
    f = audit(real, rules=RULES)
    poisoned = f[f["severity"] == "poisoning"]
    suspicious = f[f["severity"] == "suspicious"].drop_duplicates(["server", "tool"])
    share = len(suspicious) / len(real)
    print(f"real tools: {len(real):,} from {len(real.servers)} servers ({source})")
    print(f"  poisoning findings: {len(poisoned)} (goal 0)")
    for r in poisoned.itertuples():
        print(f"    {r.rule} {r.server}/{r.tool}: {r.evidence}")
    goal = f"goal <= {MAX_SUSPICIOUS:.1%}" + ("" if judged else " on all 1,294 tools: not judged here")
    print(f"  tools with a suspicious finding: {len(suspicious)} = {share:.2%} ({goal})")
    for r in suspicious.itertuples():
        print(f"    {r.rule} {r.server}/{r.tool}: {r.evidence}")

    attacks = load(args.attacks)
    fa = audit(attacks, rules=RULES)
    flagged = set(fa.loc[fa["severity"] == "poisoning", "server"])
    missed = sorted(set(attacks.servers) - flagged)
    print(f"attacks: {len(flagged)} of {len(attacks.servers)} flagged poisoning = "
          f"{len(flagged) / len(attacks.servers):.0%} recall (goal 100%)")
    for name in missed:
        print(f"    missed: {name}")
    by_rule = fa[fa["severity"] == "poisoning"].groupby("rule")["server"].nunique()
    print("  attacks per rule: " + ", ".join(f"{rule} {n}" for rule, n in by_rule.items()))
    met = poisoned.empty and (share <= MAX_SUSPICIOUS or not judged) and not missed
    if met and not judged:
        print("goals met on the committed part (the suspicious share is judged on all 1,294 tools)")
    else:
        print("goals met" if met else "goals NOT met")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
