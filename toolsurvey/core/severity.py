"""The audit's severities, in one table: their names in rising order, the old names they still answer
to, and the levels SARIF and GitHub code scanning give each. The audit's ranking, its Jupyter view, the
CLI's headline and `--fail-on` choices, the budget gate and the SARIF log all read it.

No heavy imports: parsing arguments reads it (`toolsurvey --help` stays fast).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from ..errors import InputError

# name, rising: (SARIF level, GitHub's `security-severity` from 0 to 10, or None for a defect that is no
# security finding). `suspicious` (review it) sits below error so that `--fail-on error` fails on errors
# and poisoning, never on text a person only has to read.
_TABLE: dict[str, tuple[str, str | None]] = {
    "info": ("note", None),
    "warning": ("warning", None),
    "suspicious": ("warning", "5.0"),
    "error": ("error", None),
    "poisoning": ("error", "9.0"),
}
SEVERITIES = tuple(_TABLE)
ALIASES = {"security": "poisoning"}  # `security` is the old name of `poisoning`
CHOICES = (*SEVERITIES, *ALIASES)  # what `--fail-on` accepts
SARIF_LEVELS = {name: level for name, (level, _) in _TABLE.items()}
SECURITY_SEVERITY = {name: score for name, (_, score) in _TABLE.items() if score is not None}


def severity(name: str) -> str:
    """The severity called `name` (an old name gives its new one). Raises InputError if unknown."""
    name = ALIASES.get(name, name)
    if name not in _TABLE:
        raise InputError(f"unknown severity {name!r}; expected one of: {', '.join(SEVERITIES)}")
    return name


def rank(name: str) -> int:
    """0 for the lowest severity, rising; an old name ranks as its new one. Raises InputError if unknown."""
    return SEVERITIES.index(severity(name))


def at_least(name: str, level: str) -> bool:
    """True when severity `name` is `level` or above."""
    return rank(name) >= rank(level)


def tally(severities: Iterable[str]) -> str:
    """How many of each severity, worst first: `2 poisoning, 2 warning, 3 info` ("" for none)."""
    counts = Counter(severity(s) for s in severities)
    return ", ".join(f"{counts[s]:,} {s}" for s in reversed(SEVERITIES) if counts[s])
