"""Apply the schema rewrite rules to the tools of the servers the user owns, each change measured
exactly (the footprint's compact-JSON tokens before and after), and the rules a provider in reach
cannot take left out with the reason."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from ...core.registry import Registry, Tool
from ...core.tokens import DEFAULT_ENCODING
from ...errors import InputError
from ...measuring.tool_tokens import tool_tokens
from ...providers.schemas import schema_facts, schema_providers
from ..ownership import check_owned, owned
from .rules import RULES, SchemaRule


@dataclass(frozen=True)
class Applied:
    """One rule applied to one tool: where, and the tokens before and after."""

    rule: str
    key: str
    sites: tuple[str, ...]
    before: int
    after: int

    @property
    def saving(self) -> int:
        return self.before - self.after


@dataclass(frozen=True)
class Refused:
    """A rule left out of one tool (or of every tool, `key` "(all)"), and why."""

    rule: str
    key: str
    why: str


@dataclass
class Rewrites:
    """The registry before and after, one registry after each rule in turn (`stages`, for pricing),
    what each rule did and what it refused."""

    before: Registry
    after: Registry
    own: frozenset[str]
    providers: tuple[str, ...]
    encoding: str
    applied: list[Applied] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    stages: dict[str, Registry] = field(default_factory=dict)

    @property
    def saving(self) -> int:
        """Tokens of the tool definitions saved in all (compact JSON, every tool once)."""
        return sum(a.saving for a in self.applied)

    def by_rule(self) -> dict[str, dict]:
        """Per rule (in table order): tools changed, places changed, tokens saved."""
        out = {}
        for rid in RULES:
            mine = [a for a in self.applied if a.rule == rid]
            out[rid] = {"tools": len(mine), "sites": sum(len(a.sites) for a in mine),
                        "tokens": sum(a.saving for a in mine),
                        "refused": sum(r.rule == rid for r in self.refused)}
        return out


def rule_providers(rule: SchemaRule, providers: Iterable[str]) -> list[str]:
    """The providers among `providers` that `rule` is not safe for (it needs a fact they lack)."""
    return [p for p in providers if not all(schema_facts(p).accepts(f) for f in rule.needs)]


def rewrite(reg: Registry, own, *, providers: Iterable[str] | None = None, rules: Iterable[str] | None = None,
            encoding: str = DEFAULT_ENCODING) -> Rewrites:
    """Rewrite the input schemas of the tools on the servers in `own` with every rule (or those named in
    `rules`) that is safe for all of `providers` (default: every provider with schema facts), in the
    order of RULES, each tool's rules one after another. A rule that would add tokens is not applied
    to that tool, unless it fixes a defect clients trip on (`compat`).

    Raises InputError when `own` is missing or names a server the registry lacks, for an unknown
    rule or provider.
    """
    mine = owned(own)
    if not mine:
        raise InputError("name the servers you own (--own a,b): schemas are rewritten only on them; the "
                         "servers you don't own are changed through the client's settings (--client)")
    check_owned(mine, reg)
    chosen = _rules(rules)
    targets = tuple(providers or schema_providers())
    for p in targets:
        schema_facts(p)  # an unknown provider is an error before any work
    out = Rewrites(reg, reg, mine, targets, encoding)
    usable = []
    for r in chosen:
        unsafe = rule_providers(r, targets)
        if unsafe:
            facts = "; ".join(f"{p}: {schema_facts(p).source} ({schema_facts(p).as_of})" for p in unsafe)
            out.refused.append(Refused(r.id, "(all)", f"not safe for {', '.join(unsafe)} ({facts})"))
        else:
            usable.append(r)
    versions = {t.key: [t] for t in reg}  # each tool after each usable rule in turn
    for t in reg:
        if t.server in mine:
            _rewrite_tool(t, usable, versions[t.key], out, encoding)
    for i, r in enumerate(usable):
        out.stages[r.id] = reg.map(lambda t, i=i: versions[t.key][min(i + 1, len(versions[t.key]) - 1)])
    out.after = reg.map(lambda t: versions[t.key][-1])
    return out


def _rewrite_tool(tool: Tool, rules: list[SchemaRule], chain: list[Tool], out: Rewrites, encoding: str) -> None:
    cur = tool
    for r in rules:
        change = r.apply(cur)
        out.refused += [Refused(r.id, tool.key, why) for why in change.refused]
        if change.sites and change.schema != cur.input_schema:
            new = replace(cur, input_schema=change.schema, raw=None)
            before, after = tool_tokens(cur, encoding), tool_tokens(new, encoding)
            if after >= before and not r.compat:
                out.refused.append(Refused(r.id, tool.key, f"saves nothing here ({before - after:+,} tokens)"))
            else:
                out.applied.append(Applied(r.id, tool.key, tuple(change.sites), before, after))
                cur = new
        chain.append(cur)


def _rules(names: Iterable[str] | None) -> list[SchemaRule]:
    if names is None:
        return list(RULES.values())
    unknown = [n for n in names if n not in RULES]
    if unknown:
        raise InputError(f"unknown rewrite rule(s) {', '.join(unknown)}; rules: {', '.join(RULES)}")
    return [r for r in RULES.values() if r.id in set(names)]
