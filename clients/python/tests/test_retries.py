"""Waiting and retrying: 429 against a server with a low RATE_LIMIT_PER_MINUTE (the policy with
recorded waits, then a real wait through the window), TOO_MANY_ATTEMPTS lockouts, 503
SERVICE_UNAVAILABLE, and the arithmetic of the delays."""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from typing import List, Optional

import pytest

from conftest import Api, Recorder
from fakes import api_error, http_server
from partner_analytics import (
    AggReport, Client, RateLimitError, RetryEvent, RetryPolicy, ServerError, ServiceUnavailableError, TooManyAttemptsError,
    backoff_delay,
)
from partner_analytics.errors import parse_retry_after

REDIS_URL = os.environ.get("TEST_REDIS_URL") or "redis://127.0.0.1:6379"


def await_room_in_minute(margin: float) -> None:
    """Fixed windows: wait (at most `margin` s) until `margin` s remain in this clock minute."""
    left = 60 - time.time() % 60
    if left < margin:
        time.sleep(left + 0.05)


def wrong_login(base_url: str, client_key: str) -> None:
    with pytest.raises(Exception):
        Client(base_url, client_key, "pas_" + "C" * 43, retry=RetryPolicy(max_attempts=1)).login()


def test_429_waits_retry_after_plus_jitter_a_bounded_number_of_times(sqlite_api: Api, recorder: Recorder) -> None:
    limited = sqlite_api.sibling({"RATE_LIMIT_PER_MINUTE": "2"})
    waits: List[float] = []
    events: List[RetryEvent] = []
    client = sqlite_api.client(base_url=limited.base_url, transport=recorder, retry=RetryPolicy(max_attempts=3, base_delay=0.1),
                               random=lambda: 0.5, sleep=waits.append, on_retry=events.append)
    client.login()
    await_room_in_minute(10)
    client.me()
    client.me()
    with pytest.raises(RateLimitError) as caught:
        client.me()
    error = caught.value
    assert (error.status, error.code) == (429, "RATE_LIMIT_EXCEEDED")
    assert error.detail == f"Rate limit exceeded. Please wait {error.retry_after} seconds before making another request."
    assert error.retry_after is not None and 1 <= error.retry_after <= 60
    assert recorder.calls == ["POST /auth/login"] + ["GET /me"] * 5
    # Three attempts of the third call, two waits: Retry-After plus 75 ms, then plus 150 ms.
    assert [event.attempt for event in events] == [1, 2]
    assert waits == [event.delay for event in events]
    assert waits == [(events[0].error.retry_after or 0) + 0.075, (events[1].error.retry_after or 0) + 0.15]


def test_429_really_waits_for_the_next_window_and_then_succeeds(sqlite_api: Api) -> None:
    limited = sqlite_api.sibling({"RATE_LIMIT_PER_MINUTE": "2"})
    waits: List[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        time.sleep(seconds)

    client = sqlite_api.client(base_url=limited.base_url, sleep=sleep, random=lambda: 0.0, retry=RetryPolicy(base_delay=0.2))
    client.login()
    await_room_in_minute(10)
    client.me()
    client.me()
    started = time.monotonic()
    me = client.me()  # refused until the clock minute ends (at most 60 s), then answered
    assert [brand["brand_id"] for brand in me.brands][:2] == [1, 2]
    assert len(waits) == 1 and 1 <= waits[0] <= 60.1
    assert time.monotonic() - started >= waits[0]


def test_max_wait_raises_at_once_rather_than_sleep_for_long(sqlite_api: Api, recorder: Recorder) -> None:
    strict = sqlite_api.sibling({"LOGIN_MAX_FAILURES": "1", "LOGIN_LOCKOUT_SECONDS": "600"})
    keys = sqlite_api.user("1")
    wrong_login(strict.base_url, keys.client_key)
    waits: List[float] = []
    # Default policy: a lockout of ten minutes is more than max_wait (120 s).
    client = sqlite_api.client(base_url=strict.base_url, keys=keys, transport=recorder, sleep=waits.append)
    with pytest.raises(TooManyAttemptsError) as caught:
        client.me()
    assert (caught.value.status, caught.value.code) == (401, "TOO_MANY_ATTEMPTS")
    assert caught.value.retry_after is not None and caught.value.retry_after > 500
    assert recorder.calls == ["POST /auth/login"] and waits == []

    # Without a ceiling it waits, and gives up after the last attempt.
    recorder.calls.clear()
    patient = sqlite_api.client(base_url=strict.base_url, keys=keys, transport=recorder, sleep=waits.append,
                                retry=RetryPolicy(max_attempts=2, max_wait=None))
    with pytest.raises(TooManyAttemptsError):
        patient.login()
    assert recorder.calls == ["POST /auth/login"] * 2 and len(waits) == 1 and waits[0] > 500


def _delete_redis_keys(prefix: str) -> None:
    keys = subprocess.run(["redis-cli", "-u", REDIS_URL, "--scan", "--pattern", prefix + "*"], capture_output=True, text=True, timeout=30, check=True).stdout.split()
    if keys:
        subprocess.run(["redis-cli", "-u", REDIS_URL, "del", *keys], capture_output=True, timeout=30, check=True)


def test_waits_out_a_login_lockout_and_then_logs_in(sqlite_api: Api, recorder: Recorder) -> None:
    # The lockout lives in Redis under a prefix of this test's own and lasts 60 s: still in force
    # at the client's first attempt however slow the machine. While the client waits, it ends
    # (its keys expire; here they are removed).
    prefix = f"pa-py-{uuid.uuid4().hex[:10]}:"
    strict = sqlite_api.sibling({"LOGIN_MAX_FAILURES": "1", "LOGIN_LOCKOUT_SECONDS": "60", "REDIS_URL": REDIS_URL, "REDIS_KEY_PREFIX": prefix})
    try:
        wrong_login(strict.base_url, sqlite_api.keys.client_key)
        waits: List[float] = []
        retry_afters: List[Optional[int]] = []

        def sleep(seconds: float) -> None:
            waits.append(seconds)
            _delete_redis_keys(prefix)

        client = sqlite_api.client(base_url=strict.base_url, transport=recorder, sleep=sleep, random=lambda: 0.0,
                                   retry=RetryPolicy(max_attempts=4, base_delay=0.05), on_retry=lambda event: retry_afters.append(event.error.retry_after))
        token = client.login()
        assert token.token_type == "bearer"
        assert recorder.calls == ["POST /auth/login"] * 2
        [retry_after] = retry_afters
        assert retry_after is not None and 30 <= retry_after <= 60
        # One wait: Retry-After plus the least jitter (random 0: half the 50 ms base delay).
        assert waits == [retry_after + 0.025]
    finally:
        _delete_redis_keys(prefix)


AGG = {"data": [], "total": 0, "aggregates": {"total": {"views": 0, "revenue": None, "interactions": 0, "posts_count": 0, "new_followers": 0,
                                                       "followers": 0, "posts_per_day": 0},
                                             "average": {"views": 0, "revenue": None, "interactions": 0, "posts_count": 0, "new_followers": 0,
                                                         "followers": 0, "posts_per_day": 0}},
       "since": "2026-01-01", "until": "2026-12-31", "platforms": "all", "brand_ids": []}


class Refusing:
    """Answers like the service with its heavy-report lane full: 503 a number of times, then the report."""

    def __init__(self) -> None:
        self.refusals = 0

    def __call__(self, _: object) -> "tuple[int, dict[str, str], bytes]":
        if self.refusals > 0:
            self.refusals -= 1
            body = api_error(503, "SERVICE_UNAVAILABLE", "Too many large reports are being computed. Please retry in 1 second.", "req-503")
            return 503, {"content-type": "application/json", "retry-after": "1", "x-request-id": "req-503"}, body
        return 200, {"content-type": "application/json"}, json.dumps(AGG).encode()


def test_503_service_unavailable_is_retried_then_raised() -> None:
    refusing = Refusing()
    with http_server(refusing) as (url, seen):
        waits: List[float] = []
        client = Client(url, "pak_x", "pas_x", access_token="a.b.c", retry=RetryPolicy(max_attempts=3, base_delay=0.1),
                        random=lambda: 0.5, sleep=waits.append)
        refusing.refusals = 2
        report = client.agg(since="2026-01-01", until="2026-12-31")
        assert isinstance(report, AggReport) and report.data == []
        assert len(seen) == 3 and waits == [1.075, 1.15]

        refusing.refusals = 5
        seen.clear()
        with pytest.raises(ServiceUnavailableError) as caught:
            Client(url, "pak_x", "pas_x", access_token="a.b.c", retry=RetryPolicy(max_attempts=2), sleep=waits.append).agg()
        error = caught.value
        assert isinstance(error, ServerError)
        assert (error.status, error.code, error.retry_after, error.request_id) == (503, "SERVICE_UNAVAILABLE", 1, "req-503")
        assert len(seen) == 2


def test_backoff_doubles_up_to_the_ceiling_on_top_of_retry_after() -> None:
    policy = RetryPolicy(base_delay=0.5, max_delay=4.0)
    assert [backoff_delay(retry, None, policy, lambda: 0.0) for retry in (1, 2, 3, 4, 5)] == [0.25, 0.5, 1.0, 2.0, 2.0]
    assert [backoff_delay(retry, None, policy, lambda: 0.999999) for retry in (1, 2, 3, 4, 5)] == [0.5, 1.0, 2.0, 4.0, 4.0]
    assert backoff_delay(1, 7, policy, lambda: 0.0) == 7.25
    assert backoff_delay(2, 7, policy, lambda: 0.5) == 7.75
    with pytest.raises(ValueError, match="max_attempts must be at least 1"):
        RetryPolicy(max_attempts=0)


def test_retry_after_as_seconds_or_http_date() -> None:
    assert parse_retry_after("42") == 42
    assert parse_retry_after("Tue, 01 Jan 2030 00:00:30 GMT", now=1893456000.0) == 30
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None and parse_retry_after(" ") is None
