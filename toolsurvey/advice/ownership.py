"""Which servers the user owns, and so which tools they may merge (DESIGN: advice is scoped to what the
user controls)."""

from __future__ import annotations

from collections.abc import Iterable

from ..core.registry import Registry
from ..errors import InputError


def owned(own: str | Iterable[str] | None) -> frozenset[str] | None:
    """The servers the user owns, from a comma-separated string or a list (None: not said)."""
    if own is None:
        return None
    names = own.split(",") if isinstance(own, str) else list(own)
    out = frozenset(str(n).strip() for n in names if str(n).strip())
    if not out:
        raise InputError(f"own must name at least one server (comma-separated), found {own!r}")
    return out


def check_owned(own: frozenset[str] | None, reg: Registry) -> None:
    """Raises InputError when `own` names a server the registry does not have."""
    unknown = sorted(set(own or ()) - set(reg.servers))
    if unknown:
        raise InputError(f"own names server(s) {', '.join(unknown)} that the registry does not have; "
                         f"servers: {', '.join(reg.servers)}")


def can_merge(server_a: str, server_b: str, own: frozenset[str] | None) -> bool:
    """Whether the user can merge a tool of `server_a` with one of `server_b`: without `own`, only
    within one server; with `own`, among the servers named (within or across them)."""
    if own is None:
        return server_a == server_b
    return server_a in own and server_b in own
