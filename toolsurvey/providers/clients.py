"""The MCP clients' rules (assumptions/providers.toml [clients.*], each with its source and date):
how a client names MCP tools, which of them it defers behind a tool search, and its own tool limits."""

from __future__ import annotations

import fnmatch
import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..errors import InputError
from .constants import provider_constants
from .search import SearchRules, search_rules

_TRUE, _FALSE = {"true", "1", "yes", "on"}, {"false", "0", "no", "off"}
_AUTO = re.compile(r"auto(?::(\d+(?:\.\d+)?))?")
_CLAUDE_BAD = re.compile(r"[^a-zA-Z0-9_-]")
_CODEX_BAD, _GEMINI_BAD = re.compile(r"[^a-zA-Z0-9_]"), re.compile(r"[^a-zA-Z0-9_\-.:]")


def client_names() -> list[str]:
    """The clients toolsurvey knows, as `--client` takes them."""
    return list(provider_constants().get("clients", {}))


def name_templates() -> dict[str, str]:
    """client -> the template it names MCP tools with ("mcp__{server}__{tool}"), for the clients
    whose namespacing is documented."""
    return {c: r["name_template"] for c, r in provider_constants().get("clients", {}).items() if "name_template" in r}


def client_rules(client: str) -> dict[str, Any]:
    """The client's rules; raises InputError for an unknown client, listing the known ones."""
    rules = provider_constants().get("clients", {}).get(client)
    if rules is None:
        raise InputError(f"unknown client {client!r}; expected one of: {', '.join(client_names())}")
    return dict(rules)


def client_search(client: str) -> SearchRules | None:
    """The API-side search ([search.*]) whose search tool the client uses, or None for a client
    that defers nothing. Raises InputError when providers.toml lacks the table the client names."""
    name = client_rules(client).get("search")
    return search_rules(name) if name else None


@dataclass(frozen=True)
class ToolSearch:
    """Whether a client defers its MCP tools, under which setting, and why (one sentence)."""

    deferred: bool
    setting: str
    why: str
    threshold: float | None = None  # auto mode: defer when MCP tools pass this many tokens


def tool_search(client: str, *, model: str, environ: Mapping[str, str], mcp_tokens: int,
                context_window: int) -> ToolSearch:
    """What the client does with its MCP tools for `model`, given the environment it runs in and
    the tokens its deferrable MCP tools would take loaded. Raises InputError for a setting the
    client does not accept (e.g. ENABLE_TOOL_SEARCH=maybe)."""
    rules = client_rules(client)
    kind = rules.get("deferral", "never")
    if kind == "never":
        return ToolSearch(False, "none", f"{rules['label']} has no tool search: every MCP tool is loaded")
    search = client_search(client)
    if search is None or not search.supports(model):
        return ToolSearch(False, "model", f"{model} does not support the tool search {rules['label']} uses "
                                          f"([search.{rules['search']}] models): every MCP tool is loaded")
    if kind == "always":
        return ToolSearch(True, "default", f"{rules['label']} defers every MCP tool behind its tool search")
    return _claude_code(rules, environ, mcp_tokens, context_window)


def _claude_code(rules: dict, environ: Mapping[str, str], mcp_tokens: int, window: int) -> ToolSearch:
    """ENABLE_TOOL_SEARCH: unset or true always defers, auto / auto:N above N% of the context
    window, false never; behind a gateway ANTHROPIC_BASE_URL, off unless the variable is set."""
    var, raw = rules["setting_env"], environ.get(rules["setting_env"])
    value = (raw or "").strip().lower()
    shown = f"{var}={raw}" if raw is not None else f"{var} unset"
    host = urlsplit(environ.get(rules["base_url_env"], "")).hostname
    if raw is None and host and host not in rules["first_party_hosts"]:
        return ToolSearch(False, shown, f"{rules['base_url_env']} points at {host}, not an Anthropic host: "
                                        f"tool search is off unless {var} is set")
    if value in _TRUE or raw is None or value == "":
        return ToolSearch(True, shown, "MCP tools are deferred: only their names and the servers' "
                                       "instructions are in the context until a search loads one")
    if value in _FALSE:
        return ToolSearch(False, shown, "tool search is off: every MCP tool is loaded")
    m = _AUTO.fullmatch(value)
    percent = float(m[1]) if m and m[1] else float(rules["auto_percent"]) if m else -1.0
    if not 0 <= percent <= 100:
        raise InputError(f"{var}={raw!r}: expected unset, true, false, auto or auto:N (N a percentage "
                         "of the context window, 0 to 100)")
    threshold = percent / 100 * window
    deferred = mcp_tokens > threshold
    return ToolSearch(deferred, shown, f"auto at {percent:g}% of the {window:,}-token context window "
                                       f"({threshold:,.0f} tokens): the MCP tools take {mcp_tokens:,}, so they are "
                                       + ("deferred" if deferred else "loaded"), threshold)


def client_limit_problems(client: str, tools: int) -> list[str]:
    """One line per tool limit of the client's own that `tools` MCP tools break, with its source."""
    rules = client_rules(client)
    most = rules.get("max_tools")
    if most is None or tools <= most:
        return []
    about = "about " if rules.get("approximate") else ""
    return [f"{tools:,} MCP tools, over {rules['label']}'s limit of {about}{most} tools "
            f"({rules['limit_source']}, {rules['as_of']}); its own built-in tools count too"]


def client_tool_name(client: str, name: str) -> str:
    """`name` (the client's template applied) as the client sends it: Claude Code, Codex and Gemini
    CLI replace the characters the API refuses; Codex and Gemini CLI shorten a name over the API's
    length (name_source)."""
    rule = client_rules(client).get("name_shortening")
    if rule == "claude-code":  # its __ separators are valid characters already
        return _CLAUDE_BAD.sub("_", name)
    if rule == "codex":
        clean = _CODEX_BAD.sub("_", name) or "_"
        return clean if len(clean) <= 64 else clean[:24] + hashlib.sha1(name.encode()).hexdigest()
    if rule == "gemini-cli":
        clean = _GEMINI_BAD.sub("_", name if name.startswith("mcp_") else "mcp_" + name)
        clean = clean if re.match(r"[a-zA-Z_]", clean) else "_" + clean
        return clean if len(clean) <= 63 else clean[:30] + "..." + clean[-30:]
    return name


def vscode_tool_prefixes(labels: Mapping[str, str]) -> dict[str, str]:
    """Each server's tool prefix in VS Code, from its label (the name the server announces, else its
    mcp.json key): mcp_ and the label lower-cased, cut to fit 18 characters, a number when two
    servers share it, and _ (McpPrefixGenerator in VS Code's mcpServer.ts)."""
    taken: dict[str, int] = {}
    out = {}
    for server, label in labels.items():
        safe = re.sub(r"[^a-z0-9_.-]+", "_", label.lower())[:13]
        taken[safe] = taken.get(safe, 0) + 1
        suffix = ("" if taken[safe] == 1 else str(taken[safe])) + "_"
        out[server] = "mcp_" + safe[:18 - 4 - len(suffix)] + suffix
    return out


def vscode_tool_name(prefix: str, tool: str) -> str:
    """A tool's name in VS Code: characters outside a-z 0-9 _ - become _, after its server's prefix,
    dots as _, at most 64 characters (McpServer._normalizeTool and McpTool in mcpServer.ts)."""
    return (prefix + re.sub(r"[^a-z0-9_-]", "_", tool, flags=re.IGNORECASE)).replace(".", "_")[:64]


def deny_matcher(client: str, server: str, rules: list[str]) -> Callable[[str], bool] | None:
    """Which of `server`'s tools the client's deny rules take from the model (providers.toml
    [clients.*.fix] tool_source): `mcp__<server>` and `mcp__<server>__*` every tool, `mcp__<server>__<tool>`
    one, a glob in the tool's place those it matches; names as the client sends them. None when no
    rule names the server (a rule with an argument, `mcp__x__y(...)`, is one the client skips)."""
    template = client_rules(client).get("name_template")
    if not template or not rules:
        return None
    prefix = client_tool_name(client, template.replace("{server}", server).replace("{tool}", ""))
    mine = [r if r != prefix.rstrip("_") else prefix + "*" for r in rules
            if "(" not in r and (r.startswith(prefix) or r == prefix.rstrip("_"))]
    if not mine:
        return None

    def denied(tool: str) -> bool:
        sent = client_tool_name(client, template.replace("{server}", server).replace("{tool}", tool))
        return any(fnmatch.fnmatchcase(sent, r) for r in mine)

    return denied
