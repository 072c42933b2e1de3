"""The audit thresholds (assumptions/audit.toml) the audit, the plan and the report share, with a user's
overrides merged in."""

from __future__ import annotations

from pathlib import Path

from ..core.assumptions import bundled_toml, read_toml
from ..errors import InputError
from ..providers.limits import tool_name_rule


def load_config(override: dict | str | Path | None = None) -> dict:
    """The bundled thresholds (assumptions/audit.toml), with `override` (a dict or TOML file) merged in.

    Raises InputError for an unreadable override or a key the bundled file does not have.
    """
    cfg = bundled_toml("audit.toml")
    cfg["names"] = {"pattern": tool_name_rule()["pattern"], **cfg["names"]}  # the providers' own rule
    if override is None:
        return cfg
    if not isinstance(override, dict):
        override = read_toml(override, "audit config")
    for section, values in override.items():
        if section not in cfg or not isinstance(values, dict):
            raise InputError(f"unknown audit config section {section!r}; expected one of: {', '.join(cfg)}")
        unknown = set(values) - set(cfg[section])
        if unknown:
            raise InputError(f"unknown key(s) {', '.join(sorted(unknown))} in [{section}]; "
                             f"expected: {', '.join(cfg[section])}")
        cfg[section] = {**cfg[section], **values}
    return cfg
