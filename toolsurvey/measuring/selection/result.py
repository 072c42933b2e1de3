"""`SelectionEval`: the records of one eval (one per answer, the `--log` lines) and the figures
counted from them: headline rates with intervals, per-tool table, confusion matrix, agreement
across repeats, and the billed usage and cost beside the estimate."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...core.viewable import Viewable
from . import defer_metrics, metrics
from .request import Estimate

# Printed with every result: the figures describe this model on these queries, nothing more.
CAVEAT = ("These figures describe this model on these queries and these tools only; a small test "
          "model's accuracy says nothing about another model or a user's agent.")


@dataclass(repr=False)
class SelectionEval(Viewable):
    view_name = "selection"

    model: str
    api: str
    base_url: str | None
    records: list[dict]
    estimate: Estimate
    warnings: list[str] = field(default_factory=list)
    order: list[str] = field(default_factory=list)  # the registry's tool keys, in order
    failed: list[dict] = field(default_factory=list)  # {"id", "error"} of requests without an answer

    @property
    def summary(self) -> dict:
        return metrics.summary(self.records)

    def per_tool(self) -> list[dict]:
        return metrics.per_tool(self.records, self.order)

    def confusion(self) -> dict:
        rows, cols, counts = metrics.confusion(self.records, self.order)
        return {"rows": rows, "columns": cols, "counts": counts}

    def confused_pairs(self, min_count: int = 1) -> list[dict]:
        """Pairs of tools taken for each other at least `min_count` times (metrics.confused_pairs)."""
        return metrics.confused_pairs(self.records, min_count)

    def skipped(self) -> list[dict]:
        """The tools skipped, most first (metrics.skipped)."""
        return metrics.skipped(self.records)

    def agreement(self) -> dict | None:
        return metrics.agreement(self.records)

    @property
    def accuracy(self) -> float | None:
        return self.summary["accuracy"]["rate"]

    def billed(self) -> dict:
        """What this run was billed: the answers fetched now (not from the cache), their usage summed
        and their cost (None when no price is known)."""
        sent = [r for r in self.records if not r["from_cache"]]
        usage = {k: sum(r["usage"][k] for r in sent) for k in (self.records[0]["usage"] if self.records else {})}
        costs = [r["cost"] for r in sent]
        cost = None if any(c is None for c in costs) else float(sum(costs))
        return {"requests": len(sent), "from_cache": len(self.records) - len(sent), "usage": usage, "cost": cost}

    def defer(self) -> dict | None:
        """The deferred-loading figures (defer_metrics) when the eval ran with --defer, else None."""
        return defer_metrics.defer_summary(self.records) if defer_metrics.deferred(self.records) else None

    def to_json(self) -> dict:
        """What `toolsurvey eval --format json` prints: the figures, then every record under "queries"."""
        deferred = self.defer()
        return {"model": self.model, "api": self.api, "base_url": self.base_url, "summary": self.summary,
                **({"defer": deferred} if deferred is not None else {}),
                "per_tool": self.per_tool(), "confusion": self.confusion(), "agreement": self.agreement(),
                "estimate": self.estimate.to_json(), "billed": self.billed(), "failed": self.failed,
                "warnings": self.warnings, "caveat": CAVEAT, "queries": self.records}

    def describe(self) -> str:
        s = self.summary
        acc = s["accuracy"]
        pct = "n/a" if acc["rate"] is None else f"{acc['rate']:.0%} [{acc['low']:.0%}, {acc['high']:.0%}]"
        return f"{self.model} over {len(self.order)} tools, {s['queries']} queries: accuracy {pct}"
