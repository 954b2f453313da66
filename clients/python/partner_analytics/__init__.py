"""Python client of the Partner Analytics API.

    from partner_analytics import Client
    client = Client()  # PA_BASE_URL, PA_API_CLIENT_KEY, PA_API_SECRET_KEY from the environment
    for entry in client.daily(since=date(2026, 11, 1), until=date(2026, 11, 20), platform=["fb", "ig"]):
        print(entry["date"], entry["views"])

Standard library only; ``to_pandas()`` needs the ``pandas`` extra and imports it only when called.
The manual: docs/client-python.md in the repository.
"""

from ._session import RetryEvent, RetryPolicy, backoff_delay
from ._transport import HttpRequest, HttpResponse, Transport, UrllibTransport
from ._version import __version__
from .client import DEFAULT_TIMEOUT, Client, ExportFileMismatch, ExportWaitTimeout
from .errors import (
    AuthenticationError, BadRequestError, ConflictError, CursorExpiredError, ForbiddenError, InternalServerError, InvalidCredentialsError,
    MethodNotAllowedError, NetworkError, NotFoundError, PartnerAnalyticsError, PermissionDeniedError, RateLimitError,
    ServerError, ServiceUnavailableError, TokenExpiredError, TokenInvalidError, TooManyAttemptsError, UserDisabledError,
    ValidationError,
)
from .feed import Feed
from .models import (
    AccessGrantedEvent, AccessRevokedEvent, AccountStatus, AccountUpdatedEvent, AggEntry, AggReport, AggregateFigures,
    AnalyticsUpdatedEvent, Brand, BrandUpdatedEvent, ChangeEvent, ChangesPage, DailyEntry, DailyReport, DataStatusPage, DateRange,
    EventType, Health, Liveness, Me, MetricCatalog, MetricCounts, MetricDescription, MonthlyEntry, MonthlyReport, Post, PostsPage,
    PostsUpdatedEvent, Readiness, Token, Webhook, WebhookWithSecret, WebhookList, Delivery, DeliveryAttempt, DeliveryPage,
    DeliveryStatus,
)
from .paging import Pages
from .webhooks import Event, ExportCompletedEvent, WebhookTestEvent, WebhookVerificationError, verify_webhook

__all__ = [
    "__version__", "Client", "DEFAULT_TIMEOUT", "ExportFileMismatch", "ExportWaitTimeout", "RetryPolicy", "RetryEvent", "backoff_delay",
    "HttpRequest", "HttpResponse", "Transport", "UrllibTransport", "Pages", "Feed",
    "verify_webhook", "WebhookVerificationError", "Event", "WebhookTestEvent", "ExportCompletedEvent",
    "Health", "Liveness", "Readiness", "Token", "Me", "Brand", "DailyReport", "DailyEntry", "MonthlyReport", "MonthlyEntry",
    "AggReport", "AggEntry", "AggregateFigures", "MetricCounts", "PostsPage", "Post", "DataStatusPage", "AccountStatus", "DateRange",
    "MetricCatalog", "MetricDescription", "ChangesPage", "ChangeEvent", "EventType", "AnalyticsUpdatedEvent", "PostsUpdatedEvent",
    "BrandUpdatedEvent", "AccountUpdatedEvent", "AccessGrantedEvent", "AccessRevokedEvent",
    "Webhook", "WebhookWithSecret", "WebhookList", "Delivery", "DeliveryAttempt", "DeliveryPage", "DeliveryStatus",
    "PartnerAnalyticsError", "BadRequestError", "AuthenticationError", "InvalidCredentialsError", "TokenInvalidError",
    "TokenExpiredError", "TooManyAttemptsError", "PermissionDeniedError", "UserDisabledError", "ForbiddenError",
    "NotFoundError", "MethodNotAllowedError", "ConflictError", "CursorExpiredError", "ValidationError", "RateLimitError", "ServerError",
    "InternalServerError", "ServiceUnavailableError", "NetworkError",
]
