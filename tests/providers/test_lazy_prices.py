"""The lazily built default price table is the default table, row for row (sources and dates included)."""

from toolsurvey.providers.prices import LazyPrices, bundled_prices, price_for


def test_every_row_and_its_origins_are_the_bundled_tables():
    lazy, full = LazyPrices(), bundled_prices()
    assert list(lazy) == list(full) and len(lazy) == len(full)
    for model, price in full.items():
        assert lazy[model] == price and lazy[model].origins == price.origins, model
    # a dated id resolves as in the full table
    assert price_for("claude-sonnet-4-5-20250929", LazyPrices()) == price_for("claude-sonnet-4-5-20250929", full)
