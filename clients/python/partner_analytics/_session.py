"""The request engine behind Client: the token, one login at a time, the re-login and retry policy.

The policy is the API's (docs/api-reference.md, "Re-login policy"): log in before the first
protected call; on TOKEN_EXPIRED log in again once and retry once; never retry TOKEN_INVALID,
INVALID_CREDENTIALS or USER_DISABLED; wait and retry TOO_MANY_ATTEMPTS, 429 and 503
SERVICE_UNAVAILABLE a bounded number of times, Retry-After plus jittered exponential backoff.
"""

from __future__ import annotations

import json
import logging
import platform
import threading
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Callable, Mapping, Optional, TypeVar

from ._convert import AnswerMismatch
from ._params import query_string
from ._transport import HttpRequest, HttpResponse, Transport
from ._version import __version__
from .errors import (
    PartnerAnalyticsError, RateLimitError, ServerError, ServiceUnavailableError, TokenExpiredError,
    TooManyAttemptsError, error_from_response,
)

__all__ = ["RetryPolicy", "RetryEvent", "Session", "backoff_delay"]

LOG = logging.getLogger("partner_analytics")

T = TypeVar("T")

_RETRYABLE = (TooManyAttemptsError, RateLimitError, ServiceUnavailableError)


@dataclass(frozen=True)
class RetryPolicy:
    """How TOO_MANY_ATTEMPTS, 429 and 503 SERVICE_UNAVAILABLE are retried.

    Before retry *n* the client waits the answer's Retry-After seconds **plus**
    ``e/2 + random·e/2``, where ``e = min(max_delay, base_delay · 2^(n−1))``.
    """

    #: Attempts in all, the first included.
    max_attempts: int = 5
    #: Seconds before the first retry, before jitter.
    base_delay: float = 0.5
    #: Ceiling of the exponential part, in seconds.
    max_delay: float = 30.0
    #: The longest single wait the client accepts, in seconds: when Retry-After asks for more (an
    #: hourly window spent, a login lockout of 15 minutes) the error is raised at once, with its
    #: ``retry_after``, rather than holding the caller's thread. None: no ceiling.
    max_wait: Optional[float] = 120.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1 (got {self.max_attempts})")
        if self.base_delay < 0 or self.max_delay < 0 or (self.max_wait is not None and self.max_wait < 0):
            raise ValueError("base_delay, max_delay and max_wait must not be negative")


@dataclass(frozen=True)
class RetryEvent:
    """What ``on_retry`` is told before each wait."""

    #: The attempt that failed (1 for the first).
    attempt: int
    #: Seconds the client is about to wait.
    delay: float
    error: PartnerAnalyticsError


def backoff_delay(retry: int, retry_after: Optional[int], policy: RetryPolicy, random: Callable[[], float]) -> float:
    """Seconds to wait before retry number ``retry`` (1 for the first): "equal jitter" of the
    exponential delay, on top of Retry-After (a retry before it is refused anyway)."""
    exponential = min(policy.max_delay, policy.base_delay * 2.0 ** (retry - 1))
    return round((retry_after or 0) + exponential / 2 + random() * exponential / 2, 3)


def _decode(body: bytes) -> Any:
    """The answer's JSON with exact decimals; None when it is empty or not JSON."""
    if not body:
        return None
    try:
        return json.loads(body.decode("utf-8"), parse_float=Decimal)
    except (UnicodeDecodeError, ValueError):
        return None


class Session:
    """Shared by every thread using one Client: only the token changes, under the login lock."""

    def __init__(self, *, base_url: str, client_key: str, secret_key: str, timeout: Optional[float], retry: RetryPolicy,
                 transport: Transport, sleep: Callable[[float], None], random: Callable[[], float],
                 on_retry: Optional[Callable[[RetryEvent], None]], access_token: Optional[str]) -> None:
        self.base_url = base_url
        self._client_key = client_key
        self._secret_key = secret_key
        self._timeout = timeout
        self._retry = retry
        self._transport = transport
        self._sleep = sleep
        self._random = random
        self._on_retry = on_retry
        self._token = access_token
        # One login at a time: threads that need a token while one is being fetched wait for it.
        self._login_lock = threading.Lock()
        self._user_agent = f"partner-analytics-python/{__version__} (Python {platform.python_version()})"

    # Login -------------------------------------------------------------------------------------

    def login(self) -> Any:
        """POST /auth/login now, whatever token is held; returns the decoded Token answer."""
        with self._login_lock:
            return self._login_locked()

    def _login_locked(self) -> Any:
        body = json.dumps({"api_client_key": self._client_key, "api_secret_key": self._secret_key}).encode()
        answer = self.send("POST", "/auth/login", {}, body=body)
        token = answer.get("access_token") if isinstance(answer, dict) else None
        if not isinstance(token, str) or token == "":
            raise ServerError("POST /auth/login: the answer holds no access_token", status=200, code="HTTP_200", request_id=None, body=answer)
        self._token = token
        LOG.debug("logged in to %s", self.base_url)
        return answer

    def _current_token(self) -> str:
        token = self._token
        if token is not None:
            return token
        with self._login_lock:
            # Another thread may have logged in while this one waited for the lock.
            if self._token is None:
                self._login_locked()
            assert self._token is not None
            return self._token

    def _renewed_token(self, expired: str) -> str:
        with self._login_lock:
            # Threads refused with the same expired token renew it once; the others reuse the new one.
            if self._token == expired:
                self._login_locked()
            assert self._token is not None
            return self._token

    # Requests ----------------------------------------------------------------------------------

    def get(self, path: str, query: Mapping[str, Any]) -> Any:
        """A protected GET: logs in when needed; on TOKEN_EXPIRED logs in again once and retries once."""
        return self.call("GET", path, query)

    def call(self, method: str, path: str, query: Mapping[str, Any], *, json_body: Optional[Mapping[str, Any]] = None,
             expect_body: bool = True) -> Any:
        """A protected call: logs in when needed; on TOKEN_EXPIRED logs in again once and retries once.

        Repeating a POST, PATCH or DELETE is safe here: TOKEN_EXPIRED, 429 and 503 are answered
        before the request is acted on. ``expect_body=False`` for a 204 answer (returns None)."""
        query_string(query)  # a parameter that cannot be sent fails before any request, the login included
        body = None if json_body is None else json.dumps(json_body).encode()
        token = self._current_token()
        try:
            return self.send(method, path, query, body=body, token=token, expect_body=expect_body)
        except TokenExpiredError:
            return self.send(method, path, query, body=body, token=self._renewed_token(token), expect_body=expect_body)

    def fetch_bytes(self, path: str, headers: Mapping[str, str]) -> HttpResponse:
        """A protected GET whose answer is bytes, not JSON (an export's file): 200 or 206, with its
        headers; TOKEN_EXPIRED renews the token once, 429/503 are retried as for every call."""
        token = self._current_token()
        for renewed in (False, True):
            attempt = 1
            while True:
                request_headers = {"accept-encoding": "identity", "user-agent": self._user_agent, **headers,
                                   "authorization": f"Bearer {token}"}
                response = self._transport(HttpRequest("GET", self.base_url + path, request_headers, None), self._timeout)
                if response.status in (200, 206):
                    return response
                error = self._refusal("GET", path, response)
                if isinstance(error, TokenExpiredError) and not renewed:
                    token = self._renewed_token(token)
                    break
                if not isinstance(error, _RETRYABLE) or attempt >= self._retry.max_attempts:
                    raise error
                delay = backoff_delay(attempt, error.retry_after, self._retry, self._random)
                if self._retry.max_wait is not None and delay > self._retry.max_wait:
                    raise error
                if self._on_retry is not None:
                    self._on_retry(RetryEvent(attempt=attempt, delay=delay, error=error))
                self._sleep(delay)
                attempt += 1
        raise AssertionError("unreachable")

    def parsed(self, method: str, path: str, answer: Any, parse: Callable[[Any], T]) -> T:
        """The answer in the client's types; an answer that does not fit the API's document is a ServerError."""
        try:
            return parse(answer)
        except (AnswerMismatch, KeyError, TypeError, ValueError) as mismatch:
            raise ServerError(f"{method} {path}: the answer does not fit the API's document ({mismatch})",
                              status=200, code="HTTP_200", request_id=None, body=answer) from mismatch

    def send(self, method: str, path: str, query: Mapping[str, Any], *, body: Optional[bytes] = None,
             token: Optional[str] = None, accept: Callable[[int], bool] = lambda status: 200 <= status < 300,
             expect_body: bool = True) -> Any:
        """One call, with the backoff loop for TOO_MANY_ATTEMPTS, 429 and 503 SERVICE_UNAVAILABLE;
        any other refusal is raised at once. ``accept`` says which statuses are answers."""
        url = self.base_url + path + query_string(query)
        headers = {"accept": "application/json", "accept-encoding": "gzip", "user-agent": self._user_agent}
        if body is not None:
            headers["content-type"] = "application/json"
        if token is not None:
            headers["authorization"] = f"Bearer {token}"
        attempt = 1
        while True:
            response = self._transport(HttpRequest(method, url, headers, body), self._timeout)
            if accept(response.status):
                if not expect_body:
                    return None
                payload = _decode(response.body)
                if payload is None and response.status == 204:
                    return None  # No Content: e.g. DELETE /exports/{id} of a finished job
                if payload is None:
                    raise ServerError(f"{method} {path}: the answer is not JSON", status=response.status, code=f"HTTP_{response.status}",
                                      request_id=response.headers.get("x-request-id"), body=None)
                return payload
            error = self._refusal(method, path, response)
            if not isinstance(error, _RETRYABLE) or attempt >= self._retry.max_attempts:
                raise error
            delay = backoff_delay(attempt, error.retry_after, self._retry, self._random)
            if self._retry.max_wait is not None and delay > self._retry.max_wait:
                raise error
            LOG.info("%s %s: %s; retry %d of %d in %.1f s", method, path, error.code, attempt + 1, self._retry.max_attempts, delay)
            if self._on_retry is not None:
                self._on_retry(RetryEvent(attempt=attempt, delay=delay, error=error))
            self._sleep(delay)
            attempt += 1

    @staticmethod
    def _refusal(method: str, path: str, response: HttpResponse) -> PartnerAnalyticsError:
        if 300 <= response.status < 400:
            location = response.headers.get("location", "")
            return PartnerAnalyticsError(
                f"{method} {path}: redirected to {location or 'another address'}, which the client does not follow "
                "(it would carry the token there); use the API's own address as base_url",
                status=response.status, code=f"HTTP_{response.status}", request_id=response.headers.get("x-request-id"), body=None)
        return error_from_response(response.status, _decode(response.body), response.headers)
