"""What an MCP client puts in the model's context for its servers: each tool's tokens, loaded or
deferred under the client's tool-search setting, what deferring still costs (names, server
instructions, the search tool), the share of the model's context window and the limits it breaks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ..core.registry import Registry
from ..core.tokens import DEFAULT_ENCODING, count
from ..inputs.clients.config import ClientConfig
from ..inputs.discovery.names import apply_prefix, rename_tools
from ..providers.catalog import rendering, rendering_for
from ..providers.clients import (
    ToolSearch,
    client_limit_problems,
    client_rules,
    client_search,
    client_tool_name,
    tool_search,
    vscode_tool_name,
    vscode_tool_prefixes,
)
from ..providers.limits import limit_problems
from ..providers.prices import load_prices, price_for
from .parts import footprint_columns


@dataclass
class ClientContext:
    """A client's MCP context: per tool, per server and in total, with the rules it rests on."""

    client: str
    label: str
    model: str
    model_source: str
    context_window: int
    search: ToolSearch
    encoding: str
    method: str
    tools: list[dict[str, Any]] = field(default_factory=list)
    servers: list[dict[str, Any]] = field(default_factory=list)
    totals: dict[str, Any] = field(default_factory=dict)
    limits: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"client": self.client, "model": self.model, "model_source": self.model_source,
                "context_window": self.context_window,
                "tool_search": {"deferred": self.search.deferred, "setting": self.search.setting,
                                "why": self.search.why, "threshold_tokens": self.search.threshold},
                "encoding": self.encoding, "method": self.method, "totals": self.totals,
                "servers": self.servers, "tools": self.tools, "limits": self.limits, "notes": self.notes,
                "warnings": self.warnings, "sources": self.sources}


def client_context(reg: Registry, cfg: ClientConfig, *, model: str | None = None,
                   environ: Mapping[str, str] | None = None, encoding: str = DEFAULT_ENCODING) -> ClientContext:
    """The context `cfg.client` builds from the discovered servers in `reg` (named as in the config).

    `model` defaults to the one the client's config names, then to the client's default
    (providers.toml). `environ` is the environment the client runs in (its settings' `env` applied
    on top). Raises InputError for an unknown model or a tool-search setting the client refuses.
    """
    rules = client_rules(cfg.client)
    model, model_source = _model(model, cfg, rules)
    price = price_for(model, load_prices())
    env = {**(environ or {}), **cfg.env}
    shown, hidden = _kept_tools(reg, cfg)
    named = _named(shown, cfg.client, rules)
    render, render_model = rendering_for(rules.get("render", "json"), model, price.provider)
    columns, _ = footprint_columns(named, encoding=encoding, render=render, model=render_model, parts=False)
    tokens = [t for t, kind in zip(columns["tokens"], columns["kind"], strict=True) if kind == "tool"]
    always = _always_loaded(named, cfg, rules)
    rows = [{"server": t.server, "tool": raw.name, "name": t.name, "tokens": int(n), "always_load": t.key in always}
            for t, raw, n in zip(named.tools, shown.tools, tokens, strict=True)]
    deferrable = sum(r["tokens"] for r in rows if not r["always_load"])
    search = tool_search(cfg.client, model=model, environ=env, mcp_tokens=deferrable,
                         context_window=price.context_window)
    form = rules.get("name_template") or rules.get("name_form")
    named_as = f"under the name {rules['label']} gives it ({form})" if form else "under its own name"
    # Each tool counted without the per-request constants (Anthropic's tool-use system prompt, OpenAI's
    # closing tokens): those come with the client's own tools, not the MCP ones.
    method = f"{rendering(render).per_tool_method()}, each tool {named_as}"
    ctx = ClientContext(cfg.client, rules["label"], model, model_source, price.context_window, search, encoding,
                        method, sources=[rules["source"] + f" ({rules['as_of']})"])
    _fill(ctx, rows, named, rules, encoding, {s.name: s.scope for s in cfg.servers})
    ctx.limits = client_limit_problems(cfg.client, len(rows)) + limit_problems(
        price.provider, sum(r["state"] == "loaded" for r in rows), [r["name"] for r in rows])
    ctx.notes = cfg.lines() + [f"{n} tool(s) of {s!r} hidden by the config's tool filters" for s, n in hidden.items()]
    ctx.notes += _shortened(rows, rules)
    failed = [n for n, s in reg.servers.items() if "error" in s.info and n in {c.name for c in cfg.servers}]
    if failed:
        ctx.notes.append(f"incomplete: {len(failed)} server(s) could not be read, so their tools are not "
                         f"counted: {', '.join(failed)}")
    ctx.totals["complete"] = not failed
    ctx.warnings = list(cfg.warnings)
    return ctx


def _shortened(rows: list[dict], rules: dict) -> list[str]:
    """One note for the names the client rewrote (too long, or characters the API refuses)."""
    template = rules.get("name_template")
    if not template:
        return []
    changed = [(made, r["name"]) for r in rows
               if (made := template.replace("{server}", r["server"]).replace("{tool}", r["tool"])) != r["name"]]
    if not changed:
        return []
    made, sent = changed[0]
    return [f"{rules['label']} rewrites {len(changed)} tool name(s), counted as it sends them (e.g. {made!r} "
            f"becomes {sent!r}): {rules['name_source']}"]


def _model(model: str | None, cfg: ClientConfig, rules: dict) -> tuple[str, str]:
    if model:
        return model, "--model"
    if cfg.model:
        return cfg.model, cfg.model_source
    return rules["default_model"], rules["default_model_source"]


def _named(reg: Registry, client: str, rules: dict) -> Registry:
    """The tools under the names the client sends them (providers.toml name_source)."""
    if rules.get("name_rule") == "vscode":
        labels = {}
        for name, s in reg.servers.items():
            info = s.info.get("serverInfo") if isinstance(s.info.get("serverInfo"), dict) else {}
            labels[name] = str(info.get("title") or info.get("name") or name)
        prefixes = vscode_tool_prefixes(labels)
        return rename_tools(reg, lambda server, tool: vscode_tool_name(prefixes[server], tool))
    if rules.get("name_template"):
        return apply_prefix(reg, rules["name_template"], partial(client_tool_name, client))
    return reg


def _kept_tools(reg: Registry, cfg: ClientConfig) -> tuple[Registry, dict[str, int]]:
    """The tools the client shows (its per-server filters applied), and how many each server hides."""
    by_name = {s.name: s for s in cfg.servers}
    kept = reg.filter(lambda t: t.server not in by_name or by_name[t.server].keeps(t.name))
    hidden = {n: len(s.tools) - len(kept.servers[n].tools) for n, s in reg.servers.items()
              if len(s.tools) != len(kept.servers[n].tools)}
    return kept, hidden


def _always_loaded(reg: Registry, cfg: ClientConfig, rules: dict) -> set[str]:
    """Keys of the tools that skip deferral: a server with `alwaysLoad`, or the tool's own _meta
    (the client's always_load_meta key)."""
    servers = {s.name for s in cfg.servers if s.always_load}
    key = rules.get("always_load_meta")
    return {t.key for t in reg if t.server in servers or (key is not None and _meta(t).get(key) is True)}


def _meta(tool) -> dict:
    meta = tool.as_sent().get("_meta")
    return meta if isinstance(meta, dict) else {}


def _fill(ctx: ClientContext, rows: list[dict], reg: Registry, rules: dict, encoding: str,
          scopes: dict[str, str]) -> None:
    """Each tool's state and tokens in the context, the per-server rows and the totals. A deferred
    tool leaves its name in the context ("names") or nothing but its server's name ("servers")."""
    visible = rules.get("deferred_visible", "names")
    for r in rows:
        r["state"] = "deferred" if ctx.search.deferred and not r["always_load"] else "loaded"
        r["in_context"] = r["tokens"] if r["state"] == "loaded" else (
            count(r["name"] + "\n", encoding) if visible == "names" else 0)
    search = client_search(ctx.client)
    any_deferred = any(r["state"] == "deferred" for r in rows)
    search_tokens = int(search.search_tool_tokens) if any_deferred and search else 0
    for name, s in reg.servers.items():
        mine = [r for r in rows if r["server"] == name]
        deferred = sum(r["state"] == "deferred" for r in mine)
        instructions = count(s.instructions, encoding) if s.instructions else 0
        namespace = count(name + "\n", encoding) if visible == "servers" and deferred else 0
        ctx.servers.append({"server": name, "scope": scopes.get(name, ""), "tools": len(mine), "loaded": len(mine) - deferred, "deferred": deferred,
                            "tokens_loaded": sum(r["tokens"] for r in mine), "instructions": instructions,
                            "namespace": namespace, "in_context": sum(r["in_context"] for r in mine)
                            + instructions + namespace, "failed": "error" in s.info})
    ctx.tools = rows
    instruction_tokens = sum(s["instructions"] for s in ctx.servers)
    in_context = sum(s["in_context"] for s in ctx.servers) + search_tokens
    ctx.totals.update({
        "servers": len(ctx.servers), "tools": len(rows), "loaded": sum(r["state"] == "loaded" for r in rows),
        "deferred": sum(r["state"] == "deferred" for r in rows),
        "deferred_servers": sum(s["deferred"] > 0 for s in ctx.servers),
        "tokens_all_loaded": sum(r["tokens"] for r in rows) + instruction_tokens,
        "loaded_tool_tokens": sum(r["tokens"] for r in rows if r["state"] == "loaded"),
        "deferred_name_tokens": sum(r["in_context"] for r in rows if r["state"] == "deferred"),
        "namespace_tokens": sum(s["namespace"] for s in ctx.servers),
        "instruction_tokens": instruction_tokens, "search_tool_tokens": search_tokens,
        "in_context": in_context, "context_share": in_context / ctx.context_window if ctx.context_window else 0.0})
