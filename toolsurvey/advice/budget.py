"""A budget gate for CI: token limits on the request, each tool and each server, growth, audit severity."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.deprecation import deprecated
from ..core.severity import CHOICES, at_least, rank, severity
from ..errors import InputError
from ..measuring.footprint import by_server, footprint, request_total, tools_only
from ..providers.catalog import rendering_provider
from ..providers.limits import limit_problems
from ..providers.prices import load_prices, resolve_model
from .audit.run import audit
from .diff import as_registry


@dataclass(frozen=True)
class Breach:
    """One budget exceeded: what (`kind`), where (`subject`), the measured value and the limit."""

    kind: str  # request | tool | server | increase | audit | limit
    subject: str
    value: float
    limit: float
    message: str

    def __str__(self) -> str:
        return self.message


def parse_increase(text: str) -> tuple[float | None, int | None]:
    """`'5%'` -> (0.05, None); `'500'` -> (None, 500). Raises InputError for anything else."""
    s = str(text).strip()
    try:
        if s.endswith("%"):
            v = float(s[:-1])
            if v >= 0:
                return v / 100, None
        else:
            v = int(s.replace(",", "").replace("_", ""))
            if v >= 0:
                return None, v
    except ValueError:
        pass
    raise InputError(f"--max-increase: expected a percentage such as 5% or a number of tokens "
                     f"such as 500 (not negative), found {text!r}")


def _check_limit(name: str, value: Any) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0):
        raise InputError(f"{name}: expected a number of tokens, 0 or more; found {value!r}")


def check_budget(reg: Any, *, max_request_tokens: int | None = None, max_tool_tokens: int | None = None,
          max_server_tokens: int | None = None, baseline: Any = None, max_increase: float | None = None,
          max_increase_tokens: int | None = None, fail_on: str | None = None,
          encoding: str | None = None, render: str | None = None, model: str | None = None) -> list[Breach]:
    """Every budget that `reg` breaks, largest first within each kind; an empty list means it passes.

    `max_increase` is a fraction (0.05 for 5%) of the baseline's tokens per request, and
    `max_increase_tokens` an absolute number; both need `baseline`. `fail_on` names the lowest
    audit severity that breaks the build. With a `model` (or the openai / anthropic rendering), the
    provider's documented request limits (tool count, name length and pattern) are checked too.
    Raises InputError for bad limits or inputs.
    """
    for name, v in (("max_request_tokens", max_request_tokens), ("max_tool_tokens", max_tool_tokens),
                    ("max_server_tokens", max_server_tokens), ("max_increase", max_increase),
                    ("max_increase_tokens", max_increase_tokens)):
        _check_limit(name, v)
    if (max_increase is not None or max_increase_tokens is not None) and baseline is None:
        raise InputError("a growth limit (max increase) needs a baseline registry to compare with")
    if fail_on is not None and fail_on not in CHOICES:
        raise InputError(f"fail_on: expected one of {', '.join(CHOICES)}, found {fail_on!r}")
    provider = _provider(model, render)
    if provider is None and all(v is None for v in (max_request_tokens, max_tool_tokens, max_server_tokens,
                                                    max_increase, max_increase_tokens, fail_on)):
        raise InputError("nothing to check: give at least one budget (request, tool or server tokens, "
                         "a max increase against a baseline, or an audit severity)")

    reg = as_registry(reg)
    render = render or "json"
    table = footprint(reg, encoding=encoding, render=render, model=model)
    total = request_total(table)
    out: list[Breach] = []
    if max_request_tokens is not None and total > max_request_tokens:
        out.append(Breach("request", "request", total, max_request_tokens,
                          f"request: tool definitions take {total:,} tokens per request, "
                          f"over the budget of {max_request_tokens:,} by {total - max_request_tokens:,}"))
    if max_tool_tokens is not None:
        tools = tools_only(table).sort_values("tokens", ascending=False, kind="stable")
        for r in tools[tools["tokens"] > max_tool_tokens].itertuples():
            out.append(Breach("tool", f"{r.server}/{r.tool}", int(r.tokens), max_tool_tokens,
                              f"tool {r.server}/{r.tool}: {int(r.tokens):,} tokens, over the per-tool "
                              f"budget of {max_tool_tokens:,} by {int(r.tokens) - max_tool_tokens:,}"))
    if max_server_tokens is not None:
        servers = by_server(table)
        for r in servers[servers["tokens"] > max_server_tokens].itertuples():
            out.append(Breach("server", r.server, int(r.tokens), max_server_tokens,
                              f"server {r.server}: {int(r.tokens):,} tokens ({r.tools} tools), over the "
                              f"per-server budget of {max_server_tokens:,} by {int(r.tokens) - max_server_tokens:,}"))
    if baseline is not None:
        base = request_total(footprint(as_registry(baseline), encoding=encoding, render=render, model=model))
        out += _growth(total, base, max_increase, max_increase_tokens)
    if fail_on is not None:
        out += _audit(reg, fail_on)
    if provider:
        tools = list(reg)
        out += [Breach("limit", provider, len(tools), 0, f"limit: {p}")
                for p in limit_problems(provider, len(tools), [t.name for t in tools])]
    return out


def check(reg: Any, **budgets: Any) -> list[Breach]:
    """Deprecated name of `check_budget` (kept for one release)."""
    deprecated("toolsurvey.check()", "toolsurvey.check_budget()")
    return check_budget(reg, **budgets)


def _provider(model: str | None, render: str | None) -> str | None:
    """The provider whose limits apply: the model's (from the price table), else the rendering's."""
    if model:
        prices = load_prices()
        name = resolve_model(model, prices)
        if name is not None and prices[name].provider:
            return prices[name].provider
    return rendering_provider(render)


def _growth(total: int, base: int, frac: float | None, tokens: int | None) -> list[Breach]:
    grew = total - base
    pct = f" ({grew / base:+.1%})" if base else ""
    what = f"request tokens grew from {base:,} to {total:,}, {grew:+,}{pct}"
    out = []
    if frac is not None and grew > frac * base:
        out.append(Breach("increase", "request", grew, frac * base,
                          f"increase: {what}, over the allowed {frac:.1%} ({frac * base:,.0f} tokens)"))
    if tokens is not None and grew > tokens:
        out.append(Breach("increase", "request", grew, tokens,
                          f"increase: {what}, over the allowed {tokens:,} tokens"))
    return out


def _audit(reg: Any, fail_on: str) -> list[Breach]:
    """A breach for every audit finding at `fail_on` severity or above."""
    findings = audit(reg)
    level = severity(fail_on)
    out = []
    for r in findings.itertuples():
        sev = str(r.severity)
        if at_least(sev, level):
            where = f"{r.server}/{r.tool}" if getattr(r, "server", None) else str(r.tool)
            out.append(Breach("audit", where, rank(sev), rank(level),
                              f"audit {sev}: {where}: {r.rule}: {_first_line(getattr(r, 'evidence', ''))}"))
    return out


def _first_line(s: Any) -> str:
    s = str(s or "").strip().splitlines()
    return s[0][:200] if s else ""
