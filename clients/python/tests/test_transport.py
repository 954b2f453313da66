"""No answer: every way of not getting one becomes a NetworkError naming the request and the
cause, within the timeout; and what the transport sends and accepts (gzip, its User-Agent)."""

from __future__ import annotations

import gzip
import json
import time
from typing import Dict, List

import pytest

from conftest import Api
from fakes import closed_port, dribbling, http_server, raw_server, silent
from partner_analytics import Client, HttpRequest, NetworkError, UrllibTransport, __version__

KEYS = ("pak_" + "0" * 24, "pas_" + "0" * 43)


def test_connection_refused_names_the_request_and_the_address() -> None:
    port = closed_port()
    with pytest.raises(NetworkError) as caught:
        Client(f"http://127.0.0.1:{port}", *KEYS).me()
    error = caught.value
    assert str(error) == f"POST http://127.0.0.1:{port}/auth/login failed: connection refused (ECONNREFUSED 127.0.0.1:{port})"
    assert (error.method, error.url) == ("POST", f"http://127.0.0.1:{port}/auth/login")
    assert isinstance(error.__cause__, OSError)


def test_a_server_that_never_answers_times_out() -> None:
    with raw_server(silent) as url:
        started = time.monotonic()
        with pytest.raises(NetworkError) as caught:
            Client(url, *KEYS, access_token="a.b.c", timeout=0.5).me()
        assert str(caught.value) == f"GET {url}/me failed: no answer within 0.5 s (timeout)"
        assert time.monotonic() - started < 5


def test_an_answer_that_never_ends_times_out_too() -> None:
    # Headers at once, then a byte every 100 ms for 30 s: each read succeeds, the whole does not.
    with raw_server(dribbling) as url:
        started = time.monotonic()
        with pytest.raises(NetworkError, match=r"no answer within 1 s \(timeout\)$"):
            Client(url, *KEYS, access_token="a.b.c", timeout=1).me()
        assert time.monotonic() - started < 5


def test_https_to_a_plain_http_port_names_the_tls_failure() -> None:
    with http_server(lambda _: (200, {}, b"{}")) as (url, _):
        with pytest.raises(NetworkError, match=r"failed: TLS handshake failed \(.+\): the server may not speak HTTPS on this port$"):
            Client(url.replace("http://", "https://"), *KEYS).login()


def test_sends_its_user_agent_and_reads_gzip_answers() -> None:
    seen: List[Dict[str, str]] = []
    body = json.dumps({"status": "ok", "version": "9.9.9", "database": "ok", "uptime_s": 3}).encode()

    def reply(handler: object) -> "tuple[int, dict[str, str], bytes]":
        seen.append({name.lower(): value for name, value in getattr(handler, "headers").items()})
        return 200, {"content-type": "application/json", "content-encoding": "gzip"}, gzip.compress(body)

    with http_server(reply) as (url, _):
        health = Client(url, *KEYS).health()
    assert (health.version, health.uptime_s) == ("9.9.9", 3)
    assert seen[0]["accept-encoding"] == "gzip"
    assert seen[0]["user-agent"].startswith(f"partner-analytics-python/{__version__} (Python 3.")
    assert "authorization" not in seen[0]


def test_the_real_service_compresses_large_answers(sqlite_api: Api) -> None:
    token = sqlite_api.client().login().access_token
    answer = UrllibTransport()(HttpRequest("GET", sqlite_api.base_url + "/me?limit=100", {"accept-encoding": "gzip", "authorization": f"Bearer {token}"}), 30)
    assert answer.status == 200 and answer.headers.get("content-encoding") == "gzip"
    assert len(json.loads(answer.body)["brands"]) == 7
