"""`toolsurvey prices`: `show` says where each figure came from; `update` fetches LiteLLM's file into
the user cache, and offline it says so in one line and keeps the file in use. The fetch goes through
an httpx.MockTransport (tests/_mock_http.py): the real request and reading code, no socket."""

from __future__ import annotations

import json

import pytest
from _mock_http import refuse, route_httpx, serve

import toolsurvey as ts
from toolsurvey.errors import InputError, ProviderError
from toolsurvey.providers.prices import update_prices


def test_prices_show_says_where_each_field_came_from(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    code, out, err = cli("prices", "show", "claude-haiku-4-5")
    assert code == 0
    lines = {ln.split()[0]: ln for ln in out.splitlines() if ln.startswith("  ")}
    assert "4,096" in lines["min_cache_tokens"] and "LiteLLM 1.110.2 snapshot (2026-11-30)" in lines["min_cache_tokens"]
    code, out, err = cli("prices", "show", "gemini-2.5-pro")
    # cache_storage (the line is wrapped to 100 columns, so the words are compared)
    assert "prices.toml: https://ai.google.dev/gemini-api/docs/pricing (2025-11-24)" in " ".join(out.split())
    code, out, err = cli("prices", "show", "gpt-9")
    assert code == 2 and "unknown model 'gpt-9'" in err


def test_prices_update_fetches_into_the_user_cache_and_fails_clearly_offline(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    body = json.dumps({"acme-9": {"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06,
                                  "max_input_tokens": 8000, "litellm_provider": "acme", "mode": "chat"}}).encode()
    sent = route_httpx(monkeypatch, serve({"/model_prices_and_context_window.json": body}))
    code, out, err = cli("prices", "update", "--url", "https://prices.test/model_prices_and_context_window.json")
    assert code == 0 and "1 chat models" in out
    assert [str(r.url) for r in sent] == ["https://prices.test/model_prices_and_context_window.json"]
    cached = tmp_path / "toolsurvey" / "model_prices_and_context_window.json"
    assert cached.read_bytes() == body
    prices = ts.load_prices()
    assert prices["acme-9"].input == 1.0 and "LiteLLM price file fetched" in prices["acme-9"].origins["input"]
    assert prices["claude-opus-4-1"].input == 15.0  # the bundled overrides still fill what the file lacks

    route_httpx(monkeypatch, refuse)  # offline: the connection is refused
    code, out, err = cli("prices", "update", "--url", "https://prices.test/model_prices_and_context_window.json")
    assert code == 2 and "Traceback" not in err
    assert "cannot fetch prices" in err and "ConnectError" in err and "offline?" in err
    assert cached.read_bytes() == body  # the file in use is kept
    with pytest.raises(ProviderError, match="offline"):  # an outage, not bad input: a caller can tell
        update_prices("https://prices.test/model_prices_and_context_window.json")


def test_prices_update_from_a_url_with_nothing_there_keeps_the_file_in_use(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    route_httpx(monkeypatch, serve({}))
    code, out, err = cli("prices", "update", "--url", "https://prices.test/gone.json")
    assert code == 2 and "HTTP 404" in err and "offline?" in err and "Traceback" not in err
    assert not (tmp_path / "toolsurvey" / "model_prices_and_context_window.json").exists()
    with pytest.raises(InputError, match="HTTP 404"):  # the URL is wrong, the server is fine
        update_prices("https://prices.test/gone.json")
