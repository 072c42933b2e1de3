"""units: one money rule for the CLI, the report and the Jupyter views, checked on hand-written cases."""

from __future__ import annotations

import pytest

from toolsurvey.present.units import money, whole


@pytest.mark.parametrize("value,shown", [
    (None, "–"), (float("nan"), "–"),              # missing
    (0, "$0"), (0.0, "$0"), (-0.0, "$0"),           # zero
    (1234, "$1,234"), (100, "$100"), (69445.16, "$69,445"), (-2500.4, "-$2,500"),  # whole dollars
    (12.345, "$12.35"), (1, "$1.00"), (99.5, "$99.50"), (-12.3, "-$12.30"),       # cents
    (0.2944, "$0.2944"), (0.5, "$0.5000"), (0.00012, "$0.0001"), (-0.37, "-$0.3700"),  # four decimals
])
def test_money(value, shown):
    assert money(value) == shown


def test_money_says_what_a_missing_figure_is_where_asked():
    assert money(float("nan"), missing="not priced") == "not priced"
    assert money(0.5, missing="not priced") == "$0.5000"


def test_whole_rounds_with_separators():
    assert whole(12252.4) == "12,252" and whole(0.6) == "1" and whole(-1500) == "-1,500"
