"""The client settings that realise a plan's delete and defer stages for the servers the user does not
own: per client, which switch (a deny rule, disabled_tools, a disabled server, ENABLE_TOOL_SEARCH,
alwaysLoad), in which file, cited from providers.toml [clients.*.fix]; and the client's config as it
will read after the change, so `context` can be predicted before anything is written."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from ...errors import InputError
from ...inputs.clients.claude_code import config_dir, project_key
from ...inputs.clients.config import ClientConfig, LeftOut
from ...inputs.clients.edit import Edit
from ...providers.clients import client_rules, client_tool_name


@dataclass(frozen=True)
class Setting:
    """One change to a client's config: the plan stage and target it realises, the change in words,
    the file and edit (None when no setting reaches it), and the documentation it rests on."""

    stage: str    # delete or defer
    target: str   # server/tool, a server, or (all)
    what: str
    source: str
    file: str | None = None
    syntax: str = "json"
    edit: Edit | None = None

    @property
    def reachable(self) -> bool:
        return self.edit is not None or self.what.startswith("already")


@dataclass
class ClientPlan:
    """A client's settings for a plan, and its config as the client will read it after them."""

    client: str
    label: str
    settings: list[Setting]
    after: ClientConfig
    environ_after: dict[str, str]


def client_settings(cfg: ClientConfig, actions, tools: dict[str, list[str]], own, *, home: Path, project: Path,
                    environ: dict[str, str], search_deferred: bool | None, model: str) -> ClientPlan:
    """The settings that realise `actions` (the plan's delete and defer actions) in `cfg`'s client.

    `tools` lists each configured server's tools (as discovered); `own` the servers the user owns (their
    deletes are changes to their code, not settings); `search_deferred` whether the client defers its
    tools today (None: it has no tool search). Raises InputError for a deleted tool whose server the
    config no longer has or no longer shows, and for a server or tool name the client would escape
    into a deny rule that could name another server.
    """
    rules = client_rules(cfg.client)
    switches = rules.get("fix", {})
    servers = {s.name: s for s in cfg.servers}
    deletes: dict[str, list[str]] = {}
    for a in actions:
        if a.kind != "delete":
            continue
        server, _, tool = a.target.partition("/")
        if own and server in own:
            continue
        if server not in servers:
            why = next((o.why for o in cfg.left_out if o.name == server), "it is not in the config")
            raise InputError(f"the plan deletes {a.target}, but {cfg.label} no longer starts server {server!r} "
                             f"({why}); plan again on the servers it starts now")
        if not servers[server].keeps(tool) or tool not in tools.get(server, []):
            raise InputError(f"the plan deletes {a.target}, which {cfg.label}'s config no longer shows; plan "
                             "again on a snapshot of the servers as configured now")
        deletes.setdefault(server, []).append(tool)
    maker = _MAKERS.get(cfg.client)
    out = ClientPlan(cfg.client, rules["label"], [], cfg, dict(environ))
    if maker is None:
        why = switches.get("tool_none", f"toolsurvey cannot write {rules['label']}'s settings")
        out.settings = [Setting("delete", f"{s}/{t}", f"not reachable by configuration: {why}", rules["source"])
                        for s, ts in deletes.items() for t in ts]
        if any(a.kind == "defer" for a in actions):
            out.settings.append(Setting("defer", "(all)", f"not reachable by configuration: {rules['label']} has "
                                        "no tool search", rules["source"]))
        return out
    maker(out, cfg, deletes, tools, switches, home=home, project=project, environ=environ,
          defer=any(a.kind == "defer" for a in actions), search_deferred=search_deferred, model=model)
    return out


# --- Claude Code ---------------------------------------------------------------------------------

_CLAUDE_SCOPE_FILE = {"user": None, "project": ".claude/settings.json", "local": ".claude/settings.local.json"}


def _claude_code(out: ClientPlan, cfg: ClientConfig, deletes, tools, switches, *, home, project, environ, defer,
                 search_deferred, model) -> None:
    state, settings_dir = config_dir(home, environ)
    servers = {s.name: s for s in cfg.servers}
    after = {s.name: s for s in cfg.servers}
    left_out = list(cfg.left_out)
    key = project_key(project)
    for name, gone in deletes.items():
        s = servers[name]
        if set(gone) >= {t for t in tools[name] if s.keeps(t)}:
            if s.scope == "project":
                f = project / ".claude" / "settings.json"
                edit = Edit("append", ("disabledMcpjsonServers",), name)
            else:
                f, edit = state, Edit("append", ("projects", key, "disabledMcpServers"), name)
            out.settings.append(Setting("delete", name, f"disable server {name!r} (every tool it shows is "
                                        f"deleted): {edit.path[-1]} += {name!r}", switches["server_source"],
                                        str(f), "json", edit))
            left_out.append(LeftOut(name, s.scope, s.source, "disabled by fix", disabled=True))
            after.pop(name)
            continue
        f = settings_dir / "settings.json" if s.scope == "user" else project / _CLAUDE_SCOPE_FILE[s.scope]
        for tool in gone:
            rule = _deny_rule(cfg.client, name, tool, tools)
            out.settings.append(Setting("delete", f"{name}/{tool}", f"permissions.deny += {rule!r}",
                                        switches["tool_source"], str(f), "json",
                                        Edit("append", ("permissions", "deny"), rule)))
        after[name] = replace(s, hidden_tools=(*s.hidden_tools, *gone))
    env = dict(cfg.env)
    if defer:
        _claude_defer(out, cfg, switches, after, env, settings_dir, project, key, state, search_deferred)
    out.after = replace(cfg, servers=list(after.values()), left_out=left_out, env=env)


def _claude_defer(out, cfg, switches, after, env, settings_dir, project, key, state, search_deferred) -> None:
    var = client_rules(cfg.client)["setting_env"]
    if search_deferred:
        out.settings.append(Setting("defer", "(all)", f"already deferred: {var} as it is defers the MCP tools",
                                    switches["search_source"]))
    else:
        files = [settings_dir / "settings.json", project / ".claude" / "settings.json",
                 project / ".claude" / "settings.local.json"]
        f = next((p for p in reversed(files) if _sets_env(p, var)), files[-1])
        out.settings.append(Setting("defer", "(all)", f"env.{var} = \"true\"", switches["search_source"], str(f),
                                    "json", Edit("set", ("env", var), "true")))
        env[var] = "true"
    for name, s in list(after.items()):
        if s.always_load:
            path = {"user": ("mcpServers", name), "local": ("projects", key, "mcpServers", name)}.get(
                s.scope, ("mcpServers", name))
            out.settings.append(Setting("defer", name, f"remove alwaysLoad from server {name!r}",
                                        switches["always_load_source"], s.file or str(state), "json",
                                        Edit("remove", (*path, "alwaysLoad"))))
            after[name] = replace(s, always_load=False)


def _sets_env(path: Path, var: str) -> bool:
    from ...core.jsonc import read_jsonc

    if not path.exists():
        return False
    data, _ = read_jsonc(path, comments=False)
    return isinstance(data, dict) and isinstance(data.get("env"), dict) and var in data["env"]


def _deny_rule(client: str, server: str, tool: str, tools: dict[str, list[str]]) -> str:
    """The deny rule naming one tool as the client sends its name. Raises InputError when the client
    escapes a character of the server's or tool's name, so the rule could name another tool too."""
    template = client_rules(client)["name_template"]
    rule = client_tool_name(client, template.replace("{server}", server).replace("{tool}", tool))
    for kind, name in (("server", server), ("tool", tool)):
        escaped = client_tool_name(client, name)
        if escaped != name:
            raise InputError(f"{kind} {name!r}: {client_rules(client)['label']} writes it as {escaped!r} in tool "
                             f"names, so a deny rule for it ({rule!r}) would also name a {kind} called "
                             f"{escaped!r}; rename it (letters, digits, _ and -) or deny it by hand")
    return rule


# --- Codex ---------------------------------------------------------------------------------------


def _codex(out: ClientPlan, cfg: ClientConfig, deletes, tools, switches, *, home, project, environ, defer,
           search_deferred, model) -> None:
    servers = {s.name: s for s in cfg.servers}
    after = dict(servers)
    left_out = list(cfg.left_out)
    for name, gone in deletes.items():
        s = servers[name]
        if set(gone) >= {t for t in tools[name] if s.keeps(t)}:
            out.settings.append(Setting("delete", name, f"disable server {name!r} (every tool it shows is deleted): "
                                        "enabled = false", switches["server_source"], s.file, "toml",
                                        Edit("set", ("mcp_servers", name, "enabled"), False)))
            left_out.append(LeftOut(name, s.scope, s.source, "enabled = false", disabled=True))
            after.pop(name)
            continue
        for tool in gone:
            out.settings.append(Setting("delete", f"{name}/{tool}", f"disabled_tools += {tool!r}",
                                        switches["tool_source"], s.file, "toml",
                                        Edit("append", ("mcp_servers", name, "disabled_tools"), tool)))
        after[name] = replace(s, hidden_tools=(*s.hidden_tools, *gone))
    if defer:
        what = ("already deferred: Codex defers every MCP tool for " + model if search_deferred else
                f"not reachable by configuration with {model}: {switches['search_none']}")
        out.settings.append(Setting("defer", "(all)", what, switches["search_none"]))
    out.after = replace(cfg, servers=list(after.values()), left_out=left_out)


_MAKERS = {"claude-code": _claude_code, "codex": _codex}


def server_tools(cfg: ClientConfig, reg) -> dict[str, list[str]]:
    """Each configured server's tools as discovered (`reg` named as in the config)."""
    return {s.name: [t.name for t in reg.servers[s.name].tools] if s.name in reg.servers else []
            for s in cfg.servers}

