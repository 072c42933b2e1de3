"""core.http.fetch: a caller can tell a server that failed (ProviderError) from a URL with nothing
there (InputError), and no message or chained exception holds the headers sent."""

from __future__ import annotations

import httpx
import pytest
from _mock_http import Hostile, route_httpx

from toolsurvey.core.http import TooLarge, fetch
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

    route_httpx(monkeypatch, handle)
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


# ------------------------------------------------ hostile answers (tests/_mock_http.py's Hostile)

def test_a_huge_content_length_is_refused_before_anything_is_read(monkeypatch):
    hostile = Hostile()
    route_httpx(monkeypatch, hostile)
    with pytest.raises(TooLarge, match=r"announced 2,147,483,648 bytes \(Content-Length\)"):
        fetch("https://hostile.test/huge-length/result.json", {})
    assert hostile.pulled == 0


def test_an_endless_answer_stops_at_the_cap(monkeypatch):
    # The cap is lowered so that the test reads 1 MiB, not 256: the mechanism is under test, not the figure.
    monkeypatch.setattr("toolsurvey.core.http.MAX_FETCH_BYTES", 2**20)
    hostile = Hostile()
    route_httpx(monkeypatch, hostile)
    with pytest.raises(TooLarge, match="sent more than 1,048,576 bytes; stopped reading"):
        fetch("https://hostile.test/endless/result.json", {})
    assert 2**20 < hostile.pulled <= 2**20 + len(Hostile.CHUNK)  # one answer, one chunk past the cap


def test_a_trickle_ends_at_the_deadline_though_no_single_read_waits_long(monkeypatch):
    hostile = Hostile(period=0.1)  # one byte every 0.1 s: httpx's per-read timeout never trips
    route_httpx(monkeypatch, hostile)
    with pytest.raises(ProviderError, match="no complete answer within 1 s"):
        fetch("https://hostile.test/trickle/result.json", {}, timeout=1)
    assert 3 <= hostile.pulled < hostile.limit_trickle  # it read the trickle, then gave up
