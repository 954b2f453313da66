"""The webhook routes through the client's methods, on both stores: register an endpoint (a receiver
this test starts on 127.0.0.1), send it a test event, read and walk the delivery log, redeliver,
rotate the secret, pause it, and delete it. Every delivery that arrives is verified with
verify_webhook and the secret the client was given."""

from __future__ import annotations

import queue
import time
from typing import Dict, Iterator, Tuple

import pytest

from conftest import Api
from fakes import http_server
from partner_analytics import (
    ConflictError, Delivery, DeliveryPage, NotFoundError, ValidationError, Webhook, WebhookList, WebhookWithSecret, verify_webhook,
)

Received = Tuple[Dict[str, str], bytes]
WAIT = 30.0


class Receiver:
    """The deliveries a 127.0.0.1 endpoint received, in arrival order."""

    def __init__(self, url: str, arrived: "queue.Queue[Received]") -> None:
        self.url = url
        self._arrived = arrived

    def next(self) -> Received:
        try:
            return self._arrived.get(timeout=WAIT)
        except queue.Empty:
            raise AssertionError(f"no delivery reached {self.url} within {WAIT:g} s") from None


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    arrived: "queue.Queue[Received]" = queue.Queue()

    def record(handler: object) -> Tuple[int, Dict[str, str], bytes]:
        headers = {name.lower(): value for name, value in handler.headers.items()}  # type: ignore[attr-defined]
        arrived.put((headers, handler.body))  # type: ignore[attr-defined]
        return 204, {}, b""

    with http_server(record) as (base_url, _):
        yield Receiver(base_url + "/hooks", arrived)


def settled(client_call: "object", webhook_id: str) -> Webhook:
    """The webhook once no delivery of it is pending (the answers reached the service)."""
    deadline = time.monotonic() + WAIT
    while True:
        current: Webhook = client_call(webhook_id)  # type: ignore[operator]
        if current.pending_deliveries == 0:
            return current
        if time.monotonic() > deadline:
            raise AssertionError(f"{webhook_id} still has {current.pending_deliveries} pending deliveries after {WAIT:g} s")
        time.sleep(0.1)


def test_every_webhook_route_through_the_client(api: Api, receiver: Receiver) -> None:
    client = api.client(keys=api.user("1,2"))

    created = client.create_webhook(url=receiver.url, events=["analytics.updated", "posts.updated"], description="python tests")
    assert isinstance(created, WebhookWithSecret) and created.id.startswith("wh_") and created.secret.startswith("whsec_")
    assert (created.url, created.events, created.description, created.status, created.disabled_by, created.pending_deliveries) == (
        receiver.url, ["analytics.updated", "posts.updated"], "python tests", "enabled", None, 0)
    every_type = client.create_webhook(url=receiver.url)
    assert every_type.events == ["analytics.updated", "posts.updated", "brand.updated", "account.updated", "access.granted",
                                 "access.revoked"]
    assert every_type.description is None

    listed = client.webhooks()
    assert isinstance(listed, WebhookList) and [webhook.id for webhook in listed.data] == [created.id, every_type.id]
    shown = client.webhook(created.id)
    assert isinstance(shown, Webhook) and not hasattr(shown, "secret")
    assert (shown.id, shown.url, shown.events, shown.created_at) == (created.id, created.url, created.events, created.created_at)

    # A test event arrives signed with the secret the client was given.
    first = client.test_webhook(created.id)
    assert isinstance(first, Delivery) and first.id.startswith("dlv_")
    assert (first.event_type, first.status) == ("webhook.test", "pending")
    headers, body = receiver.next()
    assert headers["webhook-id"] == first.event_id
    event = verify_webhook(created.secret, headers, body)
    assert (event["id"], event["type"]) == (first.event_id, "webhook.test")
    settled(client.webhook, created.id)
    log = client.webhook_deliveries_page(created.id, status="succeeded")
    assert isinstance(log, DeliveryPage) and [delivery.id for delivery in log.data] == [first.id]
    attempt = log.data[0].attempts[0]
    assert (log.data[0].attempt_count, attempt["http_status"], attempt["error"]) == (1, 204, None)

    # A redelivery sends the same event again.
    again = client.redeliver_webhook_delivery(created.id, first.id)
    assert (again.id, again.event_id, again.status) == (first.id, first.event_id, "pending")
    headers, body = receiver.next()
    assert verify_webhook(created.secret, headers, body)["id"] == first.event_id
    settled(client.webhook, created.id)

    # After a rotation both secrets sign, for 24 hours.
    rotated = client.rotate_webhook_secret(created.id)
    assert rotated.secret.startswith("whsec_") and rotated.secret != created.secret
    assert rotated.previous_secret_expires_at is not None
    second = client.test_webhook(created.id)
    headers, body = receiver.next()
    assert len(headers["webhook-signature"].split(" ")) == 2
    assert verify_webhook(rotated.secret, headers, body)["id"] == verify_webhook(created.secret, headers, body)["id"] == second.event_id
    settled(client.webhook, created.id)

    # The log walked a delivery per page, newest first.
    assert [delivery.id for delivery in client.webhook_deliveries(created.id, limit=1)] == [second.id, first.id]
    assert [delivery.id for delivery in client.webhook_deliveries(created.id, status="failed")] == []

    # Paused by the partner: a test is refused with the typed 409; a blank description clears it.
    paused = client.update_webhook(created.id, description="", status="disabled")
    assert (paused.status, paused.disabled_by, paused.description, paused.events) == ("disabled", "partner", None, created.events)
    with pytest.raises(ConflictError) as refused:
        client.test_webhook(created.id)
    assert (refused.value.status, refused.value.code) == (409, "CONFLICT")
    resumed = client.update_webhook(created.id, events=["posts.updated"], status="enabled")
    assert (resumed.status, resumed.disabled_by, resumed.events) == ("enabled", None, ["posts.updated"])

    with pytest.raises(ValidationError) as invalid:
        client.update_webhook(created.id, url="ftp://127.0.0.1/hooks")
    assert invalid.value.status == 422

    client.delete_webhook(created.id)
    client.delete_webhook(every_type.id)
    with pytest.raises(NotFoundError) as gone:
        client.webhook(created.id)
    assert (gone.value.status, gone.value.code) == (404, "NOT_FOUND")
    assert client.webhooks().data == []


def test_an_id_is_kept_inside_its_path_segment(api: Api) -> None:
    client = api.client()
    with pytest.raises(NotFoundError):
        client.webhook("../me")
    with pytest.raises(NotFoundError):
        client.redeliver_webhook_delivery("wh_unknown", "dlv_1/../../x")
