"""What an eval sends, and what it will cost before anything is sent: the tools as the API takes
them (names the API refuses rewritten, and mapped back), the input tokens of every request counted
with the existing renderings, and their price at the model's rates, without and with the tool
definitions as a cached prefix."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ...core.registry import Registry
from ...core.tokens import count
from ...errors import InputError
from ...providers.asking import api_names
from ...providers.caching import cache_write_price
from ...providers.prices import PER_MILLION, LazyPrices, Price, price_for
from ..parts import footprint_columns

OUTPUT_TOKENS = 60  # the output an estimate assumes per answer: a tool call's name and arguments
MESSAGE_TOKENS = 7  # per request: the user message's framing and the reply's start (OpenAI's cookbook: 3 + 4)


@dataclass
class Offered:
    """The tools one request carries: registry keys, the names sent, the tools in the API's format,
    each key's input schema, and which names were rewritten."""

    keys: list[str]
    names: list[str]
    tools: list
    schemas: dict
    renamed: list[str] = field(default_factory=list)

    @property
    def by_name(self) -> dict[str, str]:
        return dict(zip(self.names, self.keys, strict=True))


def offered(reg: Registry, tools_format: str) -> Offered:
    """`reg`'s tools as `tools_format` writes them (toolsurvey convert's formats), each under the name
    the API accepts (providers.asking.api_names)."""
    from ...inputs.formats import dump

    keys = [t.key for t in reg]
    names, renamed = api_names(keys, [t.name for t in reg])
    tools = dump(reg, tools_format)
    for tool, name in zip(tools, names, strict=True):
        target = tool["function"] if isinstance(tool.get("function"), dict) else tool
        target["name"] = name
    return Offered(keys, names, tools, {t.key: t.input_schema for t in reg}, renamed)


@dataclass
class Estimate:
    """What the answers still to fetch will cost: `requests` to send (of `total`; the rest are in the
    answer cache), their input tokens, and the price without and with caching (None: no price known)."""

    total: int
    requests: int
    tools_tokens: int
    input_tokens: int
    output_tokens: int
    cost: float | None
    cost_cached: float | None
    price: Price | None
    method: str

    def to_json(self) -> dict:
        d = {k: getattr(self, k) for k in ("total", "requests", "tools_tokens", "input_tokens", "output_tokens",
                                           "cost", "cost_cached", "method")}
        d["price_model"] = self.price.model if self.price else None
        return d


def find_price(model: str) -> Price | None:
    """The model's price (toolsurvey's table: LiteLLM's file and the bundled overrides), or None."""
    try:
        return price_for(model, LazyPrices())
    except InputError:
        return None


def tools_tokens(reg: Registry, render: str, model: str | None) -> tuple[int, str]:
    """Tokens of `reg`'s tools in one request under `render` (the model's own family when the
    rendering knows it, else its default), and how they were counted."""
    try:
        cols, attrs = footprint_columns(reg, render=render, model=model, parts=False)
    except InputError:
        cols, attrs = footprint_columns(reg, render=render, parts=False)
    # the tools and the request's overhead; servers' instructions are not sent by an eval
    total = sum(t for t, kind in zip(cols["tokens"], cols["kind"], strict=True) if kind != "instructions")
    return int(total), str(attrs.get("method") or render)


def cost_of(usage: Sequence[int], price: Price | None) -> float | None:
    """Dollars for a usage (input, 5-minute write, 1-hour write, cache read, output); None: no price."""
    if price is None:
        return None
    inp, w5, w1, read, out = usage
    write1 = price.cache_write_1h if price.cache_write_1h is not None else price.cache_write
    return (inp * price.input + w5 * cache_write_price(price, "5m", price.model) + w1 * write1
            + read * price.cache_read + out * price.output) / PER_MILLION


def estimate(prompts: Sequence[str], total: int, tools: int, method: str, system: str | None,
             price: Price | None, scale: float = 1.0) -> Estimate:
    """The cost of sending `prompts` (one request each) carrying `tools` tokens of tool definitions:
    input at the input price; and with caching, the tools as a prefix written once, then read (only
    when it reaches the model's minimum cacheable length). Both times `scale` (a batch's price)."""
    rest = [count(p) + MESSAGE_TOKENS + (count(system) if system else 0) for p in prompts]
    n = len(prompts)
    inp = n * tools + sum(rest)
    out = n * OUTPUT_TOKENS
    if price is None:
        return Estimate(total, n, tools, inp, out, None, None, None, method)
    plain = cost_of((inp, 0, 0, 0, out), price) * scale
    cached = plain
    if n and tools >= price.min_cache_tokens:
        cached = cost_of((sum(rest), tools, 0, (n - 1) * tools, out), price) * scale
    return Estimate(total, n, tools, inp, out, plain, cached, price, method)
