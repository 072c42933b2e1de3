"""Which release and which data produced a result: toolsurvey's version and the dates of the data
that move figures (the LiteLLM price file, providers.toml, the accuracy curve), each read from the
file itself. `toolsurvey --version` prints it; the JSON of `report`, `plan` and `check` carries it."""

from __future__ import annotations

from ..core.assumptions import newest_as_of
from ..core.version import version
from ..inputs.scenario_files import curve_doc
from ..providers.constants import provider_constants
from ..providers.litellm import litellm_source


def provenance() -> dict[str, str]:
    """The version; the default price file in use (the LiteLLM snapshot shipped with this release, or
    the file `toolsurvey prices update` fetched) and its date; the newest entry date in providers.toml;
    the bundled accuracy curve's date."""
    prices = litellm_source()
    return {"version": version(), "prices": prices["name"], "prices_as_of": prices["as_of"],
            "providers_as_of": newest_as_of(provider_constants()),
            "accuracy_curve_as_of": str(curve_doc(None, "accuracy.toml", "accuracy curve")[0]["as_of"])}


def data_lines(p: dict[str, str]) -> list[str]:
    """The data's dates in words, one item each: `prices: LiteLLM 1.110.2 snapshot, as of 2026-11-30`, ..."""
    return [f"prices: {p['prices']}, as of {p['prices_as_of']}",
            f"providers.toml: as of {p['providers_as_of']}",
            f"accuracy curve: as of {p['accuracy_curve_as_of']}"]


def provenance_text(p: dict[str, str]) -> str:
    """What `toolsurvey --version` prints: `toolsurvey 0.7.0`, then one line per data file."""
    return "\n".join([f"toolsurvey {p['version']}", *data_lines(p)])
