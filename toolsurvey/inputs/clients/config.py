"""What a client's config says: the files read (or looked for), the servers it starts, and the
servers it leaves out, each with the reason."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ...errors import InputError
from ..configs import ServerSpec


@dataclass(frozen=True)
class ConfigFile:
    """One file the client reads, in one scope (user, project, local), and whether it exists."""

    path: str
    scope: str
    found: bool
    servers: int = 0


@dataclass(frozen=True)
class ClientServer:
    """One server the client starts: how to reach it, where it was configured, and how the client
    treats its tools (always loaded, or only some of them)."""

    spec: ServerSpec
    scope: str
    source: str  # the file (and, for ~/.claude.json, the key) it came from
    always_load: bool = False
    only_tools: tuple[str, ...] | None = None  # the client keeps only these (Codex enabled_tools, ...)
    hidden_tools: tuple[str, ...] = ()  # the client hides these (disabled_tools, excludeTools, ...)
    notes: tuple[str, ...] = ()
    file: str = ""  # the real path of the file that configures it (source is the path as messages show it)
    denied: Callable[[str], bool] | None = field(default=None, compare=False, repr=False)  # Claude Code's deny rules

    @property
    def name(self) -> str:
        return self.spec.name

    def keeps(self, tool: str) -> bool:
        """Whether the client shows the model the server's tool named `tool`."""
        return ((self.only_tools is None or tool in self.only_tools) and tool not in self.hidden_tools
                and not (self.denied is not None and self.denied(tool)))


@dataclass(frozen=True)
class LeftOut:
    """A configured server the client does not start, and why: disabled, replaced by the same name
    in a higher scope, needing a value toolsurvey does not have, or not readable."""

    name: str
    scope: str
    source: str
    why: str
    disabled: bool = False  # the client itself turns it off (not just toolsurvey unable to start it)


@dataclass
class ClientConfig:
    """A client's servers for one project, as the client itself would start them."""

    client: str
    label: str
    project: str
    files: list[ConfigFile] = field(default_factory=list)
    servers: list[ClientServer] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)  # variables the client sets for itself (settings `env`)
    model: str | None = None  # the model the client's own config names
    model_source: str = ""

    def pick(self, names: list[str]) -> ClientConfig:
        """Only the servers named; raises InputError for a name the client disables or does not have."""
        if not names:
            return self
        kept = {s.name: s for s in self.servers}
        out = {o.name: o for o in self.left_out if o.name not in kept}
        for n in names:
            if n in out:
                raise InputError(f"server {n!r} is named but {self.label} leaves it out ({out[n].source}): "
                                 f"{out[n].why}")
            if n not in kept:
                raise InputError(f"{self.label} has no server named {n!r} for {self.project}; it has: "
                                 f"{', '.join(kept) or 'none'}")
        return ClientConfig(self.client, self.label, self.project, self.files, [kept[n] for n in names],
                            self.left_out, self.warnings, self.env, self.model, self.model_source)

    def specs(self) -> list[ServerSpec]:
        return [s.spec for s in self.servers]

    def lines(self) -> list[str]:
        """What was read and what was left out, one line each (for the CLI's notes)."""
        out = [f"{self.label} config: {f.path} ({f.scope}): "
               + (f"{f.servers} server{'s' * (f.servers != 1)}" if f.found else "not found") for f in self.files]
        out += [f"left out {o.name!r} ({o.scope}, {o.source}): {o.why}" for o in self.left_out]
        out += [f"{s.name!r}: {n}" for s in self.servers for n in s.notes]
        return out
