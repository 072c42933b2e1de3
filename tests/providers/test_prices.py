"""providers.prices.load_prices from a URL: the same prices as from the file, fetched through an
httpx.MockTransport (tests/_mock_http.py); an unreachable server is a ProviderError, a URL with
nothing there an InputError, so a caller can tell an outage from a wrong address."""

from __future__ import annotations

import json

import pytest
from _mock_http import Hostile, refuse, route_httpx, serve

from toolsurvey.errors import InputError, ProviderError
from toolsurvey.providers.prices import load_prices

# LiteLLM's format: dollars per token; a row without mode "chat" (an embedding model) is left out.
LITELLM = {
    "sample_spec": {"input_cost_per_token": 0, "output_cost_per_token": 0, "max_input_tokens": "n"},
    "acme-2": {"input_cost_per_token": 3e-06, "output_cost_per_token": 1.2e-05,
               "cache_read_input_token_cost": 3e-07, "max_input_tokens": 64000, "litellm_provider": "acme",
               "mode": "chat"},
    "acme-embed": {"input_cost_per_token": 1e-07, "output_cost_per_token": 0, "max_input_tokens": 8000,
                   "mode": "embedding"},
}
URL = "https://prices.test/model_prices_and_context_window.json"


def test_a_price_file_by_url_gives_what_the_same_file_by_path_gives(tmp_path, monkeypatch):
    body = json.dumps(LITELLM).encode()
    sent = route_httpx(monkeypatch, serve({"/model_prices_and_context_window.json": body}))
    by_url = load_prices(URL)
    assert [str(r.url) for r in sent] == [URL] and sent[0].method == "GET"
    p = by_url["acme-2"]  # per million tokens: $3 in, $12 out, $0.30 cache read; 64,000 context
    assert (p.input, p.output, p.cache_read, p.context_window) == pytest.approx((3, 12, 0.3, 64000))
    assert "acme-embed" not in by_url and "claude-sonnet-4-5" in by_url
    path = tmp_path / "model_prices_and_context_window.json"
    path.write_bytes(body)
    by_path = load_prices(path)
    assert by_url.keys() == by_path.keys()
    for model, price in by_path.items():
        assert (by_url[model].input, by_url[model].output, by_url[model].context_window) == \
               (price.input, price.output, price.context_window), model


def test_an_unreachable_price_url_is_a_provider_error(monkeypatch):
    route_httpx(monkeypatch, refuse)
    with pytest.raises(ProviderError, match="cannot fetch prices: cannot fetch https://prices.test/.*ConnectError"):
        load_prices(URL)


def test_a_price_url_with_nothing_there_is_bad_input(monkeypatch):
    route_httpx(monkeypatch, serve({}))
    with pytest.raises(InputError, match="cannot fetch prices: .*answered HTTP 404"):
        load_prices("https://prices.test/gone.json")


def test_a_price_url_announcing_a_huge_file_is_refused_unread(monkeypatch):
    hostile = Hostile()
    route_httpx(monkeypatch, hostile)
    with pytest.raises(InputError, match=r"cannot fetch prices: .*announced 2,147,483,648 bytes \(Content-Length\)"):
        load_prices("https://prices.test/huge-length/prices.json")
    assert hostile.pulled == 0
