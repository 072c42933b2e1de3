"""A simulation scenario: every assumption of a cost run in one value, loadable from a TOML file."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ..core.choices import CACHE_TTLS, CACHING, STRATEGIES
from ..errors import InputError
from ..inputs.scenario_files import PriceFile, price_file, toml_doc
from ..measuring.calibration import Calibration, load_calibration
from ..providers.catalog import default_model
from ..providers.prices import Price, load_prices
from .accuracy import AccuracyCurve, bundled_curve, curve_from_mapping, load_accuracy
from .dist import Dist, as_dist, nonneg
from .misses import check_quality, resolve_search
from .subagents import as_subagents, multipliers, share

OVERFLOW = ("last", "cycle")
SCENARIO_VERSION = 1
SESSION_DEFAULTS = {"turns": Dist(value=1.0), "think_time": Dist(value=0.0), "cache_1h_share": None, "prefix_hit": 0,
                    "cache_miss": 0, "prompt_cache_miss": 0, "uncached_share": None, "compaction_at": None,
                    "compaction_tokens": 0, "compaction_output_tokens": None, "subagents": (), "growth_by_step": (),
                    "by_model": {}}
# The fields a main thread on one model may have of its own (`by_model`): its sizes and cache behaviour.
BY_MODEL_FIELDS = ("system_prompt_tokens", "user_message_tokens", "response_tokens", "calls_per_step", "growth_by_step",
                   "call_tokens", "answer_tokens", "cache_1h_share", "prefix_hit", "cache_miss", "prompt_cache_miss")


@dataclass(frozen=True)
class Phase:
    """A phase of a task: the tools it shows (name globs and/or tags) and how many steps it lasts."""

    name: str
    tools: tuple[str, ...] = ()
    tags: Mapping[str, str] = field(default_factory=dict)
    steps: int = 1
    count: int | None = None  # tools in the phase, for the average-size mode (no registry)

    def __post_init__(self):
        object.__setattr__(self, "tools", tuple(self.tools))
        object.__setattr__(self, "tags", dict(self.tags))
        if not self.tools and not self.tags and self.count is None:
            raise InputError(f"phase {self.name!r} names no tools: give tools (globs), tags or count")
        if isinstance(self.steps, bool) or not isinstance(self.steps, int) or self.steps < 1:
            raise InputError(f"phase {self.name!r}: steps must be a whole number >= 1, found {self.steps!r}")


class Phases(tuple):
    """Phases read from a file: a tuple of Phase that remembers the file (`source`), which is what a
    scenario's assumptions print for it."""

    source: str = ""

    def __new__(cls, phases, source: str = ""):
        out = super().__new__(cls, phases)
        out.source = source
        return out


@dataclass(frozen=True)
class Scenario:
    """Every assumption of a per-task cost run; see docs/simulation.md for what each field means."""

    model: str = default_model()       # providers.toml: the default model of its scenario_provider
    steps: Any = 9                     # requests per task, the final answer included (number or Dist)
    visible: int | None = None         # cap on the tools visible at any step
    strategy: str = "all"
    tools: tuple[str, ...] = ()        # fixed: globs of the visible tools
    phases: Any = None                 # phases: tuple of Phase, or a phases file path (read when the scenario is made)
    overflow: str = "last"             # phases: a task longer than the schedule stays in the last phase, or cycles
    core: tuple[str, ...] = ()         # retrieval / tool_search: always-visible tools (globs)
    retrieval_k: int = 10
    search_k: int | None = None        # tool_search: tools loaded by each search (None: the search's rules, else 5)
    searches: int = 1                  # tool_search: search requests per task (the extra steps)
    search_tool_tokens: float | None = None   # None: measured from toolsurvey's search tool definition
    search_result_tokens: float = 150
    search: str | None = None          # tool_search: "anthropic-bm25", "anthropic-regex", "openai" (providers.toml) or "custom"
    search_quality: Any = 1.0          # retrieval / tool_search: hit rate at the search's k, or a retrieval evaluation
    max_searches: int = 3              # tool_search: searches for one needed tool before the task fails
    system_prompt_tokens: float = 0
    user_message_tokens: float = 0
    call_tokens: float = 60            # output of a request that calls a tool (name + arguments)
    response_tokens: Any = 500         # tool result tokens per call (number or Dist)
    calls_per_step: float = 1          # tool calls a request makes (parallel calls: more than 1), each with a result
    answer_tokens: float = 300         # output of the final request
    caching: str = "auto"              # auto = the provider's own behaviour (providers.toml [caching.*])
    cache_ttl: str = "5m"              # Anthropic: 5-minute (1.25x write) or 1-hour (2x) cache
    render: str = "auto"               # footprint rendering; "auto" = the model's provider rendering
    encoding: str | None = None
    calibration: Any = None            # Calibration (toolsurvey calibrate), or its JSON file's path (read when made)
    overhead_tokens: float | None = None      # None: the rendering's provider overhead
    tool_tokens: float | None = None          # average-size mode: tokens per tool
    registry_size: int | None = None          # average-size mode: tools in the registry
    accuracy: bool = True
    accuracy_curve: Any = None         # AccuracyCurve, a path (read when made), or None for the bundled curve
    wrong_call_steps: int = 1          # extra requests one wrong tool call costs
    tasks_per_day: float = 1000
    days_per_month: float = 30
    # Sessions (docs/simulation.md, "Sessions"). At these defaults a run is the single task above.
    turns: Any = 1                     # user prompts per session, each a task of `steps` requests (number or Dist)
    think_time: Any = 0                # seconds from a turn's answer to the next prompt (number or Dist)
    cache_1h_share: float | None = None  # share of threads cached for 1 hour (2x writes); None: all `cache_ttl`
    prefix_hit: float = 0              # share of the fixed prefix found cached (by other sessions) when a thread's cache is cold
    cache_miss: float = 0              # share of requests within a turn whose cached history is not found
    prompt_cache_miss: float = 0       # the same at a new prompt (a turn's first request)
    uncached_share: float | None = None  # share of the input not read from the cache billed as input, not written
    compaction_at: float | None = None  # context tokens at which the history is replaced by a summary
    compaction_tokens: float = 0       # the history left by a compaction: the summary and what is attached to it
    compaction_output_tokens: float | None = None  # the compaction request's output; None: no request is priced
    subagents: tuple = ()              # Subagent threads each session starts
    growth_by_step: tuple = ()         # result size multipliers by a step's place in its thread: 2, 3-4, 5-8, ...
    by_model: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # model -> BY_MODEL_FIELDS of its main thread
    prices: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    price_file: Any = None             # PriceFile, or a price file's path or URL (read when made)
    samples: int = 0                   # Monte Carlo draws (0: expected values only)
    seed: int = 0
    name: str = ""
    description: str = ""

    def __post_init__(self):
        set_ = lambda k, v: object.__setattr__(self, k, v)
        set_("steps", as_dist(self.steps, "steps"))
        set_("response_tokens", as_dist(self.response_tokens, "response_tokens"))
        set_("turns", as_dist(self.turns, "turns"))
        set_("think_time", as_dist(self.think_time, "think_time"))
        set_("subagents", as_subagents(self.subagents))
        set_("growth_by_step", multipliers("growth_by_step", self.growth_by_step))
        for k in ("tools", "core"):
            v = getattr(self, k)
            set_(k, (v,) if isinstance(v, str) else tuple(v))
        if self.strategy not in STRATEGIES:
            raise InputError(f"unknown strategy {self.strategy!r}; expected one of {', '.join(STRATEGIES)}")
        if self.caching not in CACHING:
            raise InputError(f"unknown caching {self.caching!r}; expected one of {', '.join(CACHING)}")
        if self.cache_ttl not in CACHE_TTLS:
            raise InputError(f"unknown cache_ttl {self.cache_ttl!r}; expected one of {', '.join(CACHE_TTLS)}")
        if self.overflow not in OVERFLOW:
            raise InputError(f"unknown overflow {self.overflow!r}; expected one of {', '.join(OVERFLOW)}")
        if not isinstance(self.model, str) or not self.model:
            raise InputError(f"model must be a model name, found {self.model!r}")
        st = self.steps
        low = min(st.values) if st.kind == "samples" else st.low if st.kind == "uniform" else st.expected()
        if low < 1 or st.expected() < 1:
            raise InputError(f"steps must be >= 1 (a task makes at least one request), found {st.describe()!r}")
        if self.response_tokens.expected() < 0:
            raise InputError(f"response_tokens must be >= 0, found {self.response_tokens.describe()!r}")
        if self.visible is not None:
            nonneg("visible", self.visible, integer=True)
            set_("visible", int(self.visible))
        set_("search_k", resolve_search(self.search, self.model, self.search_k))
        set_("search_quality", check_quality(self.search_quality))
        nonneg("max_searches", self.max_searches, integer=True, positive=True)
        for k in ("retrieval_k", "search_k", "searches", "wrong_call_steps", "samples", "seed"):
            nonneg(k, getattr(self, k), integer=True)
        for k in ("system_prompt_tokens", "user_message_tokens", "call_tokens", "answer_tokens",
                  "search_result_tokens", "tasks_per_day"):
            nonneg(k, getattr(self, k))
        nonneg("days_per_month", self.days_per_month, positive=True)
        nonneg("calls_per_step", self.calls_per_step, positive=True)
        for k in ("search_tool_tokens", "overhead_tokens", "tool_tokens"):
            if getattr(self, k) is not None:
                nonneg(k, getattr(self, k))
        if self.registry_size is not None:
            nonneg("registry_size", self.registry_size, integer=True)
        self._resolve_files()
        if self.phases is not None and not isinstance(self.phases, Phases):
            set_("phases", tuple(p if isinstance(p, Phase) else _phase(p, "phases") for p in self.phases))
        if self.strategy == "phases" and not self.phases:
            raise InputError("strategy 'phases' needs phases: a phases file path or a list of phases")
        if self.strategy == "fixed" and not self.tools and self.visible is None:
            raise InputError("strategy 'fixed' needs tools (globs) or visible (a count)")
        self._check_session()
        self._check_by_model()
        if not isinstance(self.prices, Mapping):
            raise InputError(f"prices must be a table of model -> price fields, found {self.prices!r}")

    def _resolve_files(self) -> None:
        """Read each file the scenario names, once: a value made from it replaces the path (and
        `dataclasses.replace` carries the value on, so it is never read again)."""
        set_ = lambda k, v: object.__setattr__(self, k, v)
        if isinstance(self.phases, (str, os.PathLike)):
            set_("phases", Phases(load_phases(self.phases)[0], os.fspath(self.phases)))
        if isinstance(self.accuracy_curve, (str, os.PathLike)):
            set_("accuracy_curve", dataclasses.replace(load_accuracy(self.accuracy_curve),
                                                       file=os.fspath(self.accuracy_curve)))
        if isinstance(self.calibration, (str, os.PathLike)):
            set_("calibration", load_calibration(self.calibration))
        elif self.calibration is not None and not isinstance(self.calibration, Calibration):
            raise InputError(f"calibration must be a calibration file's path or a Calibration, found {self.calibration!r}")
        if isinstance(self.price_file, (str, os.PathLike)):
            set_("price_file", price_file(self.price_file))
        elif self.price_file is not None and not isinstance(self.price_file, PriceFile):
            raise InputError(f"price_file must be a price file's path or URL, found {self.price_file!r}")

    def _check_session(self) -> None:
        if self.turns.expected() < 1:
            raise InputError(f"turns must be >= 1 (a session has at least one prompt), found {self.turns.describe()!r}")
        if self.think_time.expected() < 0:
            raise InputError(f"think_time must be >= 0 seconds, found {self.think_time.describe()!r}")
        for k in ("prefix_hit", "cache_miss", "prompt_cache_miss", "cache_1h_share", "uncached_share"):
            if getattr(self, k) is not None:
                share(k, getattr(self, k))
        nonneg("compaction_tokens", self.compaction_tokens)
        for k in ("compaction_at", "compaction_output_tokens"):
            if getattr(self, k) is not None:
                nonneg(k, getattr(self, k), positive=k == "compaction_at")

    def _check_by_model(self) -> None:
        if not isinstance(self.by_model, Mapping):
            raise InputError(f"by_model must be a table of model -> fields, found {self.by_model!r}")
        out = {}
        for model, given in self.by_model.items():
            bad = sorted(set(given) - set(BY_MODEL_FIELDS)) if isinstance(given, Mapping) else None
            if bad is None or bad:
                raise InputError(f"by_model {model!r}: expected a table of some of {', '.join(BY_MODEL_FIELDS)}, "
                                 f"found {given!r}")
            dataclasses.replace(self, by_model={}, **given)  # its values checked as the scenario's own
            out[str(model)] = dict(given)
        object.__setattr__(self, "by_model", out)

    def for_model(self, model: str) -> Scenario:
        """The scenario a main thread on `model` runs: `by_model`'s fields for it over these (itself
        when it has none)."""
        given = self.by_model.get(model)
        return dataclasses.replace(self, **given) if given else self

    def changed(self, **changes) -> Scenario:
        """This scenario with fields replaced, the replaced ones dropped from every model's `by_model`
        (a what-if applies to every thread)."""
        keep = {m: {k: v for k, v in d.items() if k not in changes} for m, d in self.by_model.items()}
        return dataclasses.replace(self, **{"by_model": keep, **changes}) if changes else self

    def is_session(self) -> bool:
        """True when a session field is set: the run is a session (turns, cache expiry, compaction,
        subagents), not the single task of the fields above."""
        return any(getattr(self, k) != v for k, v in SESSION_DEFAULTS.items())

    def curve(self) -> AccuracyCurve:
        """The accuracy curve this scenario uses (a value: its points and its source)."""
        c = self.accuracy_curve
        if isinstance(c, AccuracyCurve):
            return c
        if isinstance(c, Mapping):
            return curve_from_mapping(c, "scenario accuracy_curve")
        return bundled_curve()

    def phase_list(self) -> tuple[Phase, ...]:
        """The phases (a file's were read when the scenario was made)."""
        return self.phases or ()

    def price_table(self) -> dict[str, Price]:
        """The prices this scenario uses: the defaults, updated by its price file and then by its
        per-model `prices` overrides (no file is read: a price file was read when the scenario was made)."""
        return load_prices(base=self.price_file.table if self.price_file else None, overrides=self.prices)

    def assumptions(self) -> dict[str, Any]:
        """Every field as plain values (distributions described), for printing next to results."""
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, Dist):
                v = v.describe()
            elif isinstance(v, Phases) and v.source:  # read from a file: the file, as it was given
                v = v.source
            elif isinstance(v, (PriceFile, Calibration)):
                v = str(v)
            elif isinstance(v, AccuracyCurve) and v.file:
                v = v.file
            elif f.name == "phases" and v is not None:
                v = [{"name": p.name, "tools": list(p.tools), "tags": dict(p.tags), "steps": p.steps,
                      **({"count": p.count} if p.count is not None else {})} for p in v]
            elif f.name == "subagents":
                v = [x.describe() for x in v]
            elif isinstance(v, AccuracyCurve):
                v = v.as_dict()
            elif hasattr(v, "hit_at"):  # a retrieval evaluation as search_quality
                v = v.describe()
            elif isinstance(v, tuple):
                v = list(v)
            elif isinstance(v, os.PathLike):
                v = os.fspath(v)
            elif isinstance(v, Mapping):
                v = {k: dict(x) if isinstance(x, Mapping) else x for k, x in v.items()}
            out[f.name] = v
        return out


FILE_FIELDS = ("phases", "accuracy_curve", "calibration", "price_file")  # a path here is read when made


def read_files(changes: Mapping[str, Any]) -> dict[str, Any]:
    """`changes` (scenario fields) with each file path read into its value, for a call that applies
    them to many scenarios: each file is then read once, not once per scenario."""
    given = {k: changes[k] for k in FILE_FIELDS if isinstance(changes.get(k), (str, os.PathLike))}
    if not given:
        return dict(changes)
    read = Scenario(**given)
    return {**changes, **{k: getattr(read, k) for k in given}}


def _phase(d: Any, origin: str) -> Phase:
    if not isinstance(d, Mapping) or "name" not in d:
        raise InputError(f"{origin}: each phase needs a name, found {d!r}")
    allowed = {"name", "tools", "tags", "steps", "count"}
    bad = sorted(set(d) - allowed)
    if bad:
        raise InputError(f"{origin}: phase {d['name']!r} has unknown key(s) {', '.join(bad)}; "
                         f"expected {', '.join(sorted(allowed))}")
    tools = d.get("tools", ())
    return Phase(str(d["name"]), (tools,) if isinstance(tools, str) else tuple(tools),
                 dict(d.get("tags", {})), d.get("steps", 1), d.get("count"))


def load_phases(path: str | os.PathLike) -> tuple[tuple[Phase, ...], str | None]:
    """Phases (and the file's overflow rule, if any) from a phases TOML file; raises InputError."""
    doc = toml_doc(path, "phases file")
    bad = sorted(set(doc) - {"version", "phases", "overflow", "source", "description"})
    if bad:
        raise InputError(f"{path}: unknown key(s) {', '.join(bad)}; expected [[phases]] tables and "
                         "optional version, overflow, source, description")
    if not isinstance(doc.get("phases"), list) or not doc["phases"]:
        raise InputError(f"{path}: expected [[phases]] tables with name, tools/tags and steps")
    return tuple(_phase(p, os.fspath(path)) for p in doc["phases"]), doc.get("overflow")


def load_scenario(path: str | os.PathLike, **overrides) -> Scenario:
    """A Scenario from a TOML file whose keys are Scenario fields (relative paths are taken from the
    file's folder); `overrides` replace fields. Every file it names (phases, accuracy curve,
    calibration, prices, samples) is read here, once. Raises InputError for unknown keys or bad values.
    """
    return scenario_from_doc(toml_doc(path, "scenario"), path, **overrides)


def scenario_from_doc(doc: dict, path: str | os.PathLike, **overrides) -> Scenario:
    """`load_scenario` of a document already read from `path`."""
    doc = dict(doc)
    base = Path(path).resolve().parent
    version = doc.pop("version", SCENARIO_VERSION)
    if version != SCENARIO_VERSION:
        raise InputError(f"{path}: scenario version {version!r} is not supported; expected {SCENARIO_VERSION}")
    known = {f.name for f in fields(Scenario)}
    bad = sorted(set(doc) - known)
    if bad:
        raise InputError(f"{path}: unknown key(s) {', '.join(bad)}; expected some of: {', '.join(sorted(known))}")
    rel = lambda v: os.fspath(base / v) if isinstance(v, str) and not Path(v).is_absolute() else v
    if isinstance(doc.get("phases"), str):
        phases, overflow = load_phases(rel(doc["phases"]))
        doc["phases"] = phases
        if overflow and "overflow" not in doc:
            doc["overflow"] = overflow
    if isinstance(doc.get("accuracy_curve"), str):
        doc["accuracy_curve"] = rel(doc["accuracy_curve"])
    # Read here, outside the error prefix below: their errors name their own file, as they always have.
    if isinstance(doc.get("calibration"), str) and "calibration" not in overrides:
        doc["calibration"] = load_calibration(rel(doc["calibration"]))
    if isinstance(doc.get("price_file"), str) and "price_file" not in overrides:
        pf = doc["price_file"]
        doc["price_file"] = price_file(pf if pf.startswith(("http://", "https://")) else rel(pf))
    for k in ("steps", "response_tokens", "turns", "think_time"):
        if k in doc:
            doc[k] = as_dist(doc[k], f"{path}: {k}", base=base)
    try:
        return dataclasses.replace(Scenario(**doc), **overrides)
    except (InputError, TypeError) as e:  # TypeError: a value of the wrong shape for its field
        raise InputError(f"{path}: {e}") from None
