"""The types follow the API's OpenAPI document: the checked-in models are what the generator makes
of packages/client/openapi.json today, every route of the document has its method, and every
method takes exactly the query parameters its route declares."""

from __future__ import annotations

import datetime as dt
import inspect
import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any, Callable, Dict, List, Set

import pytest

from partner_analytics import Client, models
from partner_analytics._convert import AnswerMismatch, to_date, to_datetime, to_decimal

PACKAGE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PACKAGE / "scripts"))
import generate_models  # noqa: E402

# The client's method for each operation of the document (the one-page method where there are pages).
METHODS = {"getHealth": "health", "getHealthLive": "health_live", "getHealthReady": "health_ready", "login": "login", "getMe": "me",
           "getAnalytics": "analytics", "listPosts": "posts_page", "getDataStatus": "data_status", "getMetricCatalog": "metric_catalog",
           "listChanges": "changes_page", "createWebhook": "create_webhook", "listWebhooks": "webhooks", "getWebhook": "webhook",
           "updateWebhook": "update_webhook", "deleteWebhook": "delete_webhook", "rotateWebhookSecret": "rotate_webhook_secret",
           "testWebhook": "test_webhook", "listWebhookDeliveries": "webhook_deliveries_page",
           "redeliverWebhookDelivery": "redeliver_webhook_delivery", "createExport": "create_export", "listExports": "exports_page",
           "getExport": "export", "deleteExport": "cancel_export", "getExportManifest": "export_manifest",
           "downloadExportFile": "download_export_file", "runReport": "report"}
# Operations the client serves with another operation's method: GET /reports is the request of POST
# /reports in a query string, and report() sends it as POST.
SAME_AS = {"getReport": "runReport"}
# Body members the client takes flattened: report()'s scope is the members of `filters`.
FLATTENED = {"runReport": ("filters", {"brand_id", "account_id", "platform"})}
# Path parameters are positional arguments named after what they identify.
PATH_ARGUMENTS = {"id": "webhook_id", "delivery_id": "delivery_id"}
EXPORT_PATH_ARGUMENTS = {"id": "export_id", "name": "name"}
# Arguments a method takes beyond what the document declares: where a downloaded file goes.
EXTRA_ARGUMENTS = {"downloadExportFile": {"path", "resume"}}


def parameters(method_name: str) -> Set[str]:
    signature = inspect.signature(getattr(Client, method_name))
    return {name for name, parameter in signature.parameters.items() if name != "self"}


def declared_arguments(operation_id: str) -> Set[str]:
    """What the document lets a caller send to the operation: its query parameters, its path
    parameters (by the client's names) and the members of its JSON body; the login's body is the
    client's key pair, given once to Client."""
    document = json.loads(generate_models.DOCUMENT.read_text(encoding="utf-8"))
    for path, item in document["paths"].items():
        for operation in item.values():
            if operation.get("operationId") != operation_id:
                continue
            path_arguments = EXPORT_PATH_ARGUMENTS if path.startswith("/exports") else PATH_ARGUMENTS
            names = {path_arguments[parameter["name"]] if parameter["in"] == "path" else parameter["name"]
                     for parameter in operation.get("parameters", [])} | EXTRA_ARGUMENTS.get(operation_id, set())
            if operation_id != "login":
                body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
                names |= set(body.get("properties", {}))
            if operation_id in FLATTENED:
                member, members = FLATTENED[operation_id]
                names = (names - {member}) | members
            return names
    raise AssertionError(f"no operation {operation_id} in the document")


def test_models_match_a_fresh_generation_from_the_document() -> None:
    fresh = generate_models.generate()
    current = (PACKAGE / "partner_analytics" / "models.py").read_text(encoding="utf-8")
    assert current == fresh, "partner_analytics/models.py is stale: run npm run generate -w @partner-analytics/client"
    check = subprocess.run([sys.executable, str(PACKAGE / "scripts" / "generate_models.py"), "--check"], capture_output=True, text=True, timeout=60)
    assert (check.returncode, check.stderr) == (0, "")


def test_the_generator_refuses_a_stale_module(tmp_path: Path) -> None:
    document = json.loads(generate_models.DOCUMENT.read_text(encoding="utf-8"))
    document["components"]["schemas"]["Token"]["properties"]["scope"] = {"type": "string"}
    changed = tmp_path / "openapi.json"
    changed.write_text(json.dumps(document), encoding="utf-8")
    check = subprocess.run([sys.executable, str(PACKAGE / "scripts" / "generate_models.py"), "--check", "--document", str(changed)],
                           capture_output=True, text=True, timeout=60)
    assert check.returncode == 1 and "models.py is stale" in check.stderr
    assert "    scope: Optional[str] = None" in generate_models.generate(changed)


def test_every_route_of_the_document_has_its_method_with_its_parameters() -> None:
    served = set(METHODS) | set(SAME_AS)
    assert set(models.OPERATIONS) <= served, f"operations without a method of the Python client: {sorted(set(models.OPERATIONS) - served)}"
    for operation_id, operation in models.OPERATIONS.items():
        assert set(operation.parameters) <= declared_arguments(operation_id), operation_id
        if operation_id in SAME_AS:
            assert SAME_AS[operation_id] in models.OPERATIONS, operation_id
            continue
        assert parameters(METHODS[operation_id]) == declared_arguments(operation_id), operation_id


def test_the_iterators_take_the_same_parameters_but_the_cursor() -> None:
    analytics = set(models.OPERATIONS["getAnalytics"].parameters)
    posts = set(models.OPERATIONS["listPosts"].parameters)
    assert parameters("daily_page") == analytics - {"type"}
    assert parameters("daily") == parameters("monthly") == parameters("agg") == analytics - {"type", "cursor"}
    assert parameters("posts") == posts - {"cursor"}
    assert parameters("account_statuses") == set(models.OPERATIONS["getDataStatus"].parameters) - {"cursor"}
    assert parameters("changes") == set(models.OPERATIONS["listChanges"].parameters)
    assert parameters("brands") == {"page_size"}
    assert parameters("webhook_deliveries") == parameters("webhook_deliveries_page") - {"cursor"}


def document_with(change: Callable[[Dict[str, Any]], None], tmp_path: Path) -> Path:
    """The current document, changed by `change`, written to a file of its own."""
    document: Dict[str, Any] = json.loads(generate_models.DOCUMENT.read_text(encoding="utf-8"))
    change(document)
    path = tmp_path / "openapi.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def query_parameter(document: Dict[str, Any], path: str, name: str) -> Dict[str, Any]:
    found: Dict[str, Any] = next(item for item in document["paths"][path]["get"]["parameters"] if item["name"] == name)
    return found


def test_a_closed_set_of_words_is_named_after_its_title_else_its_parameter(tmp_path: Path) -> None:
    # `type` is a report type on /analytics/ and an event type on /changes: each set has its own name.
    assert models.OPERATIONS["getAnalytics"].parameters[0] == models.OPERATIONS["listChanges"].parameters[3] == "type"
    text = generate_models.generate()
    assert 'ReportType = Literal["daily", "agg", "monthly"]' in text
    assert 'EventType = Literal["analytics.updated", "posts.updated", "brand.updated", "account.updated", "access.granted", "access.revoked"]' in text
    assert 'Start = Literal["latest"]' in text and 'Include = Literal["status"]' in text and "\nType = " not in text

    def untitled(document: Dict[str, Any]) -> None:
        del query_parameter(document, "/analytics/", "type")["schema"]["title"]
        del query_parameter(document, "/changes", "type")["schema"]["items"]["title"]
    with pytest.raises(SystemExit) as refused:
        generate_models.generate(document_with(untitled, tmp_path))
    assert str(refused.value) == ("Type: GET /analytics/ type and GET /changes type accept different words under one name; "
                                  "give one of them a title in the service's schema (the name of its set of words)")

    def same_words(document: Dict[str, Any]) -> None:
        # One set under two parameter names, in another order: still one alias.
        query_parameter(document, "/changes", "type")["schema"]["items"] = {"type": "string", "enum": ["monthly", "daily", "agg"], "title": "report type"}
    assert generate_models.generate(document_with(same_words, tmp_path)).count("ReportType = ") == 1


def test_a_union_of_objects_is_parsed_by_the_member_that_tells_them_apart(tmp_path: Path) -> None:
    raw = {"id": "evt_7", "type": "analytics.updated", "created_at": "2026-11-25T10:00:00Z", "sync_id": 3,
           "data": {"brand_id": 4, "accounts": [{"platform": "fb", "account_id": 40, "dates": [{"since": "2026-11-01", "until": "2026-11-03"}]}]}}
    event = models.parse_change_event(raw)
    assert event["type"] == "analytics.updated"
    assert event["data"]["accounts"][0]["dates"] == [{"since": dt.date(2026, 11, 1), "until": dt.date(2026, 11, 3)}]
    assert event["created_at"] == dt.datetime(2026, 11, 25, 10, tzinfo=dt.timezone.utc)
    # A type this version does not know: handed over, with the members every event shares converted.
    newer = models.parse_change_event({**raw, "type": "invoice.paid", "data": {"amount": Decimal("1.50")}})
    assert dict(newer) == {**raw, "type": "invoice.paid", "data": {"amount": Decimal("1.50")},
                           "created_at": dt.datetime(2026, 11, 25, 10, tzinfo=dt.timezone.utc)}
    with pytest.raises(AnswerMismatch, match="ChangeEvent: missing created_at"):
        models.parse_change_event({"id": "evt_8", "type": "invoice.paid", "sync_id": None})

    def ambiguous(document: Dict[str, Any]) -> None:
        document["components"]["schemas"]["AccessRevokedEvent"]["properties"]["type"] = {"const": "access.granted", "type": "string"}
    with pytest.raises(SystemExit, match="ChangeEvent: no member holds a different constant in each of its options"):
        generate_models.generate(document_with(ambiguous, tmp_path))


def test_objects_declared_inline_and_maps() -> None:
    text = generate_models.generate()
    # The items of a list are named after the list, with Item; a map's values are typed.
    assert "    accounts: List[AnalyticsUpdatedDataAccountsItem]" in text
    assert "    denominator_by_platform: Dict[str, str]" in text
    catalog = models.parse_metric_catalog(json.loads(json.dumps({"total": 1, "data": [{
        "name": "revenue", "label": "Revenue", "description": "d", "unit": "currency", "decimals": 2, "platforms": ["fb"],
        "reports": ["daily"], "combine": {"over_days": "sum", "over_accounts": "sum"}, "ratio_of": None, "same_as": None,
        "derived": False, "none_reported": {"daily": 0, "monthly": 0.5, "agg": None},
        "kind": "flow", "additive": {"over_days": True, "over_accounts": True}}]}), parse_float=Decimal))
    none = catalog.data[0]["none_reported"]
    assert none == {"daily": Decimal(0), "monthly": Decimal("0.5"), "agg": None} and isinstance(none["daily"], Decimal)
    assert catalog.data[0]["kind"] == "flow" and catalog.data[0]["additive"] == {"over_days": True, "over_accounts": True}


def test_conversions() -> None:
    assert to_date("2026-02-28") == dt.date(2026, 2, 28)
    assert to_datetime("2026-11-21T12:00:00Z") == dt.datetime(2026, 11, 21, 12, tzinfo=dt.timezone.utc)
    assert to_datetime("2026-11-21T13:00:00.5+01:00") == dt.datetime(2026, 11, 21, 12, 0, 0, 500000, tzinfo=dt.timezone.utc)
    assert to_decimal(0) == Decimal(0) and isinstance(to_decimal(0), Decimal)
    refused: List[Callable[[], object]] = [lambda: to_date("2026-02-30"), lambda: to_datetime("2026-11-21 12:00:00"),
                                           lambda: to_decimal(True), lambda: to_decimal("1.5")]
    for bad in refused:
        with pytest.raises(AnswerMismatch):
            bad()


def test_numbers_stay_exact() -> None:
    raw = json.loads('{"revenue": 0.1, "views": 12345678901234567890, "followers": 1, "new_followers": 0, "posts_count": 0,'
                     ' "posts_per_day": 0, "interactions": 0, "engagement_rate": 0.000001, "interaction_rate": 0.000001, "date": "2026-01-01"}',
                     parse_float=Decimal)
    entry = models.parse_daily_entry(raw)
    assert entry["revenue"] == Decimal("0.1") and entry["engagement_rate"] == Decimal("0.000001")
    assert entry["views"] == 12345678901234567890 and entry["date"] == dt.date(2026, 1, 1)
    assert list(entry) == list(raw), "the JSON's members, in its order"
