"""Tokens: one re-login on TOKEN_EXPIRED (a server with TOKEN_TTL_SECONDS=2), TokenExpiredError when
it persists, and one login at a time however many threads share the client — counted both by
the client's transport and in the server's own request log."""

from __future__ import annotations

import threading
import time
from typing import Callable, List

import pytest

from conftest import Api, Recorder
from partner_analytics import Client, HttpRequest, Me, TokenExpiredError
from servers import Server

TTL = 2


@pytest.fixture(scope="module")
def short_lived(sqlite_api: Api) -> Server:
    return sqlite_api.sibling({"TOKEN_TTL_SECONDS": str(TTL)})


def outlive_the_token() -> None:
    # Tokens carry whole seconds: TTL + 1 s is past the expiry whatever the fraction at issue.
    time.sleep(TTL + 1.1)


def run_together(count: int, work: Callable[[], object]) -> List[object]:
    """Runs work() in `count` threads released at once; their results, or the first error raised."""
    barrier = threading.Barrier(count)
    results: List[object] = []
    errors: List[BaseException] = []
    lock = threading.Lock()

    def thread() -> None:
        try:
            barrier.wait(timeout=30)
            result = work()
            with lock:
                results.append(result)
        except BaseException as error:  # noqa: BLE001 - reported below
            with lock:
                errors.append(error)

    threads = [threading.Thread(target=thread) for _ in range(count)]
    for item in threads:
        item.start()
    for item in threads:
        item.join(timeout=120)
    assert not any(item.is_alive() for item in threads), "a thread did not finish within 120 s"
    if errors:
        raise errors[0]
    return results


def test_token_expired_logs_in_again_once_and_retries_once(sqlite_api: Api, short_lived: Server, recorder: Recorder) -> None:
    client = sqlite_api.client(base_url=short_lived.base_url, transport=recorder)
    assert client.login().expires_in == TTL
    outlive_the_token()
    logins_before = short_lived.settled_requests("POST", "/auth/login")
    me = client.me()
    assert [brand["brand_id"] for brand in me.brands][:3] == [1, 2, 3]
    assert recorder.calls == ["POST /auth/login", "GET /me", "POST /auth/login", "GET /me"]
    assert short_lived.requests_reaching("POST", "/auth/login", logins_before + 1) == logins_before + 1


def test_token_expired_again_after_the_relogin_is_raised(sqlite_api: Api, short_lived: Server) -> None:
    # A link so slow that every token has expired by the time its request arrives.
    def slow(request: HttpRequest) -> None:
        if request.method == "GET":
            time.sleep(TTL + 1.1)

    recorder = Recorder(before=slow)
    client = sqlite_api.client(base_url=short_lived.base_url, transport=recorder)
    with pytest.raises(TokenExpiredError) as caught:
        client.me()
    assert (caught.value.status, caught.value.code, caught.value.detail) == (401, "TOKEN_EXPIRED", "Token has expired")
    assert recorder.calls == ["POST /auth/login", "GET /me", "POST /auth/login", "GET /me"]


def test_many_threads_share_one_lazy_login(sqlite_api: Api) -> None:
    # The login is slowed down so that every thread asks for a token while it is in flight.
    def slow_login(request: HttpRequest) -> None:
        if request.url.endswith("/auth/login"):
            time.sleep(0.5)

    recorder = Recorder(before=slow_login)
    client = sqlite_api.client(transport=recorder)
    logins_before = sqlite_api.server.settled_requests("POST", "/auth/login")
    results = run_together(16, lambda: client.me(limit=1))
    assert len(results) == 16 and all(isinstance(result, Me) for result in results)
    assert recorder.count("POST /auth/login") == 1 and recorder.count("GET /me") == 16
    assert recorder.calls[0] == "POST /auth/login"
    assert sqlite_api.server.requests_reaching("POST", "/auth/login", logins_before + 1) == logins_before + 1


def test_many_threads_refused_with_an_expired_token_renew_it_once(sqlite_api: Api, short_lived: Server) -> None:
    recorder = Recorder()
    client = sqlite_api.client(base_url=short_lived.base_url, transport=recorder)
    client.login()
    outlive_the_token()
    logins_before = short_lived.settled_requests("POST", "/auth/login")
    results = run_together(12, lambda: client.me(limit=1))
    assert len(results) == 12
    # The first login, and one renewal for all twelve; every thread's call got through.
    assert recorder.count("POST /auth/login") == 2
    assert 12 < recorder.count("GET /me") <= 24
    assert short_lived.requests_reaching("POST", "/auth/login", logins_before + 1) == logins_before + 1


def test_clients_do_not_share_tokens(sqlite_api: Api, recorder: Recorder) -> None:
    first = sqlite_api.client(transport=recorder)
    second = Client(sqlite_api.base_url, sqlite_api.keys.client_key, sqlite_api.keys.secret_key, transport=recorder)
    first.me()
    second.me()
    assert recorder.count("POST /auth/login") == 2
