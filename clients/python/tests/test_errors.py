"""Every error class: from the real server wherever it can give the answer, from a stand-in where
only a gateway, a portal or a loaded service would (test_retries.py: 429, 503, TOO_MANY_ATTEMPTS;
test_tokens.py: TOKEN_EXPIRED; test_transport.py: NetworkError; test_feed.py: CURSOR_EXPIRED)."""

from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
import urllib.error
import urllib.request
from typing import Any, Dict, Iterator, Tuple

import pytest

from conftest import Api, Recorder
from fakes import answering, api_error
from partner_analytics import (
    AuthenticationError, BadRequestError, Client, ForbiddenError, InternalServerError, InvalidCredentialsError,
    MethodNotAllowedError, NotFoundError, PartnerAnalyticsError, PermissionDeniedError, ServerError, TokenInvalidError,
    UserDisabledError, ValidationError,
)
from partner_analytics.errors import error_from_response
from servers import Server, serve

REQUEST_ID = re.compile(r"^[0-9a-f-]{36}$")
KEYS = ("pak_" + "0" * 24, "pas_" + "0" * 43)


def test_invalid_credentials_is_raised_at_once_with_the_request_id(sqlite_api: Api, recorder: Recorder) -> None:
    client = Client(sqlite_api.base_url, sqlite_api.keys.client_key, "pas_" + "B" * 43, transport=recorder)
    with pytest.raises(InvalidCredentialsError) as caught:
        client.me()
    error = caught.value
    assert (error.status, error.code, error.detail) == (401, "INVALID_CREDENTIALS", "Invalid API client key or secret")
    assert isinstance(error, AuthenticationError) and isinstance(error, PartnerAnalyticsError)
    assert REQUEST_ID.match(error.request_id or "")
    assert str(error) == f"INVALID_CREDENTIALS (401): Invalid API client key or secret [request_id {error.request_id}]"
    assert recorder.calls == ["POST /auth/login"]
    with pytest.raises(InvalidCredentialsError, match="Malformed API client key"):
        Client(sqlite_api.base_url, "pak_short", "pas_short").login()


def test_user_disabled(sqlite_api: Api) -> None:
    keys = sqlite_api.user("1")
    sqlite_api.cli("users", "disable", keys.user_id or "")
    with pytest.raises(UserDisabledError) as caught:
        sqlite_api.client(keys=keys).login()
    assert (caught.value.status, caught.value.code, caught.value.detail) == (403, "USER_DISABLED", "User account is disabled")
    assert isinstance(caught.value, PermissionDeniedError)


def test_token_invalid_is_neither_retried_nor_renewed(sqlite_api: Api, recorder: Recorder) -> None:
    client = sqlite_api.client(access_token="not.a.token", transport=recorder)
    with pytest.raises(TokenInvalidError) as caught:
        client.me()
    assert (caught.value.status, caught.value.code, caught.value.detail) == (401, "TOKEN_INVALID", "Could not validate credentials")
    assert recorder.calls == ["GET /me"]


def test_forbidden_not_found_bad_request_and_validation(sqlite_api: Api) -> None:
    client = sqlite_api.client()
    with pytest.raises(ForbiddenError) as forbidden:
        client.agg(brand_id=[1, 8])
    assert (forbidden.value.status, forbidden.value.detail) == (403, "You do not have access to brand_id 8")

    with pytest.raises(NotFoundError) as missing:
        client.agg(account_id=999, platform="fb")
    error = missing.value
    assert (error.status, error.code, error.detail) == (404, "NOT_FOUND", "account_id 999 not found on platform fb in an accessible brand")
    assert REQUEST_ID.match(error.request_id or "") and error.body["error_code"] == "NOT_FOUND"

    with pytest.raises(BadRequestError) as bad:
        client.posts_page(account_id=1000)
    assert (bad.value.status, bad.value.code, bad.value.body) == (400, "BAD_REQUEST", {"detail": "account_id requires exactly one platform to be specified"})
    # The 400 body has no request_id: the X-Request-Id header gives it.
    assert REQUEST_ID.match(bad.value.request_id or "")

    with pytest.raises(ValidationError) as invalid:
        client.daily_page(since="2026-02-30", until="2026-03-01")
    assert invalid.value.status == 422
    assert [(issue["loc"], issue["type"]) for issue in invalid.value.issues] == [(["query", "since"], "date_parsing")]
    assert invalid.value.detail == "query.since: Input should be a valid date in the format YYYY-MM-DD"
    with pytest.raises(ValidationError) as several:
        client.posts_page(limit=0, order_by="likes")  # type: ignore[arg-type]
    assert sorted(issue["loc"][1] for issue in several.value.issues) == ["limit", "order_by"]


def _raw(method: str, url: str) -> Tuple[int, Any, Dict[str, str]]:
    """One request outside the client (which sends only documented methods and paths)."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method=method), timeout=30) as answer:
            return answer.status, json.loads(answer.read()), {k.lower(): v for k, v in answer.headers.items()}
    except urllib.error.HTTPError as refusal:
        return refusal.code, json.loads(refusal.read()), {k.lower(): v for k, v in refusal.headers.items()}


def test_method_not_allowed_and_unknown_path_map_to_their_classes(sqlite_api: Api) -> None:
    status, body, headers = _raw("DELETE", sqlite_api.base_url + "/me")
    error = error_from_response(status, body, headers)
    assert isinstance(error, MethodNotAllowedError) and (error.status, error.code) == (405, "METHOD_NOT_ALLOWED")
    status, body, headers = _raw("GET", sqlite_api.base_url + "/nope")
    error = error_from_response(status, body, headers)
    assert isinstance(error, NotFoundError) and (error.status, error.detail) == (404, "Not Found")


def test_unknown_codes_map_by_status() -> None:
    cases = [(401, AuthenticationError), (403, PermissionDeniedError), (404, NotFoundError), (422, ValidationError),
             (500, InternalServerError), (502, ServerError), (418, PartnerAnalyticsError)]
    for status, kind in cases:
        error = error_from_response(status, json.loads(api_error(status, "SOMETHING_NEW", "new")), {})
        assert type(error) is kind, status
        assert (error.code, error.detail, error.request_id) == ("SOMETHING_NEW", "new", "req-fake")


@pytest.fixture(scope="module")
def broken_server(sqlite_api: Api, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The production service on a copy of the demo store that lost a table: every report fails on our side."""
    cwd = tmp_path_factory.mktemp("broken")
    (cwd / "data").mkdir()
    for name in ("jwt-secret", "demo-credentials.json"):
        (cwd / "data" / name).write_bytes((sqlite_api.cwd / "data" / name).read_bytes())
        (cwd / "data" / name).chmod(0o600)
    source = sqlite3.connect(str(sqlite_api.cwd / "data" / "partner-analytics.sqlite"))
    copy = sqlite3.connect(str(cwd / "data" / "partner-analytics.sqlite"))
    try:
        source.backup(copy)
        copy.execute("drop table brand_daily")
        copy.commit()
    finally:
        source.close()
        copy.close()
    server = serve(cwd, {}, banner=True)
    try:
        yield server
    finally:
        server.stop()


def test_internal_server_error(sqlite_api: Api, broken_server: Server, recorder: Recorder) -> None:
    client = sqlite_api.client(base_url=broken_server.base_url, transport=recorder)
    with pytest.raises(InternalServerError) as caught:
        client.daily_page()
    error = caught.value
    assert isinstance(error, ServerError)
    assert (error.status, error.code, error.detail) == (500, "INTERNAL_SERVER_ERROR", "Error fetching analytics")
    assert REQUEST_ID.match(error.request_id or "")
    # Our failure is not retried: the caller decides.
    assert recorder.calls == ["POST /auth/login", "GET /analytics/"]


def test_a_gateways_html_page_is_a_server_error_not_retried() -> None:
    page = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
    with answering(502, page, {"content-type": "text/html", "x-request-id": "gw-1"}) as (url, seen):
        with pytest.raises(ServerError) as caught:
            Client(url, *KEYS).login()
    assert type(caught.value) is ServerError
    assert (caught.value.status, caught.value.code, caught.value.detail, caught.value.request_id, caught.value.body) == (502, "HTTP_502", "HTTP 502", "gw-1", None)
    assert seen == ["POST /auth/login"]


def test_answers_that_are_not_the_apis_json_are_server_errors() -> None:
    with answering(200, b"<html>Sign in to the Wi-Fi</html>", {"content-type": "text/html"}) as (url, _):
        with pytest.raises(ServerError, match=r"^HTTP_200 \(200\): GET /me: the answer is not JSON$"):
            Client(url, *KEYS, access_token="a.b.c").me()
    with answering(200, b'{"name": "x", "brands": [{"brand_id": 1}], "next_cursor": null}') as (url, _):
        with pytest.raises(ServerError, match=r"GET /me: the answer does not fit the API's document \(Brand: missing brand_name, fb_accounts"):
            Client(url, *KEYS, access_token="a.b.c").me()


def test_health_returns_an_unhealthy_instances_503_body() -> None:
    body = b'{"status": "error", "version": "0.1.0", "database": "unreachable", "uptime_s": 12}'
    with answering(503, body) as (url, seen):
        health = Client(url, *KEYS).health()
    assert (health.status, health.database, health.uptime_s) == ("error", "unreachable", 12)
    assert seen == ["GET /health"]


def test_health_ready_returns_a_not_ready_instances_503_body() -> None:
    with answering(503, b'{"status": "error", "database": "unreachable"}') as (url, seen):
        ready = Client(url, *KEYS).health_ready()
    assert (ready.status, ready.database) == ("error", "unreachable")
    # Not retried as a SERVICE_UNAVAILABLE: it is the probe's answer.
    assert seen == ["GET /health/ready"]


def test_redirects_are_not_followed() -> None:
    with answering(301, b"", {"location": "https://elsewhere.example/me"}) as (url, seen):
        with pytest.raises(PartnerAnalyticsError, match="redirected to https://elsewhere.example/me, which the client does not follow") as caught:
            Client(url, *KEYS, access_token="a.b.c").me()
    assert caught.value.status == 301 and seen == ["GET /me"]


def test_construction_errors_name_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("PA_BASE_URL", "PA_API_CLIENT_KEY", "PA_API_SECRET_KEY"):
        monkeypatch.delenv(variable, raising=False)
    with pytest.raises(ValueError, match=r"^base_url is not given and PA_BASE_URL is not set; api_client_key is not given and PA_API_CLIENT_KEY is not set; api_secret_key is not given"):
        Client()
    with pytest.raises(ValueError, match=r"base_url must be an absolute http:// or https:// URL, e.g. https://api.example.com \(got 'localhost:8000'\)"):
        Client("localhost:8000", *KEYS)
    with pytest.raises(ValueError, match=r"must not contain a user name or password \(got 'https://\*\*\*@api.example.com'\)"):
        Client("https://user:hunter2@api.example.com", *KEYS)
    with pytest.raises(ValueError, match=r"must not have a query"):
        Client("https://api.example.com/?x=1", *KEYS)
    monkeypatch.setenv("PA_BASE_URL", "https://gateway.example.com/partner-analytics/")
    monkeypatch.setenv("PA_API_CLIENT_KEY", KEYS[0])
    monkeypatch.setenv("PA_API_SECRET_KEY", KEYS[1])
    client = Client()
    assert client.base_url == "https://gateway.example.com/partner-analytics"
    # The secret never shows.
    assert repr(client) == f"Client(base_url='https://gateway.example.com/partner-analytics', api_client_key='{KEYS[0]}')"
    assert KEYS[1] not in repr(vars(client))


def test_parameters_are_checked_before_sending(sqlite_api: Api, recorder: Recorder) -> None:
    client = sqlite_api.client(transport=recorder)
    with pytest.raises(TypeError, match="since: pass a datetime.date"):
        client.daily_page(since=dt.datetime(2026, 1, 1))
    with pytest.raises(ValueError, match="brand_id: an empty list"):
        client.agg(brand_id=[])
    # Refused before any request, the login included.
    assert recorder.calls == []
