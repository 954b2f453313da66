"""Typed errors: one class per error code the API documents, and NetworkError when nothing answered.

Every error from an answer is a :class:`PartnerAnalyticsError` carrying ``status`` (the HTTP
status), ``code`` (the API's ``error_code``), ``detail`` (its human-readable message),
``request_id`` (quote it to support) and ``body`` (the decoded answer). An ``error_code`` this
client does not know is mapped by its HTTP status, as the API's compatibility rules ask.
"""

from __future__ import annotations

import email.utils
import time
from typing import Any, Dict, List, Mapping, Optional, Type

__all__ = [
    "PartnerAnalyticsError", "BadRequestError", "AuthenticationError", "InvalidCredentialsError",
    "TokenInvalidError", "TokenExpiredError", "TooManyAttemptsError", "PermissionDeniedError",
    "UserDisabledError", "ForbiddenError", "NotFoundError", "MethodNotAllowedError",
    "ConflictError", "CursorExpiredError", "ValidationError", "RateLimitError", "ServerError", "InternalServerError",
    "ServiceUnavailableError", "NetworkError", "error_from_response", "parse_retry_after",
]


class PartnerAnalyticsError(Exception):
    """The API answered with an error (or with something that is not its JSON)."""

    def __init__(self, detail: str, *, status: int, code: str, request_id: Optional[str], body: Any,
                 retry_after: Optional[int] = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.status = status
        self.code = code
        self.request_id = request_id
        self.body = body
        #: Seconds the server asked to wait (``Retry-After``), when it said so.
        self.retry_after = retry_after

    def __str__(self) -> str:
        suffix = f" [request_id {self.request_id}]" if self.request_id else ""
        return f"{self.code} ({self.status}): {self.detail}{suffix}"


class BadRequestError(PartnerAnalyticsError):
    """400: ``account_id`` without exactly one platform (the body holds only ``detail``)."""


class AuthenticationError(PartnerAnalyticsError):
    """401 with an ``error_code`` this client does not know; the base of every 401 below."""


class InvalidCredentialsError(AuthenticationError):
    """401 INVALID_CREDENTIALS: the key pair is wrong or malformed. Escalate; never retried."""


class TokenInvalidError(AuthenticationError):
    """401 TOKEN_INVALID: not a token of this service. Never retried (a new login would not help)."""


class TokenExpiredError(AuthenticationError):
    """401 TOKEN_EXPIRED that persisted after the one re-login and retry."""


class TooManyAttemptsError(AuthenticationError):
    """401 TOO_MANY_ATTEMPTS: logins of this key or address are locked; raised once retries are spent."""


class PermissionDeniedError(PartnerAnalyticsError):
    """403 with an ``error_code`` this client does not know; the base of every 403 below."""


class UserDisabledError(PermissionDeniedError):
    """403 USER_DISABLED: the operator disabled the user. Never retried."""


class ForbiddenError(PermissionDeniedError):
    """403 FORBIDDEN: a ``brand_id`` the user cannot read."""


class NotFoundError(PartnerAnalyticsError):
    """404 NOT_FOUND: an account not found in an accessible brand, or an unknown path."""


class MethodNotAllowedError(PartnerAnalyticsError):
    """405 METHOD_NOT_ALLOWED: a known path asked with a method it does not serve."""


class ConflictError(PartnerAnalyticsError):
    """409 CONFLICT: a webhook request that breaks a rule of the webhook's current state (the detail says which)."""


class CursorExpiredError(PartnerAnalyticsError):
    """410 CURSOR_EXPIRED: a change-feed cursor older than the retention. Read the data again,
    then follow the feed from ``start="latest"``."""


class ValidationError(PartnerAnalyticsError):
    """422 VALIDATION_ERROR, with one issue per offending parameter in ``issues``."""

    def __init__(self, detail: str, *, status: int, code: str, request_id: Optional[str], body: Any,
                 issues: List[Dict[str, Any]]) -> None:
        super().__init__(detail, status=status, code=code, request_id=request_id, body=body)
        #: ``[{"loc": ["query", "since"], "msg": …, "type": "date_parsing", "ctx": {}}, …]``
        self.issues = issues


class RateLimitError(PartnerAnalyticsError):
    """429 RATE_LIMIT_EXCEEDED, raised once retries are spent (or the wait is too long)."""


class ServerError(PartnerAnalyticsError):
    """5xx, or an answer that is not the API's JSON (a gateway's page, a portal)."""


class InternalServerError(ServerError):
    """500 INTERNAL_SERVER_ERROR: the service's own failure."""


class ServiceUnavailableError(ServerError):
    """503 SERVICE_UNAVAILABLE: too many large reports were waiting; raised once retries are spent."""


class NetworkError(Exception):
    """No HTTP answer: connection refused, DNS or TLS failure, reset, or timeout.

    The message names the request and the cause, e.g. ``POST http://127.0.0.1:8000/auth/login
    failed: connection refused (ECONNREFUSED 127.0.0.1:8000)``. Never retried by the client: the
    request may have reached the server.
    """

    def __init__(self, method: str, url: str, reason: str) -> None:
        super().__init__(f"{method} {url} failed: {reason}")
        self.method = method
        self.url = url
        self.reason = reason


_BY_CODE: Mapping[str, Type[PartnerAnalyticsError]] = {
    "INVALID_CREDENTIALS": InvalidCredentialsError,
    "TOKEN_INVALID": TokenInvalidError,
    "TOKEN_EXPIRED": TokenExpiredError,
    "TOO_MANY_ATTEMPTS": TooManyAttemptsError,
    "USER_DISABLED": UserDisabledError,
    "FORBIDDEN": ForbiddenError,
    "NOT_FOUND": NotFoundError,
    "METHOD_NOT_ALLOWED": MethodNotAllowedError,
    "CONFLICT": ConflictError,
    "CURSOR_EXPIRED": CursorExpiredError,
    "VALIDATION_ERROR": ValidationError,
    "RATE_LIMIT_EXCEEDED": RateLimitError,
    "INTERNAL_SERVER_ERROR": InternalServerError,
    "SERVICE_UNAVAILABLE": ServiceUnavailableError,
}

_BY_STATUS: Mapping[int, Type[PartnerAnalyticsError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    405: MethodNotAllowedError,
    409: ConflictError,
    410: CursorExpiredError,
    422: ValidationError,
    429: RateLimitError,
    500: InternalServerError,
    503: ServiceUnavailableError,
}


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[int]:
    """Seconds from a ``Retry-After`` header (delta-seconds or an HTTP date); None when absent or unreadable."""
    if value is None or value.strip() == "":
        return None
    text = value.strip()
    if text.isascii() and text.isdigit():
        return int(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    seconds = when.timestamp() - (time.time() if now is None else now)
    return max(0, int(-(-seconds // 1)))


def error_from_response(status: int, body: Any, headers: Mapping[str, str]) -> PartnerAnalyticsError:
    """The typed error for a non-2xx answer; ``headers`` are looked up by lower-case name."""
    fields: Mapping[str, Any] = body if isinstance(body, dict) else {}
    raw_code = fields.get("error_code")
    code = raw_code if isinstance(raw_code, str) else ("BAD_REQUEST" if status == 400 else f"HTTP_{status}")
    raw_request_id = fields.get("request_id")
    request_id = raw_request_id if isinstance(raw_request_id, str) else headers.get("x-request-id")
    raw_detail = fields.get("detail")
    issues = [issue for issue in raw_detail if isinstance(issue, dict)] if isinstance(raw_detail, list) else []
    if isinstance(raw_detail, str):
        detail = raw_detail
    elif issues:
        detail = "; ".join(f"{'.'.join(str(part) for part in issue.get('loc', []))}: {issue.get('msg', '')}" for issue in issues)
    else:
        detail = f"HTTP {status}"
    kind = _BY_CODE.get(code) if isinstance(raw_code, str) else None
    if kind is None:
        kind = _BY_STATUS.get(status, ServerError if status >= 500 else PartnerAnalyticsError)
        # A known code's class, but for a body that is not the API's (e.g. a gateway's 500 page).
        if kind is InternalServerError and not isinstance(raw_code, str):
            kind = ServerError
        if kind is ServiceUnavailableError and not isinstance(raw_code, str):
            kind = ServerError
    if kind is ValidationError:
        return ValidationError(detail, status=status, code=code, request_id=request_id, body=body, issues=issues)
    retry_after = parse_retry_after(headers.get("retry-after"))
    return kind(detail, status=status, code=code, request_id=request_id, body=body, retry_after=retry_after)
