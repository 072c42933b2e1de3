"""What the explorers' controls offer and how they start: every control at a real value ("off", not
blank), labels in full and without invisible characters, the models an agent can run on, and
caching modes that say what "auto" means for the model."""

from __future__ import annotations

from functools import cache
from typing import Any

OFF = "off"  # a choice's value for "not applied" (a Dropdown whose value is None shows blank)
TRUNCATE_CHOICES = ((OFF, OFF), ("50 chars", 50), ("100 chars", 100), ("200 chars", 200),
                    ("500 chars", 500), ("1,000 chars", 1000))
LIST_CAP_CHOICES = ((OFF, OFF), ("1 item", 1), ("3 items", 3), ("5 items", 5), ("10 items", 10),
                    ("20 items", 20))
LABEL = {"description_width": "initial"}  # a description is as wide as its text: never cut


def text(markup: str) -> str:
    """HTML for a widget (ipywidgets typesets "$...$" in it as math unless told not to)."""
    from .tables import NO_MATH

    return f'<span class="{NO_MATH}">{markup}</span>'


def chosen(value: Any) -> Any:
    """A choice's value for the library: None for "off"."""
    return None if value == OFF else value


# A checkbox with its label in one element: ipywidgets' Checkbox writes a zero-width space into a
# hidden label of its own, which a reader's copy or a screen reader can pick up.
_CHECK_ESM = """
function render({ model, el }) {
  const label = document.createElement("label");
  label.className = "toolsurvey-check";
  const box = document.createElement("input");
  box.type = "checkbox";
  const text = document.createElement("span");
  label.append(box, text);
  const sync = () => { box.checked = model.get("value"); text.textContent = model.get("description"); };
  box.addEventListener("change", () => { model.set("value", box.checked); model.save_changes(); });
  model.on("change:value", sync);
  model.on("change:description", sync);
  sync();
  el.appendChild(label);
}
export default { render };
"""
_CHECK_CSS = """.toolsurvey-check { display: inline-flex; gap: 0.4em; align-items: baseline; margin: 2px 0;
  overflow-wrap: anywhere; line-height: 1.3; cursor: pointer; }
.toolsurvey-check input { margin: 0; flex: none; }"""


@cache
def _check_class():
    import anywidget
    import traitlets

    class Check(anywidget.AnyWidget):
        """A checkbox: `value` (ticked) and `description` (its label), as ipywidgets' Checkbox has."""

        _esm = _CHECK_ESM
        _css = _CHECK_CSS
        value = traitlets.Bool(True).tag(sync=True)
        description = traitlets.Unicode("").tag(sync=True)

    return Check


def check(description: str, value: bool = True):
    """A checkbox widget labelled `description` (wrapped, never cut), ticked if `value`."""
    return _check_class()(value=value, description=description)


def model_options(model: str, prices) -> list[tuple[str, str]]:
    """(label, model) for a model dropdown: `model` first, then the models that call tools
    (`providers.prices.tool_calling_models`) of the providers toolsurvey has rules for, that `prices`
    can price, grouped by provider; a "provider/" prefix is left out of the label."""
    from ..providers.catalog import provider_label, provider_names
    from ..providers.prices import tool_calling_models

    known = provider_names()
    usable = {n: p for n, p in tool_calling_models().items() if p in known and n in prices and n != model}
    rest = sorted(usable, key=lambda n: (known.index(usable[n]), n.split("/")[-1]))
    first = prices[model].provider if model in prices else ""
    label = lambda n, p: f"{provider_label(p, 'other')} · {n.split('/')[-1]}"
    return [(label(model, first) + " (scenario)", model)] + [(label(n, usable[n]), n) for n in rest]


def caching_options(provider: str, modes, current: str) -> list[tuple[str, str]]:
    """(label, mode) for a caching dropdown; "auto" says what it means for the provider, e.g.
    "auto (none: Anthropic caching is opt-in)". "explicit" only where the scenario uses it."""
    from ..providers.caching import caching_rules
    from ..providers.catalog import provider_label

    rules, name = caching_rules(provider), provider_label(provider, "this provider")
    if not rules:
        auto = f"auto (none: no caching rules for {name})"
    elif rules.get("opt_in", True):
        auto = f"auto ({rules.get('auto', 'none')}: {name} caching is opt-in)"
    else:
        auto = f"auto ({rules.get('auto')}: {name} caches repeated prefixes by itself)"
    return [(auto if m == "auto" else m, m) for m in modes if m != "explicit" or current == m]


def request_axis(summary: dict, searches: int = 0) -> str:
    """The x-axis title of a task's per-request chart: its steps, and the requests wrong calls add
    (and tool searches, with that strategy), on a second line so that the title fits the chart."""
    steps, requests = float(summary.get("steps") or 0), float(summary.get("expected_requests") or 0)
    extra = requests - steps - searches
    parts = [f"{steps:g} steps"] + ([f"{searches} search{'es' * (searches > 1)}"] if searches else [])
    if extra > 0.05:
        parts.append(f"{extra:.1f} extra from wrong tool calls (wrong-tool rate {summary.get('wrong_rate', 0):.1%})")
    return "request within the task<br>" + " + ".join(parts)
