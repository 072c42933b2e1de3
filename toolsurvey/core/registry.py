"""The one normalized model of a tool surface: tools grouped by server."""

from __future__ import annotations

import fnmatch
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class Tool:
    """One tool as the model sees it, plus the exact JSON object the source sent (`raw`)."""

    name: str
    description: str | None = None
    input_schema: dict = field(default_factory=dict)
    output_schema: dict | None = None
    annotations: dict | None = None
    title: str | None = None
    server: str = "default"
    tags: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)  # other keys the source sent
    raw: dict | None = None  # the source's JSON object for this tool, key order kept
    source_format: str = "mcp"

    def to_mcp(self) -> dict:
        """The tool as an MCP `tools/list` entry (name, title, description, inputSchema, ...)."""
        out: dict[str, Any] = {"name": self.name}
        if self.title is not None:
            out["title"] = self.title
        if self.description is not None:
            out["description"] = self.description
        out["inputSchema"] = self.input_schema
        if self.output_schema is not None:
            out["outputSchema"] = self.output_schema
        if self.annotations is not None:
            out["annotations"] = self.annotations
        out.update(self.extra)
        return out

    def as_sent(self) -> dict:
        """The exact object the source sent, or the MCP form when the tool was built in code."""
        return self.raw if self.raw is not None else self.to_mcp()

    @property
    def key(self) -> str:
        """`server/name`, unique within a registry unless the server itself repeats a name."""
        return f"{self.server}/{self.name}"


@dataclass(frozen=True)
class Server:
    """A group of tools with what is known about where they came from."""

    name: str
    tools: tuple[Tool, ...] = ()
    instructions: str | None = None  # sent to the model too, so it is measured
    info: dict[str, Any] = field(default_factory=dict)  # serverInfo, protocolVersion, launch, ...


@dataclass
class Registry:
    """Servers and their tools; `warnings` holds per-tool problems met while loading."""

    servers: dict[str, Server] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)

    @classmethod
    def from_tools(cls, tools: Iterable[Tool], **kwargs) -> Registry:
        """Group tools by their `server` field, keeping their order."""
        grouped: dict[str, list[Tool]] = {}
        for t in tools:
            grouped.setdefault(t.server, []).append(t)
        return cls({name: Server(name, tuple(ts)) for name, ts in grouped.items()}, **kwargs)

    @property
    def tools(self) -> list[Tool]:
        return [t for s in self.servers.values() for t in s.tools]

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.tools)

    def __len__(self) -> int:
        return sum(len(s.tools) for s in self.servers.values())

    def __repr__(self) -> str:
        per = ", ".join(f"{s.name}: {len(s.tools)}" for s in self.servers.values())
        return f"<Registry {len(self)} tools in {len(self.servers)} servers ({per})>"

    def merge(self, other: Registry) -> Registry:
        """Both registries' servers; a server present in both has its tools concatenated."""
        servers = dict(self.servers)
        for name, s in other.servers.items():
            if name in servers:
                old = servers[name]
                s = replace(old, tools=old.tools + s.tools,
                            instructions=old.instructions or s.instructions,
                            info={**s.info, **old.info})
            servers[name] = s
        return Registry(servers, self.warnings + other.warnings, self.sources + other.sources)

    def filter(self, keep: Callable[[Tool], bool]) -> Registry:
        """A registry of the tools for which `keep(tool)` is true (servers left empty are kept)."""
        servers = {n: replace(s, tools=tuple(t for t in s.tools if keep(t)))
                   for n, s in self.servers.items()}
        return Registry(servers, list(self.warnings), list(self.sources))

    def select(self, *patterns: str) -> Registry:
        """Tools whose name or `server/name` matches any glob pattern."""
        return self.filter(lambda t: any(fnmatch.fnmatchcase(t.name, p) or
                                         fnmatch.fnmatchcase(t.key, p) for p in patterns))

    def map(self, change: Callable[[Tool], Tool]) -> Registry:
        """A registry with `change` applied to every tool."""
        servers = {n: replace(s, tools=tuple(change(t) for t in s.tools))
                   for n, s in self.servers.items()}
        return Registry(servers, list(self.warnings), list(self.sources))

    def collisions(self) -> dict[str, list[str]]:
        """Tool names that appear more than once, with the servers that define them."""
        counts = Counter(t.name for t in self)
        out: dict[str, list[str]] = {}
        for t in self:
            if counts[t.name] > 1:
                out.setdefault(t.name, []).append(t.server)
        return out
