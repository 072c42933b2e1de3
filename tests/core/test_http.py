"""core.http.fetch: a caller can tell a server that failed (ProviderError) from a URL with nothing
there (InputError), and no message or chained exception holds the headers sent."""

from __future__ import annotations

import httpx
import pytest

from toolsurvey.core.http import fetch
from toolsurvey.errors import InputError, ProviderError

SECRET = "Bearer sk-fetch-SECRET-0123456789"


@pytest.fixture
def answer(monkeypatch):
    """Route fetch's httpx.Client through a MockTransport answering with what the test sets."""
    said: dict = {}

    def handle(request: httpx.Request) -> httpx.Response:
        assert request.headers["authorization"] == SECRET
        if "raise" in said:
            raise said["raise"]("refused", request=request)
        return httpx.Response(said["status"], content=b"{}", headers={"content-type": "application/json"})

    class Routed(httpx.Client):
        def __init__(self, **kwargs):
            super().__init__(transport=httpx.MockTransport(handle), **kwargs)

    monkeypatch.setattr(httpx, "Client", Routed)
    return said


@pytest.mark.parametrize("status, error", [(404, InputError), (410, InputError), (401, ProviderError),
                                           (403, ProviderError), (429, ProviderError), (500, ProviderError),
                                           (503, ProviderError)])
def test_an_error_status_is_the_servers_or_the_urls(answer, status, error):
    answer["status"] = status
    with pytest.raises(error, match=f"answered HTTP {status}") as e:
        fetch("https://example.test/result.json?key=abc", {"authorization": SECRET})
    assert isinstance(e.value, InputError) != isinstance(e.value, ProviderError)  # one or the other
    assert "abc" not in str(e.value) and "<redacted>" in str(e.value)


@pytest.mark.parametrize("kind", [httpx.ConnectError, httpx.ReadTimeout, httpx.RemoteProtocolError])
def test_no_connection_or_no_answer_is_a_provider_error_without_the_headers(answer, kind):
    answer["raise"] = kind
    with pytest.raises(ProviderError) as e:
        fetch("https://example.test/result.json", {"authorization": SECRET})
    assert e.value.__cause__ is None and e.value.__suppress_context__  # httpx's request holds the headers
    assert SECRET not in str(e.value)


def test_a_2xx_answer_is_returned(answer):
    answer["status"] = 200
    assert fetch("https://example.test/x", {"authorization": SECRET}) == (b"{}", "application/json")
