"""Re-simulating a registry reuses its measurement, and a changed registry is measured again."""

from dataclasses import replace

from toolsurvey import Registry, Scenario, Tool, footprint, simulate
from toolsurvey.model import context


def _reg(desc="Look up a customer by id."):
    return Registry.from_tools([Tool("lookup_customer", desc, {"type": "object", "properties": {}}),
                                Tool("list_orders", "List orders.", {"type": "object", "properties": {}})])


def test_a_registry_is_measured_once_across_calls(monkeypatch):
    calls = []
    real = context.tool_table
    monkeypatch.setattr(context, "tool_table", lambda reg, **kw: calls.append(kw) or real(reg, **kw))
    reg = _reg()
    for steps in (2, 3, 4):
        simulate(reg, Scenario(steps=steps))
    assert len(calls) == 1


def test_a_changed_registry_gets_its_own_figures():
    reg = _reg()
    before = simulate(reg, Scenario(steps=3, accuracy=False)).summary["tool_tokens_per_task"]
    longer = reg.map(lambda t: replace(t, description=(t.description or "") + " Returns name, plan and status."))
    after = simulate(longer, Scenario(steps=3, accuracy=False)).summary["tool_tokens_per_task"]
    expected = int(footprint(longer).query("kind == 'tool'")["tokens"].sum()) * 3
    assert after == expected and after > before


def test_the_cache_stays_small():
    for i in range(context._MEASURED_MAX + 5):
        simulate(_reg(f"Look up customer {i}."), Scenario(steps=2))
    assert len(context._MEASURED) <= context._MEASURED_MAX


def test_sweep_over_a_field_without_a_column_of_its_own_labels_each_row():
    from toolsurvey import sweep

    grid = sweep(_reg(), Scenario(steps=3, accuracy=False), response_tokens=[100.0, 400.0])
    assert list(grid["response_tokens"]) == [100.0, 400.0]
    one = [simulate(_reg(), Scenario(steps=3, accuracy=False, response_tokens=r)).summary["input_tokens_per_task"]
           for r in (100.0, 400.0)]
    assert list(grid["input_tokens_per_task"]) == one
