"""What the rows of one simulate or sweep call share: tool tables, prices, curves and visible-set
profiles, each built once, and the tool tables of recently simulated registries."""

from __future__ import annotations

from ..core.registry import Registry
from ..errors import InputError
from ..providers.catalog import rendering, rendering_for
from ..providers.prices import Price, price_for
from .accuracy import AccuracyCurve
from .scenario import Scenario
from .strategies import Profile, ToolTable, average_table, profile, tool_table

# Tool tables of recently simulated registries. Widgets and sweeps re-simulate one registry many
# times, and measuring it is most of a simulate call. The key is the identity of the registry's
# (frozen) Server objects, which the entry keeps alive so that no other object can take their ids.
_MEASURED: dict = {}
_MEASURED_MAX = 8


def _measured(reg: Registry, **options) -> ToolTable:
    """`tool_table(reg, **options)`, measured once per registry contents and options."""
    servers = tuple(reg.servers.values())
    key = (tuple(map(id, servers)), tuple(sorted(options.items(), key=lambda kv: kv[0])))
    hit = _MEASURED.pop(key, None)
    table = hit[1] if hit else tool_table(reg, **options)
    _MEASURED[key] = (servers, table)  # re-inserted last: the dict keeps least recently used first
    while len(_MEASURED) > _MEASURED_MAX:
        _MEASURED.pop(next(iter(_MEASURED)))
    return table


class Context:
    """Caches shared by the rows of one call: tool tables, prices, curves and visible-set profiles, each built once."""

    def __init__(self, reg: Registry | None):
        self.reg = reg
        self.tables: dict = {}
        self.prices: dict = {}
        self.curves: dict = {}
        self.profiles: dict = {}

    def price(self, sc: Scenario) -> Price:
        key = (sc.price_file, repr(sorted((k, sorted(dict(v).items())) for k, v in sc.prices.items())))
        if key not in self.prices:
            self.prices[key] = sc.price_table()
        return price_for(sc.model, self.prices[key])

    def curve(self, sc: Scenario) -> AccuracyCurve:
        key = repr(sc.accuracy_curve)
        if key not in self.curves:
            self.curves[key] = sc.curve()
        return self.curves[key]

    def table(self, sc: Scenario, price: Price) -> ToolTable:
        render, model = rendering_for(sc.render, sc.model, price.provider)
        if self.reg is None:
            if sc.tool_tokens is None or sc.registry_size is None:
                raise InputError("without a registry, give tool_tokens (average tokens per tool) and "
                                 "registry_size (tools in the registry) for the average-size mode")
            key = ("avg", sc.tool_tokens, sc.registry_size, render, model)
            if key not in self.tables:
                overhead = rendering(render).overhead(model)
                self.tables[key] = average_table(sc.tool_tokens, sc.registry_size, overhead=overhead.tokens,
                                                 overhead_note=overhead.why)
            return self.tables[key]
        key = (render, sc.encoding, model, sc.calibration)
        if key not in self.tables:
            self.tables[key] = _measured(self.reg, render=render, encoding=sc.encoding, model=model,
                                         calibration=sc.calibration)
        return self.tables[key]

    def profile(self, sc: Scenario, table: ToolTable) -> Profile:
        key = (id(table), sc.strategy, sc.visible, sc.tools, repr(sc.phases), sc.overflow, sc.core,
               sc.retrieval_k, sc.search_k, sc.searches, sc.search_tool_tokens, sc.overhead_tokens,
               sc.search, sc.max_searches, sc.search_quality if isinstance(sc.search_quality, float)
               else id(sc.search_quality))
        if key not in self.profiles:
            self.profiles[key] = profile(table, sc)
        return self.profiles[key]
