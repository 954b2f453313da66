"""The Partner Analytics client: one typed method per route, and iterators over every page."""

from __future__ import annotations

import hashlib
import os
import random as _random
import time
import urllib.parse
from typing import Any, Callable, Dict, Iterator, List, Literal, Mapping, Optional, Sequence, TypeVar, Union, overload

from . import models
from ._params import DateLike, IdList, OneOrMany, Words
from ._session import RetryEvent, RetryPolicy, Session
from ._settings import DEFAULT_TIMEOUT, ENVIRONMENT, checked_base_url, from_environment
from ._transport import Transport, UrllibTransport
from .feed import Feed
from .models import (
    ExportJob, ExportList, ExportManifest,
    AccountStatus, AggReport, Brand, ChangesPage, DailyEntry, DailyReport, DataStatusPage, Delivery, DeliveryPage, DeliveryStatus,
    EventType, Gaps, Health, Include, Liveness, Me, MetricCatalog, MonthlyReport, Order, OrderBy, Post, PostsPage, Readiness, ReportType,
    ReportResponse, ReportRow, Start, Token, Webhook, WebhookList, WebhookWithSecret,
)
from .paging import Pages, stuck_cursor

__all__ = ["Client", "DEFAULT_TIMEOUT", "ENVIRONMENT", "ExportFileMismatch", "ExportWaitTimeout"]


class ExportWaitTimeout(Exception):
    """wait_export gave up: the job (``job``, as last seen) had not finished within its timeout."""

    def __init__(self, job: ExportJob) -> None:
        super().__init__(f"export {job.id} is still {job.status} ({job.progress['rows_written']} rows written)")
        self.job = job


class ExportFileMismatch(Exception):
    """A downloaded file's SHA-256 differs from the manifest's (the partial file is removed)."""

    def __init__(self, name: str, expected: str, actual: str) -> None:
        super().__init__(f"{name}: SHA-256 {actual} differs from the manifest's {expected}")
        self.name = name
        self.expected = expected
        self.actual = actual


def _export_path(export_id: str) -> str:
    return "/exports/" + urllib.parse.quote(export_id, safe="")


def _sha256_of(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()

T = TypeVar("T")


def _webhook_path(webhook_id: str) -> str:
    # An id is the API's (`wh_…`); quoting keeps any other text inside its path segment.
    return "/webhooks/" + urllib.parse.quote(webhook_id, safe="")


def _words(value: Words) -> List[str]:
    return [value] if isinstance(value, str) else list(value)


def _ids(value: IdList) -> List[int]:
    return [value] if isinstance(value, int) else list(value)


def _date_text(value: DateLike) -> str:
    return value if isinstance(value, str) else value.isoformat()


def _report_body(*, metrics: Words, dimensions: Optional[Words], since: Optional[DateLike], until: Optional[DateLike],
                 brand_id: Optional[IdList], account_id: Optional[IdList], platform: Optional[Words],
                 order_by: Optional[Sequence[Mapping[str, Any]]], limit: Optional[int], offset: Optional[int], cursor: Optional[str],
                 comparison: Optional[Union[str, Mapping[str, DateLike]]], include: Optional[Words],
                 gaps: Optional[Gaps] = None) -> Dict[str, Any]:
    """The POST /reports body of the keyword arguments given (those left None are left out)."""
    body: Dict[str, Any] = {"metrics": _words(metrics)}
    if dimensions is not None:
        body["dimensions"] = _words(dimensions)
    if since is not None:
        body["since"] = _date_text(since)
    if until is not None:
        body["until"] = _date_text(until)
    filters: Dict[str, Any] = {}
    if brand_id is not None:
        filters["brand_id"] = _ids(brand_id)
    if account_id is not None:
        filters["account_id"] = _ids(account_id)
    if platform is not None:
        filters["platform"] = _words(platform)
    if filters:
        body["filters"] = filters
    if order_by is not None:
        body["order_by"] = [dict(item) for item in order_by]
    for name, value in (("limit", limit), ("offset", offset), ("cursor", cursor)):
        if value is not None:
            body[name] = value
    if comparison is not None:
        body["comparison"] = comparison if isinstance(comparison, str) else {key: _date_text(day) for key, day in comparison.items()}
    if include is not None:
        body["include"] = _words(include)
    if gaps is not None:
        body["gaps"] = gaps
    return body


def _answer_or_unavailable(status: int) -> bool:
    # The health checks answer 503 with their own body (which dependency is down): an answer, not a refusal.
    return 200 <= status < 300 or status == 503


class Client:
    """A client of the Partner Analytics API, safe to share between threads.

    Arguments left out are read from ``PA_BASE_URL``, ``PA_API_CLIENT_KEY`` and
    ``PA_API_SECRET_KEY``. The client logs in before its first protected call (one login at a
    time, whatever the number of threads), logs in again once on TOKEN_EXPIRED, retries
    TOO_MANY_ATTEMPTS, 429 and 503 per ``retry``, and raises a typed error for every refusal.

    ``timeout``: seconds to wait for the connection and then for the answer, whose body must
    arrive within it too (default 60; None waits forever). ``access_token``: start with this token.
    ``on_retry``: told before each wait. ``transport``, ``sleep`` and ``random``: for tests and
    custom HTTP stacks.
    """

    def __init__(self, base_url: Optional[str] = None, api_client_key: Optional[str] = None, api_secret_key: Optional[str] = None, *,
                 timeout: Optional[float] = DEFAULT_TIMEOUT, retry: RetryPolicy = RetryPolicy(), access_token: Optional[str] = None,
                 on_retry: Optional[Callable[[RetryEvent], None]] = None, transport: Optional[Transport] = None,
                 sleep: Callable[[float], None] = time.sleep, random: Callable[[], float] = _random.random) -> None:
        values = from_environment({"base_url": base_url, "api_client_key": api_client_key, "api_secret_key": api_secret_key})
        if timeout is not None and timeout <= 0:
            raise ValueError(f"timeout must be a positive number of seconds, or None (got {timeout!r})")
        self.base_url = checked_base_url(values["base_url"])
        self.api_client_key = values["api_client_key"]
        self._session = Session(
            base_url=self.base_url, client_key=values["api_client_key"], secret_key=values["api_secret_key"], timeout=timeout,
            retry=retry, transport=transport or UrllibTransport(), sleep=sleep, random=random, on_retry=on_retry,
            access_token=access_token,
        )

    def __repr__(self) -> str:
        return f"Client(base_url={self.base_url!r}, api_client_key={self.api_client_key!r})"

    # Authentication and service ----------------------------------------------------------------

    def login(self) -> Token:
        """POST /auth/login now (the client does it by itself when needed); the token is kept."""
        return self._session.parsed("POST", "/auth/login", self._session.login(), models.parse_token)

    def health(self) -> Health:
        """GET /health, no token needed; a 503 (database or Redis unreachable) is returned too, with status "error"."""
        return self._public("/health", models.parse_health, accept=_answer_or_unavailable)

    def health_live(self) -> Liveness:
        """GET /health/live, no token needed: the process answers (a liveness probe checks nothing else)."""
        return self._public("/health/live", models.parse_liveness)

    def health_ready(self) -> Readiness:
        """GET /health/ready, no token needed: whether the instance can serve; a 503 (the database does
        not answer within 1 s) is returned too, with status "error"."""
        return self._public("/health/ready", models.parse_readiness, accept=_answer_or_unavailable)

    def metric_catalog(self) -> MetricCatalog:
        """GET /catalog/metrics, no token needed: every metric the reports carry, its label, unit,
        platforms and how it combines over days and accounts."""
        return self._public("/catalog/metrics", models.parse_metric_catalog)

    # Brands ------------------------------------------------------------------------------------

    def me(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Me:
        """GET /me: the user and one page of brands (``limit`` 1–100, default 20)."""
        return self._get("/me", {"limit": limit, "cursor": cursor}, models.parse_me)

    def brands(self, *, page_size: Optional[int] = None) -> Pages[Brand, Me]:
        """Every brand the user can read, following /me's ``next_cursor``."""
        return Pages(lambda cursor: self.me(limit=page_size, cursor=cursor), lambda page: page.brands, lambda page: page.next_cursor)

    # Analytics ---------------------------------------------------------------------------------

    @overload
    def analytics(self, *, type: Literal["daily"] = ..., since: Optional[DateLike] = ..., until: Optional[DateLike] = ...,
                  brand_id: Optional[IdList] = ..., account_id: Optional[IdList] = ..., platform: Optional[Words] = ...,
                  split_by_platform: Optional[bool] = ..., cursor: Optional[str] = ..., include: Optional[OneOrMany[Include]] = ..., gaps: Optional[Gaps] = ...) -> DailyReport: ...

    @overload
    def analytics(self, *, type: Literal["monthly"], since: Optional[DateLike] = ..., until: Optional[DateLike] = ...,
                  brand_id: Optional[IdList] = ..., account_id: Optional[IdList] = ..., platform: Optional[Words] = ...,
                  split_by_platform: Optional[bool] = ..., cursor: Optional[str] = ..., include: Optional[OneOrMany[Include]] = ..., gaps: Optional[Gaps] = ...) -> MonthlyReport: ...

    @overload
    def analytics(self, *, type: Literal["agg"], since: Optional[DateLike] = ..., until: Optional[DateLike] = ...,
                  brand_id: Optional[IdList] = ..., account_id: Optional[IdList] = ..., platform: Optional[Words] = ...,
                  split_by_platform: Optional[bool] = ..., cursor: Optional[str] = ..., include: Optional[OneOrMany[Include]] = ..., gaps: Optional[Gaps] = ...) -> AggReport: ...

    def analytics(self, *, type: ReportType = "daily", since: Optional[DateLike] = None, until: Optional[DateLike] = None,
                  brand_id: Optional[IdList] = None, account_id: Optional[IdList] = None, platform: Optional[Words] = None,
                  split_by_platform: Optional[bool] = None, cursor: Optional[str] = None,
                  include: Optional[OneOrMany[Include]] = None, gaps: Optional[Gaps] = None) -> Union[DailyReport, MonthlyReport, AggReport]:
        """GET /analytics/: one answer, the report ``type`` selects (one page of it for daily).

        ``include="status"`` adds to each entry how complete its data is: ``accounts_expected``,
        ``accounts_reported``, ``metrics_reported`` and ``metrics_expected`` (see data_status()).
        ``gaps="carry"`` answers by the gap rules: a stock (followers) carried from each account's last
        report on or before the day, rates only over the account-days that reported both parts;
        with ``include="status"`` each entry also has ``gaps`` (per metric: accounts carried, missing).
        """
        query = {"type": type, "since": since, "until": until, "brand_id": brand_id, "account_id": account_id,
                 "platform": platform, "split_by_platform": split_by_platform, "cursor": cursor, "include": include, "gaps": gaps}
        if type == "monthly":
            return self._get("/analytics/", query, models.parse_monthly_report)
        if type == "agg":
            return self._get("/analytics/", query, models.parse_agg_report)
        return self._get("/analytics/", query, models.parse_daily_report)

    def daily_page(self, *, since: Optional[DateLike] = None, until: Optional[DateLike] = None, brand_id: Optional[IdList] = None,
                   account_id: Optional[IdList] = None, platform: Optional[Words] = None, split_by_platform: Optional[bool] = None,
                   cursor: Optional[str] = None, include: Optional[OneOrMany[Include]] = None, gaps: Optional[Gaps] = None) -> DailyReport:
        """One page (at most 20 entries) of the daily report; ``next_cursor`` leads to the next."""
        return self.analytics(type="daily", since=since, until=until, brand_id=brand_id, account_id=account_id, platform=platform,
                              split_by_platform=split_by_platform, cursor=cursor, include=include, gaps=gaps)

    def daily(self, *, since: Optional[DateLike] = None, until: Optional[DateLike] = None, brand_id: Optional[IdList] = None,
              account_id: Optional[IdList] = None, platform: Optional[Words] = None, split_by_platform: Optional[bool] = None,
              include: Optional[OneOrMany[Include]] = None, gaps: Optional[Gaps] = None) -> Pages[DailyEntry, DailyReport]:
        """Every daily entry of the period, page after page (latest date first).

        Pass ``since`` and ``until`` for a long walk: a default period moves at midnight UTC, and
        the API refuses a cursor of a period that moved.
        """
        def page(cursor: Optional[str]) -> DailyReport:
            return self.daily_page(since=since, until=until, brand_id=brand_id, account_id=account_id, platform=platform,
                                   split_by_platform=split_by_platform, cursor=cursor, include=include, gaps=gaps)
        return Pages(page, lambda report: report.data, lambda report: report.next_cursor)

    def monthly(self, *, since: Optional[DateLike] = None, until: Optional[DateLike] = None, brand_id: Optional[IdList] = None,
                account_id: Optional[IdList] = None, platform: Optional[Words] = None, split_by_platform: Optional[bool] = None,
                include: Optional[OneOrMany[Include]] = None, gaps: Optional[Gaps] = None) -> MonthlyReport:
        """The monthly report, whole (every month of the period)."""
        return self.analytics(type="monthly", since=since, until=until, brand_id=brand_id, account_id=account_id, platform=platform,
                              split_by_platform=split_by_platform, include=include, gaps=gaps)

    def agg(self, *, since: Optional[DateLike] = None, until: Optional[DateLike] = None, brand_id: Optional[IdList] = None,
            account_id: Optional[IdList] = None, platform: Optional[Words] = None, split_by_platform: Optional[bool] = None,
            include: Optional[OneOrMany[Include]] = None, gaps: Optional[Gaps] = None) -> AggReport:
        """The aggregated report, whole, with ``aggregates`` (total and average)."""
        return self.analytics(type="agg", since=since, until=until, brand_id=brand_id, account_id=account_id, platform=platform,
                              split_by_platform=split_by_platform, include=include, gaps=gaps)

    # Reports (docs/reports.md) -----------------------------------------------------------------

    def report(self, *, metrics: Words, dimensions: Optional[Words] = None, since: Optional[DateLike] = None,
               until: Optional[DateLike] = None, brand_id: Optional[IdList] = None, account_id: Optional[IdList] = None,
               platform: Optional[Words] = None, order_by: Optional[Sequence[Mapping[str, Any]]] = None,
               limit: Optional[int] = None, offset: Optional[int] = None, cursor: Optional[str] = None,
               comparison: Optional[Union[str, Mapping[str, DateLike]]] = None, include: Optional[Words] = None,
               gaps: Optional[Gaps] = None) -> ReportResponse:
        """POST /reports: one page of a report. ``rows`` are dicts (dimensions, ``metrics``, and with a
        comparison ``comparison``); ``to_pandas()`` flattens them into one column per metric.
        ``gaps="carry"``: rows, totals and comparisons by the gap rules (docs/analytics.md, Missing data)."""
        body = _report_body(metrics=metrics, dimensions=dimensions, since=since, until=until, brand_id=brand_id,
                            account_id=account_id, platform=platform, order_by=order_by, limit=limit, offset=offset,
                            cursor=cursor, comparison=comparison, include=include, gaps=gaps)
        return self._call("POST", "/reports", {}, models.parse_report_response, body)

    def report_rows(self, *, metrics: Words, dimensions: Optional[Words] = None, since: Optional[DateLike] = None,
                    until: Optional[DateLike] = None, brand_id: Optional[IdList] = None, account_id: Optional[IdList] = None,
                    platform: Optional[Words] = None, order_by: Optional[Sequence[Mapping[str, Any]]] = None,
                    limit: Optional[int] = None, comparison: Optional[Union[str, Mapping[str, DateLike]]] = None,
                    include: Optional[Words] = None, gaps: Optional[Gaps] = None) -> Pages[ReportRow, ReportResponse]:
        """Every row of a report, page after page (``limit`` rows a page)."""
        def page(cursor: Optional[str]) -> ReportResponse:
            return self.report(metrics=metrics, dimensions=dimensions, since=since, until=until, brand_id=brand_id,
                               account_id=account_id, platform=platform, order_by=order_by, limit=limit, cursor=cursor,
                               comparison=comparison, include=include, gaps=gaps)
        return Pages(page, lambda report: report.rows, lambda report: report.next_cursor)

    # Data status -------------------------------------------------------------------------------

    def data_status(self, *, since: Optional[DateLike] = None, until: Optional[DateLike] = None, brand_id: Optional[IdList] = None,
                    account_id: Optional[IdList] = None, platform: Optional[Words] = None, limit: Optional[int] = None,
                    cursor: Optional[str] = None) -> DataStatusPage:
        """GET /data-status: one page (``limit`` 1–100 accounts, default 100) of how complete each
        account's data is over the period: first and last day with data, when an import last
        changed it, and the days missing inside its coverage."""
        query = {"since": since, "until": until, "brand_id": brand_id, "account_id": account_id, "platform": platform,
                 "limit": limit, "cursor": cursor}
        return self._get("/data-status", query, models.parse_data_status_page)

    def account_statuses(self, *, since: Optional[DateLike] = None, until: Optional[DateLike] = None, brand_id: Optional[IdList] = None,
                         account_id: Optional[IdList] = None, platform: Optional[Words] = None,
                         limit: Optional[int] = None) -> Pages[AccountStatus, DataStatusPage]:
        """Every account's status over the period, page after page (``limit`` is the page size);
        by brand, platform and account. Pass ``since`` and ``until`` for a walk across midnight UTC."""
        def page(cursor: Optional[str]) -> DataStatusPage:
            return self.data_status(since=since, until=until, brand_id=brand_id, account_id=account_id, platform=platform,
                                    limit=limit, cursor=cursor)
        return Pages(page, lambda result: result.data, lambda result: result.next_cursor)

    # Posts -------------------------------------------------------------------------------------

    def posts_page(self, *, since: Optional[DateLike] = None, until: Optional[DateLike] = None, brand_id: Optional[IdList] = None,
                   account_id: Optional[IdList] = None, platform: Optional[Words] = None, post_type: Optional[Words] = None,
                   order_by: Optional[OrderBy] = None, order: Optional[Order] = None, limit: Optional[int] = None,
                   topics: Optional[bool] = None, category: Optional[bool] = None, cursor: Optional[str] = None) -> PostsPage:
        """GET /posts: one page (``limit`` 1–50, default 10)."""
        query = {"since": since, "until": until, "brand_id": brand_id, "account_id": account_id, "platform": platform,
                 "post_type": post_type, "order_by": order_by, "order": order, "limit": limit, "topics": topics,
                 "category": category, "cursor": cursor}
        return self._get("/posts", query, models.parse_posts_page)

    def posts(self, *, since: Optional[DateLike] = None, until: Optional[DateLike] = None, brand_id: Optional[IdList] = None,
              account_id: Optional[IdList] = None, platform: Optional[Words] = None, post_type: Optional[Words] = None,
              order_by: Optional[OrderBy] = None, order: Optional[Order] = None, limit: Optional[int] = None,
              topics: Optional[bool] = None, category: Optional[bool] = None) -> Pages[Post, PostsPage]:
        """Every post of the query, page after page (``limit`` is the page size). A walk sees the
        posts as they were at its first page and lasts at most 24 hours."""
        def page(cursor: Optional[str]) -> PostsPage:
            return self.posts_page(since=since, until=until, brand_id=brand_id, account_id=account_id, platform=platform,
                                   post_type=post_type, order_by=order_by, order=order, limit=limit, topics=topics,
                                   category=category, cursor=cursor)
        return Pages(page, lambda result: result.data, lambda result: result.next_cursor)

    # Change feed -------------------------------------------------------------------------------

    def changes_page(self, *, cursor: Optional[str] = None, limit: Optional[int] = None, brand_id: Optional[IdList] = None,
                     type: Optional[OneOrMany[EventType]] = None, start: Optional[Start] = None) -> ChangesPage:
        """GET /changes: one page of events (``limit`` 1–100, default 50)."""
        if cursor is not None and start is not None:
            raise ValueError("changes: pass a cursor or start='latest', not both")
        query = {"cursor": cursor, "limit": limit, "brand_id": brand_id, "type": type, "start": start}
        return self._get("/changes", query, models.parse_changes_page)

    def changes(self, cursor: Optional[str] = None, *, limit: Optional[int] = None, brand_id: Optional[IdList] = None,
                type: Optional[OneOrMany[EventType]] = None, start: Optional[Start] = None) -> Feed:
        """The events after ``cursor`` (the oldest kept without one; from now on with
        ``start="latest"``), page after page while ``has_more``. Store ``feed.cursor`` afterwards
        and pass it next time; the cursor is bound to ``brand_id`` and ``type``, so pass the same
        filters. An expired cursor raises CursorExpiredError (read the data again, then follow the
        feed from ``start="latest"``)."""
        if cursor is not None and start is not None:
            raise ValueError("changes: pass a cursor or start='latest', not both")

        def page(at: Optional[str], begin: Optional[str]) -> ChangesPage:
            return self.changes_page(cursor=at, limit=limit, brand_id=brand_id, type=type, start="latest" if begin == "latest" else None)
        return Feed(page, cursor, start)

    # Webhooks (docs/webhooks.md) ----------------------------------------------------------------

    def create_webhook(self, *, url: str, events: Optional[List[EventType]] = None, description: Optional[str] = None) -> WebhookWithSecret:
        """POST /webhooks: register an endpoint for ``events`` (every event type when left out).
        The answer's ``secret`` is shown only here: keep it to verify deliveries (verify_webhook)."""
        body: Dict[str, Any] = {"url": url}
        if events is not None:
            body["events"] = list(events)
        if description is not None:
            body["description"] = description
        return self._call("POST", "/webhooks", {}, models.parse_webhook_with_secret, body)

    def webhooks(self) -> WebhookList:
        """GET /webhooks: your endpoints, oldest first (at most 10, so one answer holds them all)."""
        return self._get("/webhooks", {}, models.parse_webhook_list)

    def webhook(self, webhook_id: str) -> Webhook:
        """GET /webhooks/{id}: one endpoint, with its backlog (``pending_deliveries``)."""
        return self._get(_webhook_path(webhook_id), {}, models.parse_webhook)

    def update_webhook(self, webhook_id: str, *, url: Optional[str] = None, events: Optional[List[EventType]] = None,
                       description: Optional[str] = None, status: Optional[Literal["enabled", "disabled"]] = None) -> Webhook:
        """PATCH /webhooks/{id}: change what is given (None leaves a field as it is; ``description=""``
        clears it). ``status="disabled"`` pauses the deliveries, ``"enabled"`` resumes them."""
        body: Dict[str, Any] = {name: value for name, value in
                                (("url", url), ("events", None if events is None else list(events)), ("description", description),
                                 ("status", status)) if value is not None}
        return self._call("PATCH", _webhook_path(webhook_id), {}, models.parse_webhook, body)

    def delete_webhook(self, webhook_id: str) -> None:
        """DELETE /webhooks/{id}: the endpoint and its pending deliveries are gone."""
        self._session.call("DELETE", _webhook_path(webhook_id), {}, expect_body=False)

    def rotate_webhook_secret(self, webhook_id: str) -> WebhookWithSecret:
        """POST /webhooks/{id}/rotate-secret: a new secret (in this answer only); the previous one
        still signs beside it until ``previous_secret_expires_at`` (24 hours)."""
        return self._call("POST", _webhook_path(webhook_id) + "/rotate-secret", {}, models.parse_webhook_with_secret)

    def test_webhook(self, webhook_id: str) -> Delivery:
        """POST /webhooks/{id}/test: queue a ``webhook.test`` delivery now; the answer is the delivery."""
        return self._call("POST", _webhook_path(webhook_id) + "/test", {}, models.parse_delivery)

    def webhook_deliveries_page(self, webhook_id: str, *, status: Optional[DeliveryStatus] = None, limit: Optional[int] = None,
                                cursor: Optional[str] = None) -> DeliveryPage:
        """GET /webhooks/{id}/deliveries: one page of deliveries, newest first."""
        query = {"status": status, "limit": limit, "cursor": cursor}
        return self._get(_webhook_path(webhook_id) + "/deliveries", query, models.parse_delivery_page)

    def webhook_deliveries(self, webhook_id: str, *, status: Optional[DeliveryStatus] = None,
                           limit: Optional[int] = None) -> Iterator[Delivery]:
        """Every delivery of the endpoint (``status`` filters), newest first, page after page
        (``limit`` is the page size); a page is fetched when the iteration reaches it."""
        cursor: Optional[str] = None
        while True:
            page = self.webhook_deliveries_page(webhook_id, status=status, limit=limit, cursor=cursor)
            yield from page.data
            if page.next_cursor is None:
                return
            if page.next_cursor == cursor:
                raise stuck_cursor(cursor)
            cursor = page.next_cursor

    def redeliver_webhook_delivery(self, webhook_id: str, delivery_id: str) -> Delivery:
        """POST /webhooks/{id}/deliveries/{delivery_id}/redeliver: send a finished delivery again, now."""
        path = f"{_webhook_path(webhook_id)}/deliveries/{urllib.parse.quote(delivery_id, safe='')}/redeliver"
        return self._call("POST", path, {}, models.parse_delivery)

    def create_export(self, *, dataset: Literal["daily", "posts", "accounts"], format: Optional[Literal["parquet", "csv", "ndjson"]] = None,
                      compression: Optional[Literal["gzip", "none", "zstd", "snappy"]] = None, since: Optional[DateLike] = None,
                      until: Optional[DateLike] = None, brand_id: Optional[IdList] = None, account_id: Optional[IdList] = None,
                      platform: Optional[Words] = None, changed_since_cursor: Optional[str] = None) -> ExportJob:
        """POST /exports: queue a bulk export (the job comes back ``queued``); see wait_export."""
        body: Dict[str, Any] = {"dataset": dataset}
        for name, value in (("format", format), ("compression", compression), ("changed_since_cursor", changed_since_cursor)):
            if value is not None:
                body[name] = value
        if since is not None:
            body["since"] = _date_text(since)
        if until is not None:
            body["until"] = _date_text(until)
        if brand_id is not None:
            body["brand_id"] = _ids(brand_id)
        if account_id is not None:
            body["account_id"] = _ids(account_id)
        if platform is not None:
            body["platform"] = _words(platform)
        return self._call("POST", "/exports", {}, models.parse_export_job, body)

    def exports_page(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> ExportList:
        """GET /exports: one page of your export jobs, newest first."""
        return self._get("/exports", {"limit": limit, "cursor": cursor}, models.parse_export_list)

    def exports(self, *, page_size: Optional[int] = None) -> Iterator[ExportJob]:
        """Every export job, newest first, page after page."""
        cursor: Optional[str] = None
        while True:
            page = self.exports_page(limit=page_size, cursor=cursor)
            yield from page.data
            if page.next_cursor is None:
                return
            if page.next_cursor == cursor:
                raise stuck_cursor(cursor)
            cursor = page.next_cursor

    def export(self, export_id: str) -> ExportJob:
        """GET /exports/{id}: the job, its status, progress, error or files."""
        return self._get(_export_path(export_id), {}, models.parse_export_job)

    def cancel_export(self, export_id: str) -> Optional[ExportJob]:
        """DELETE /exports/{id}: a queued or running job is cancelled (the job returned, ``cancelled``);
        a finished one is removed with its files (None)."""
        answer = self._session.call("DELETE", _export_path(export_id), {})
        if answer is not None:
            return self._session.parsed("DELETE", _export_path(export_id), answer, models.parse_export_job)
        return None

    def wait_export(self, export_id: str, *, poll_interval: float = 2.0, timeout: float = 3600.0,
                    on_progress: Optional[Callable[[ExportJob], None]] = None) -> ExportJob:
        """Ask every ``poll_interval`` seconds until the job is succeeded, failed or cancelled and
        return it; ``on_progress`` sees each answer. Bounded: after ``timeout`` seconds raises
        ExportWaitTimeout holding the job as last seen."""
        deadline = time.monotonic() + timeout
        while True:
            job = self.export(export_id)
            if on_progress is not None:
                on_progress(job)
            if job.status in ("succeeded", "failed", "cancelled"):
                return job
            left = deadline - time.monotonic()
            if left <= 0:
                raise ExportWaitTimeout(job)
            time.sleep(min(left, poll_interval))

    def export_manifest(self, export_id: str) -> ExportManifest:
        """GET /exports/{id}/manifest: files, schema, sync id and the change-feed cursor to follow from."""
        return self._get(_export_path(export_id) + "/manifest", {}, models.parse_export_manifest)

    def download_export_file(self, export_id: str, name: str, path: str, *, resume: bool = True) -> int:
        """Save one file of a succeeded export at ``path``, verified against the manifest's SHA-256
        (ExportFileMismatch). The bytes go to ``path + ".part"`` first; with ``resume`` an earlier,
        interrupted download's ``.part`` is continued (Range with If-Range, so a different file is
        never appended). Returns the bytes that were already there and not asked again."""
        manifest = self.export_manifest(export_id)
        found = [file for file in manifest.files if file["name"] == name]
        if not found:
            raise ValueError(f"export {export_id} has no file {name!r}")
        file = found[0]
        if os.path.exists(path) and os.path.getsize(path) == file["bytes"] and _sha256_of(path) == file["sha256"]:
            return file["bytes"]
        partial = path + ".part"
        have = os.path.getsize(partial) if resume and os.path.exists(partial) else 0
        if have > file["bytes"]:
            have = 0
        kept = have
        if have < file["bytes"]:
            headers = {"range": f"bytes={have}-", "if-range": f'"{file["sha256"]}"'} if have > 0 else {}
            response = self._session.fetch_bytes(f"{_export_path(export_id)}/files/{urllib.parse.quote(name, safe='')}", headers)
            append = response.status == 206
            kept = have if append else 0
            with open(partial, "ab" if append else "wb") as handle:
                handle.write(response.body)
        actual = _sha256_of(partial)
        if actual != file["sha256"]:
            os.remove(partial)
            raise ExportFileMismatch(name, file["sha256"], actual)
        os.replace(partial, path)
        return kept

    def download_export(self, export_id: str, directory: str) -> ExportManifest:
        """Save every file of a succeeded export into ``directory`` (each verified and resumable);
        returns the manifest (its ``changes_cursor`` is where to follow the change feed from)."""
        manifest = self.export_manifest(export_id)
        os.makedirs(directory, exist_ok=True)
        for file in manifest.files:
            self.download_export_file(export_id, file["name"], os.path.join(directory, file["name"]))
        return manifest

    # -------------------------------------------------------------------------------------------

    def _call(self, method: str, path: str, query: Dict[str, Any], parse: Callable[[Any], T],
              body: Optional[Dict[str, Any]] = None) -> T:
        return self._session.parsed(method, path, self._session.call(method, path, query, json_body=body), parse)

    def _get(self, path: str, query: dict[str, Any], parse: Callable[[Any], T]) -> T:
        return self._session.parsed("GET", path, self._session.get(path, query), parse)

    def _public(self, path: str, parse: Callable[[Any], T], accept: Optional[Callable[[int], bool]] = None) -> T:
        """A GET that needs no token (and sends none)."""
        answer = self._session.send("GET", path, {}) if accept is None else self._session.send("GET", path, {}, accept=accept)
        return self._session.parsed("GET", path, answer, parse)
