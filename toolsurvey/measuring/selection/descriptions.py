"""The description-length sweep: the same queries asked with every tool's description cut to N
tokens, for each N, with every description as it is (`full`), and with every description removed
(`none`: name and schema only). Every request offers the whole registry; only the descriptions change.

- The cut is the trimming module's (`trimming.truncation.truncate_strings`, unit tokens, the
  description as plain text), the one `toolsurvey trim --truncate N --unit tokens` makes: the text is
  cut where a piece of the encoding's pre-split ends, keeping at most N tokens, and ends in the
  marker ` …[T tokens total]`. A description is cut only when the cut saves tokens net of its marker,
  so a description a little over N tokens may be kept whole (counted, and said). The shown text is
  then at most N tokens plus the marker's, and never more than the full description.
- A variant N at which no description is cut is the registry as it is: it is measured as `full`,
  and a warning says so (as a catalog size at or above the registry's is measured as `all`).
- Tokens are counted with a tiktoken encoding (`o200k_base` unless told), the same one that cuts.

Each record of the log gains `description_tokens` (the variant: a number, "full" or "none") and
`description_mean_tokens` (the mean tokens of the descriptions that request showed, over every tool
offered, a tool without a description counting 0). The figures per variant are counted from the
records of that variant (`metrics`; the wrong-call rate is the catalog-size sweep's `wrong_calls`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

from ...core.registry import Registry
from ...core.tokens import DEFAULT_ENCODING, count
from ...core.viewable import Viewable
from ...errors import InputError
from ..trimming.truncation import truncate_strings
from . import metrics
from . import request as req
from .result import CAVEAT, SelectionEval
from .sweep import OneAxis, wrong_calls

FULL = "full"
NONE = "none"
DEFAULT_VARIANTS = (NONE, 10, 20, 40, 80, FULL)
EXPECTED = "whole numbers of at least 1, 'full' or 'none' (0 is 'none'), such as none,10,20,40,80,full"


def parse_variants(spec) -> list:
    """Variants from "none,10,40,full" or a sequence of whole numbers, "full" and "none"; sorted ("none"
    first, numbers ascending, "full" last), no repeats. 0 is "none". Raises InputError naming what was expected."""
    items = [s.strip() for s in spec.split(",")] if isinstance(spec, str) else list(spec)
    out: set[int] = set()
    has_none = has_full = False
    for s in items:
        if isinstance(s, str) and s.lower() in (FULL, NONE):
            has_full |= s.lower() == FULL
            has_none |= s.lower() == NONE
            continue
        try:
            n = int(s)
            ok = n >= 0 and float(s) == n and not isinstance(s, bool)
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise InputError(f"expected --description-tokens as {EXPECTED}; found {s!r}")
        if n == 0:
            has_none = True
        else:
            out.add(n)
    if not out and not has_full and not has_none:
        raise InputError(f"expected at least one --description-tokens variant, {EXPECTED}; found none")
    return ([NONE] if has_none else []) + sorted(out) + ([FULL] if has_full else [])


def cut_description(text: str, tokens: int, encoding: str = DEFAULT_ENCODING) -> str:
    """`text` cut at `tokens` tokens by the trimming module's exact cut (module docstring): unchanged
    when it is no longer, or when no cut saves tokens net of the marker."""
    out, _, _ = truncate_strings(text, tokens, "tokens", encoding, json_text=False)
    return out


@dataclass
class Variant:
    """One variant's registry and what its descriptions show."""

    label: object  # a number, "full" or "none"
    registry: Registry
    mean_tokens: float  # the mean tokens of the descriptions shown, over every tool (none: 0)
    cut: int  # descriptions cut
    kept_over: int  # descriptions over the limit kept whole, since no cut saves tokens net of its marker
    shown: dict[str, str | None]  # each tool key's description as shown


def variant(registry: Registry, label, encoding: str = DEFAULT_ENCODING) -> Variant:
    """`registry` with every description as `label` says: cut at that many tokens, "full" or "none"."""
    cut = over = 0

    def change(t):
        nonlocal cut, over
        d = t.description
        if label == NONE:
            new = None
        elif label == FULL or not d:
            new = d
        else:
            new = cut_description(d, int(label), encoding)
            if new != d:
                cut += 1
            elif count(d, encoding) > int(label):
                over += 1
        return t if new == d else dataclasses.replace(t, description=new, raw=None)

    reg = registry if label == FULL else registry.map(change)
    shown = {t.key: t.description for t in reg}
    mean = sum(count(d, encoding) if d else 0 for d in shown.values()) / len(shown) if shown else 0.0
    return Variant(label, reg, mean, cut, over, shown)


def variant_lines(cuts: dict, tools: int, encoding: str = DEFAULT_ENCODING) -> list[str]:
    """What each variant shows, before anything is sent: one line per variant."""
    out = []
    for label, c in cuts.items():
        what = ("every description removed" if label == NONE else "every description as it is" if label == FULL
                else f"{c['cut']} of {tools} descriptions cut at {label} tokens"
                     + (f", {c['kept_over']} over it kept whole (no cut saves tokens net of the marker)"
                        if c["kept_over"] else ""))
        out.append(f"descriptions {label}: {what}; {c['mean_tokens']:.2f} {encoding} tokens per tool on average")
    return out


@dataclass(repr=False)
class DescriptionEval(OneAxis, Viewable):
    """One eval over every (query, description variant): `eval.records` each carry `description_tokens`;
    `by_description()` the figures."""

    view_name = "description sweep"

    eval: SelectionEval
    variants: list
    encoding: str
    registry_size: int
    cuts: dict = field(default_factory=dict)  # label -> {"cut", "kept_over"}, when known (not from a log)
    warnings: list[str] = field(default_factory=list)

    axis = "description_tokens"

    @property
    def points(self) -> list:
        return self.variants

    def of(self, label) -> list[dict]:
        """The records of one variant."""
        return self.at(label).records

    def by_description(self) -> list[dict]:
        """Per variant: the mean description tokens shown, the descriptions cut (when known), the queries,
        the wrong-call rate, accuracy, tool accuracy, skip, false-call and invalid rates (each count,
        of, rate, low, high)."""
        out = []
        for label in self.variants:
            recs = self.of(label)
            first = metrics.first_answers(recs)
            summ = metrics.summary(recs)
            means = [r["description_mean_tokens"] for r in first if isinstance(r.get("description_mean_tokens"), (int, float))]
            c = self.cuts.get(str(label), {})
            out.append({"description_tokens": label,
                        "mean_description_tokens": sum(means) / len(means) if means else None,
                        "descriptions_cut": c.get("cut"), "kept_whole_over_limit": c.get("kept_over"),
                        "queries": summ["queries"], "wrong_call_rate": wrong_calls(recs),
                        "accuracy": summ["accuracy"], "tool_accuracy": summ["tool_accuracy"],
                        "skip_rate": summ["skip_rate"], "false_call_rate": summ["false_call_rate"],
                        "invalid_rate": summ["invalid_rate"], "outcomes": summ["outcomes"]})
        return out

    def to_json(self) -> dict:
        ev = self.eval
        return {"model": ev.model, "api": ev.api, "base_url": ev.base_url, "encoding": self.encoding,
                "registry_size": self.registry_size, "by_description": self.by_description(),
                "estimate": ev.estimate.to_json(), "billed": ev.billed(), "failed": ev.failed,
                "warnings": ev.warnings + self.warnings, "caveat": CAVEAT, "queries": ev.records}

    def describe(self) -> str:
        parts = []
        for row in self.by_description():
            a = row["accuracy"]["rate"]
            parts.append(f"{row['description_tokens']}: accuracy {'n/a' if a is None else f'{a:.0%}'}")
        return f"{self.eval.model}, {self.queries} queries, descriptions cut in {self.encoding} tokens; " + ", ".join(parts)


def plan_descriptions(registry: Registry, queries, model: str, variants=DEFAULT_VARIANTS, *,
                      encoding: str = DEFAULT_ENCODING, **options):
    """What `description_eval` would send: one job per variant, query (and repeat), grouped by variant
    (every request of a variant carries the same tools, so a server with one prompt-cache slot reads
    them once). Returns (plan, variants, cuts); `cuts` maps each variant's label (as text) to its
descriptions cut, those kept whole over the limit, and the mean description tokens it shows."""
    from .run import Job, eval_queries, plan_eval

    variants = parse_variants(variants)
    if not len(registry):
        raise InputError("the registry has no tools; an eval needs tools to offer")
    built = {label: variant(registry, label, encoding) for label in variants}
    same = [v for v in variants if v not in (FULL, NONE) and built[v].cut == 0]
    if same:  # nothing cut: the registry as it is
        variants = [v for v in variants if v not in same]
        if FULL not in variants:
            variants.append(FULL)
            built[FULL] = variant(registry, FULL, encoding)
    qs = eval_queries(queries, registry)
    plan = plan_eval(registry, qs, model, **options)
    cl = plan.client
    repeat = max(j.repeat for j in plan.jobs) + 1 if plan.jobs else 1
    jobs, groups = [], []
    for label in variants:
        v = built[label]
        off = plan.offered if v.registry is registry else req.offered(v.registry, cl.api.tools_format)
        mine = []
        for q in qs:
            body = cl.body(q.query, off.tools, options.get("system"))
            h = cl.request_hash(body)
            mine += [Job(q, r, body, h, off, description_tokens=label, description_mean=v.mean_tokens)
                     for r in range(repeat)]
        jobs += mine
        groups.append((v, [j.query.query for j in mine if j.key not in plan.cache]))
    plan.jobs = jobs
    plan.estimate = _estimate(plan, groups, options.get("system"))
    if same:
        plan.warnings.append(f"--description-tokens {', '.join(map(str, same))}: no description is cut at "
                             f"{'that length' if len(same) == 1 else 'those lengths'} (each is shorter, or no cut "
                             "saves tokens net of its marker), so measured as 'full'")
    over = {label: built[label].kept_over for label in variants if built[label].kept_over}
    if over:
        plan.warnings.append("descriptions over the limit kept whole, since no cut saves tokens net of the marker "
                             "(docs/eval.md, 'Description length'): "
                             + ", ".join(f"{n} at {label}" for label, n in over.items()))
    cuts = {str(label): {"cut": built[label].cut, "kept_over": built[label].kept_over,
                         "mean_tokens": built[label].mean_tokens} for label in variants}
    return plan, variants, cuts


def _estimate(plan, groups: Sequence[tuple[Variant, list[str]]], system) -> req.Estimate:
    """Each variant's requests priced as `request.estimate` prices one eval's (its tools a prefix
    written once, then read), counted on that variant's registry; their tokens and costs summed."""
    cl, price = plan.client, plan.estimate.price
    render = "json" if cl.custom_url else cl.provider.renderings[0].name  # what plan_eval counts with
    parts, method = [], plan.estimate.method
    for v, prompts in groups:
        tokens, method = req.tools_tokens(v.registry, render, cl.model)
        parts.append(req.estimate(prompts, len(prompts), tokens, method, system, price))
    known = price is not None
    sent = sum(p.requests for p in parts)
    mean = round(sum(p.tools_tokens * p.requests for p in parts) / sent) if sent else plan.estimate.tools_tokens
    return req.Estimate(len(plan.jobs), sent, mean, sum(p.input_tokens for p in parts),
                        sum(p.output_tokens for p in parts), float(sum(p.cost for p in parts)) if known else None,
                        float(sum(p.cost_cached for p in parts)) if known else None, price,
                        method + "; the mean over the description variants")


def description_eval(registry: Registry, queries, model: str, variants=DEFAULT_VARIANTS, *,
                     encoding: str = DEFAULT_ENCODING, max_cost: float | None = 1.0, yes: bool = False,
                     concurrency: int = 1, progress=None, **options) -> DescriptionEval:
    """`selection_eval` at several description lengths (module docstring): for each query and each of
    `variants` ("none,10,40,full" or [NONE, 10, 40, FULL]), every tool's description cut at that many
    `encoding` tokens, left whole, or removed. Options as selection_eval's (batch is not taken).
    Returns a DescriptionEval."""
    from .run import check_cost

    plan, variants, cuts = plan_descriptions(registry, queries, model, variants, encoding=encoding, **options)
    check_cost(plan.estimate, max_cost, yes, plan.client.custom_url, model)
    ev = plan.run(concurrency, progress)
    return DescriptionEval(ev, variants, encoding, len(registry), cuts)
