"""Visible-set strategies: which tool definitions each request of a task carries."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.globs import any_glob, tags_match
from ..core.registry import Registry, Tool
from ..errors import InputError
from ..measuring.calibration import Calibration, apply_calibration, load_calibration
from ..measuring.footprint import footprint
from ..providers.search import search_rules
from .misses import expected_attempts, found_share, quality_at
from .scenario import Phase, Scenario

# The tool a tool-search strategy keeps visible: measured under the run's rendering like any other.
SEARCH_TOOL = Tool(
    name="search_tools",
    description=("Search the catalogue of available tools by what you need to do. Returns the best "
                 "matching tools, whose definitions become available to call on the next step."),
    input_schema={"type": "object", "properties": {
        "query": {"type": "string", "description": "What the tool should do, in a few words."},
        "limit": {"type": "integer", "description": "How many tools to load (default 5)."}},
        "required": ["query"]},
    server="(tool search)")


@dataclass
class ToolTable:
    """What the strategies need to know about a registry: per-tool tokens, names, tags, servers."""

    names: list[str]
    keys: list[str]
    servers: list[str]
    tags: list[dict]
    tokens: np.ndarray
    instructions: dict[str, float] = field(default_factory=dict)
    overhead: float = 0.0
    search_tool: float = 0.0
    method: str = ""
    exact: bool = True  # False: average-size mode (counts only)
    method_overhead: str = ""  # what `overhead` is, in average-size mode
    brief: np.ndarray | None = None  # name + description tokens per tool (what OpenAI shows of a deferred one)

    def __len__(self) -> int:
        return len(self.names)


def tool_table(reg: Registry, *, render: str = "json", encoding: str | None = None,
               model: str | None = None, calibration: Calibration | str | None = None) -> ToolTable:
    """Measure `reg` (and the search tool) with `footprint` under one rendering, calibrated to a
    provider's exact counts when a Calibration (or its file, read here once) is given; raises
    InputError for a bad file."""
    if calibration is not None and not isinstance(calibration, Calibration):
        calibration = load_calibration(calibration)

    def measure(r: Registry):
        fp = footprint(r, encoding=encoding, render=render, model=model)
        if calibration is None:
            return fp
        return apply_calibration(fp, calibration)

    fp = measure(reg)
    tools = list(reg)
    rows = fp[fp["kind"] == "tool"]
    inst = fp[fp["kind"] == "instructions"].groupby("server")["tokens"].sum()
    search = measure(Registry.from_tools([SEARCH_TOOL]))
    return ToolTable(
        names=[t.name for t in tools], keys=[t.key for t in tools], servers=[t.server for t in tools],
        tags=[dict(t.tags) for t in tools], tokens=rows["tokens"].to_numpy(dtype=float),
        instructions={k: float(v) for k, v in inst.items()},
        overhead=float(fp.loc[fp["kind"] == "overhead", "tokens"].sum()),
        search_tool=float(search.loc[search["kind"] == "tool", "tokens"].sum()),
        method=fp.attrs.get("method", ""), brief=(rows["name"] + rows["description"]).to_numpy(dtype=float))


def average_table(tool_tokens: float, registry_size: int, *, overhead: float = 0.0,
                  overhead_note: str = "") -> ToolTable:
    """A table of `registry_size` tools of `tool_tokens` each, for when only counts are known, plus
    the provider's fixed per-request `overhead` (what it is in `overhead_note`)."""
    n = int(registry_size)
    return ToolTable(names=[f"tool_{i + 1}" for i in range(n)], keys=[f"tool_{i + 1}" for i in range(n)],
                     servers=["default"] * n, tags=[{}] * n, tokens=np.full(n, float(tool_tokens)),
                     search_tool=float(tool_tokens), method=f"average-size mode: {tool_tokens:g} tokens per tool",
                     exact=False, overhead=float(overhead), method_overhead=overhead_note)


@dataclass
class Profile:
    """Per-request visible tools of a task: a head of explicit requests and a rule for later ones.

    prefix[k]: definitions in the stable tools block; loaded[k]: definitions loaded mid-task (tool
    search), which sit after the conversation start; block[k]: which tools block request k sends
    (a change starts a new cache entry).
    """

    prefix: list[float]
    loaded: list[float]
    visible: list[float]
    block: list[int]
    label: list[str]
    repeat_from: int            # requests past the head repeat head[repeat_from:] cyclically
    searches: int = 0
    overhead: float = 0.0
    expected_searches: float | None = None  # search requests per task with misses (None: `searches`)
    found: float = 1.0                       # the chance the task's search finds its tools (model/misses.py)
    warnings: list[str] = field(default_factory=list)
    description: str = ""

    def _head_index(self, k: int) -> np.ndarray:
        """For requests 1..k, the position in the head that each one repeats."""
        n = len(self.prefix)
        idx = np.arange(k)
        return np.where(idx < n, idx, self.repeat_from + (idx - self.repeat_from) % (n - self.repeat_from))

    def expand(self, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Arrays (prefix, loaded, visible, block) for requests 1..k."""
        idx = self._head_index(k)
        arr = lambda xs: np.asarray(xs, dtype=float)[idx]
        return arr(self.prefix), arr(self.loaded), arr(self.visible), np.asarray(self.block)[idx]

    def labels(self, k: int) -> list[str]:
        """The phase label of each of requests 1..k."""
        return [self.label[i] for i in self._head_index(k)]


def matching(table: ToolTable, patterns, tags=None) -> np.ndarray:
    """Indices of the tools whose name or server/name matches a glob, or whose tags match all `tags`."""
    by_name = any_glob(patterns or ())
    out = []
    for i, (name, key, tt) in enumerate(zip(table.names, table.keys, table.tags, strict=True)):
        if by_name(name, key) or tags_match(tt, tags):
            out.append(i)
    return np.asarray(out, dtype=int)


def _cap(idx: np.ndarray, cap: int | None, what: str, warnings: list[str]) -> np.ndarray:
    if cap is not None and cap > len(idx):
        warnings.append(f"visible={cap} is more than the {len(idx)} tools {what}; clamped to {len(idx)}")
    return idx if cap is None else idx[:cap]


def _set_tokens(table: ToolTable, idx: np.ndarray) -> float:
    """Definitions of the tools in `idx`, plus the instructions of the servers they come from."""
    servers = {table.servers[i] for i in idx}
    return float(table.tokens[idx].sum()) + sum(v for s, v in table.instructions.items() if s in servers)


def phase_tools(table: ToolTable, phase: Phase) -> np.ndarray:
    """Indices of the tools a phase shows (its first `count` in average-size mode); raises InputError
    for a phase that matches no tool."""
    if not table.exact:
        if phase.count is None:
            raise InputError(f"phase {phase.name!r} needs count (its number of tools) when no registry is given")
        return np.arange(min(phase.count, len(table)))
    idx = matching(table, phase.tools, phase.tags)
    if not len(idx):
        what = [*(f"name glob {p!r}" for p in phase.tools), *(f"tag {k}={v!r}" for k, v in phase.tags.items())]
        raise InputError(f"phase {phase.name!r} matches no tool of the registry ({', '.join(what)}); "
                         f"{_names_hint(table)}")
    return idx


def _names_hint(table: ToolTable) -> str:
    """The first few tool names, for an error saying a pattern matched none of them."""
    return f"tool names start: {', '.join(table.names[:8])}{', …' if len(table) > 8 else ''}"


def core_tools(table: ToolTable, sc: Scenario) -> np.ndarray:
    """Indices of the always-visible core tools (its first len(core) in average-size mode); raises
    InputError for a core that matches no tool."""
    if not sc.core:
        return np.asarray([], dtype=int)
    if not table.exact:  # average mode: each core entry is one tool
        return np.arange(min(len(sc.core), len(table)))
    idx = matching(table, sc.core)
    if not len(idx):
        raise InputError(f"core {list(sc.core)} matches no tool of the registry; {_names_hint(table)}")
    return idx


def profile(table: ToolTable, sc: Scenario) -> Profile:
    """The per-request visible set of `sc.strategy` over `table`; raises InputError for a phase or
    core that matches nothing, and records clamping in `Profile.warnings`."""
    warnings: list[str] = []
    overhead = float(sc.overhead_tokens) if sc.overhead_tokens is not None else table.overhead
    every = np.arange(len(table))
    if sc.strategy == "all":
        idx = _cap(every, sc.visible, "in the registry", warnings)
        return _constant(_set_tokens(table, idx), len(idx), "all", f"{len(idx)} of {len(table)} tools, every request",
                         overhead, warnings)
    if sc.strategy == "fixed":
        idx = matching(table, sc.tools) if sc.tools and table.exact else every
        if sc.tools and table.exact and not len(idx):
            raise InputError(f"tools {list(sc.tools)} match no tool of the registry; {_names_hint(table)}")
        idx = _cap(idx, sc.visible, "selected", warnings)
        return _constant(_set_tokens(table, idx), len(idx), "fixed", f"fixed subset of {len(idx)} tools",
                         overhead, warnings)
    if sc.strategy == "phases":
        return _phases(table, sc, overhead, warnings)
    core = core_tools(table, sc)
    pool = np.setdiff1d(every, core)
    if sc.strategy == "retrieval":
        return _retrieval(table, sc, core, pool, overhead, warnings)
    return _tool_search(table, sc, core, pool, overhead, warnings)


def _constant(tokens: float, visible: int, label: str, description: str, overhead: float,
              warnings: list[str]) -> Profile:
    """The same visible set on every request."""
    return Profile([tokens], [0.0], [float(visible)], [0], [label], 0, overhead=overhead, warnings=warnings,
                   description=description)


def _phases(table: ToolTable, sc: Scenario, overhead: float, warnings: list[str]) -> Profile:
    """Each phase's tools for its steps; past the last phase, the last one or all of them again."""
    prefix, visible, block, label, sets = [], [], [], [], {}
    for ph in sc.phase_list():
        idx = phase_tools(table, ph)  # a cap above a phase's size is normal: no warning
        idx = idx if sc.visible is None else idx[:sc.visible]
        tok = _set_tokens(table, idx)
        b = sets.setdefault(tuple(idx), len(sets))  # phases showing the same tools share a cache entry
        prefix += [tok] * ph.steps
        visible += [float(len(idx))] * ph.steps
        block += [b] * ph.steps
        label += [ph.name] * ph.steps
    repeat = len(prefix) - 1 if sc.overflow == "last" else 0
    desc = ", ".join(f"{p.name} x{p.steps}" for p in sc.phase_list())
    return Profile(prefix, [0.0] * len(prefix), visible, block, label, repeat,
                   overhead=overhead, warnings=warnings, description=f"phases ({desc}; then {sc.overflow})")


def _mean_tokens(table: ToolTable, pool: np.ndarray) -> float:
    return float(table.tokens[pool].mean()) if len(pool) else 0.0


def _retrieval(table: ToolTable, sc: Scenario, core: np.ndarray, pool: np.ndarray, overhead: float,
               warnings: list[str]) -> Profile:
    """The core plus the top k retrieved tools, each the mean of the pool (and every server's instructions)."""
    k = sc.retrieval_k
    if sc.visible is not None:
        if sc.visible < len(core):
            warnings.append(f"visible={sc.visible} is fewer than the {len(core)} core tools; the core stays visible")
        k = max(0, sc.visible - len(core))
    if k > len(pool):
        warnings.append(f"retrieval k={k} is more than the {len(pool)} non-core tools; clamped")
        k = len(pool)
    inst = sum(table.instructions.values())  # retrieved tools may come from any server
    tok = float(table.tokens[core].sum()) + k * _mean_tokens(table, pool) + inst
    prof = _constant(tok, len(core) + k, "retrieval",
                     f"{len(core)} core tools + top {k} retrieved (each the mean of {len(pool)} candidates)",
                     overhead, warnings)
    prof.found = quality_at(sc.search_quality, k)  # a miss: the needed tool is not visible, the task fails
    return prof


def _tool_search(table: ToolTable, sc: Scenario, core: np.ndarray, pool: np.ndarray, overhead: float,
                 warnings: list[str]) -> Profile:
    """The search tool (+ core) in the stable block; each search loads search_k tools. A search
    finds the needed tool with probability q (search_quality at search_k); a miss leads to another
    search, up to max_searches, each loading search_k tools more (docs/simulation.md)."""
    k = sc.search_k
    if sc.visible is not None:
        k = min(k, max(0, sc.visible - 1 - len(core)) // max(sc.searches, 1))
    q = quality_at(sc.search_quality, k)
    attempts = expected_attempts(q, sc.max_searches) if sc.searches else 0.0
    s = int(np.ceil(sc.searches * attempts - 1e-9))  # search requests the head holds (misses included)
    if k * s > len(pool):
        warnings.append(f"{s} searches x {k} tools is more than the {len(pool)} searchable tools; clamped")
        k = len(pool) // max(s, 1)
    rules = search_rules(sc.search) if sc.search not in (None, "custom") else None
    search_tool = (float(sc.search_tool_tokens) if sc.search_tool_tokens is not None
                   else rules.search_tool_tokens if rules is not None else table.search_tool)
    base = search_tool + float(table.tokens[core].sum()) + sum(table.instructions.values())
    shown = ""
    if rules is not None and rules.deferred_visible != "nothing" and table.brief is not None:
        base += float(table.brief[pool].sum())  # OpenAI: a deferred function's name and description stay
        shown = f"; the {len(pool)} deferred tools' names and descriptions stay visible"
    n0 = 1 + len(core)
    prefix = [base] * (s + 1)
    mean_pool = _mean_tokens(table, pool)
    e = sc.searches * attempts  # expected searches: the last slot of the head is a fraction of one
    loaded = [min(j, e) * k * mean_pool for j in range(s + 1)]
    visible = [float(n0 + min(j, e) * k) for j in range(s + 1)]
    label = ["search"] * s + ["tool_search"]
    which = f"{sc.search} search ({rules.tool_type})" if rules is not None else "search tool"
    return Profile(prefix, loaded, visible, [0] * (s + 1), label, s, searches=s, overhead=overhead,
                   warnings=warnings, expected_searches=e,
                   found=found_share(q, sc.max_searches) ** sc.searches,
                   description=f"{which} + {len(core)} core; {sc.searches} search(es) loading {k} tools each"
                               + (f", {e:.2f} with misses at hit@{k} {q:.0%}" if q < 1 else "")
                               + shown)
