"""verify_webhook against an independent signer: Node's own crypto computes every signature here,
following the Standard Webhooks scheme of the feed contract, so the test does not share a line
of code (or a language) with the verifier."""

from __future__ import annotations

import base64
import datetime as dt
import json
import subprocess
import time
from typing import Dict, List

import pytest

from partner_analytics import WebhookVerificationError, verify_webhook
from servers import NODE, base_env

SIGNER = r"""
const crypto = require('node:crypto')
const { secret, id, timestamp, body } = JSON.parse(process.argv[1])
const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
process.stdout.write(crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64'))
"""

SECRET = "whsec_" + base64.b64encode(b"k" * 24 + bytes(range(8))).decode()
OLD_SECRET = "whsec_" + base64.b64encode(b"old secret, rotated yesterday").decode()
NOW = 1_795_000_000

EVENT = {
    "id": "evt_1042", "type": "analytics.updated", "created_at": "2026-11-25T10:00:00Z", "sync_id": 17,
    "data": {"brand_id": 4, "accounts": [{"platform": "fb", "account_id": 40,
                                          "dates": [{"since": "2026-11-01", "until": "2026-11-03"}, {"since": "2026-11-05", "until": "2026-11-05"}]}]},
}
BODY = json.dumps(EVENT, separators=(",", ":"))


def sign(secret: str, message_id: str, timestamp: int, body: str) -> str:
    done = subprocess.run([NODE, "-e", SIGNER, json.dumps({"secret": secret, "id": message_id, "timestamp": str(timestamp), "body": body})],
                          env=base_env(), capture_output=True, text=True, timeout=60, check=True)
    return done.stdout


def delivery(signatures: List[str], timestamp: int = NOW, message_id: str = "evt_1042") -> Dict[str, str]:
    return {"webhook-id": message_id, "webhook-timestamp": str(timestamp), "webhook-signature": " ".join(signatures)}


def test_a_genuine_delivery_gives_its_event() -> None:
    headers = delivery([f"v1,{sign(SECRET, 'evt_1042', NOW, BODY)}"])
    event = verify_webhook(SECRET, headers, BODY.encode(), now=NOW)
    assert event["id"] == "evt_1042" and event["sync_id"] == 17
    assert event["created_at"] == dt.datetime(2026, 11, 25, 10, 0, tzinfo=dt.timezone.utc)
    assert event["type"] == "analytics.updated"
    if event["type"] == "analytics.updated":
        assert event["data"]["accounts"][0]["dates"] == [{"since": dt.date(2026, 11, 1), "until": dt.date(2026, 11, 3)},
                                                         {"since": dt.date(2026, 11, 5), "until": dt.date(2026, 11, 5)}]
    # The secret without its whsec_ prefix works too (some dashboards show only the base64).
    assert verify_webhook(SECRET[len("whsec_"):], headers, BODY, now=NOW)["id"] == "evt_1042"
    # The same as str, and with the clock of now (a delivery signed 10 s ago).
    recent = int(time.time()) - 10
    assert verify_webhook(SECRET, delivery([f"v1,{sign(SECRET, 'evt_1042', recent, BODY)}"], recent), BODY)["id"] == "evt_1042"


def test_every_signature_of_the_header_is_tried_during_a_rotation() -> None:
    both = delivery([f"v1,{sign(OLD_SECRET, 'evt_1042', NOW, BODY)}", f"v1,{sign(SECRET, 'evt_1042', NOW, BODY)}"])
    assert verify_webhook(SECRET, both, BODY, now=NOW)["id"] == "evt_1042"
    assert verify_webhook(OLD_SECRET, both, BODY, now=NOW)["id"] == "evt_1042"
    other = "whsec_" + base64.b64encode(b"someone else").decode()
    with pytest.raises(WebhookVerificationError, match="^no webhook-signature matches$"):
        verify_webhook(other, both, BODY, now=NOW)


def test_anything_changed_is_refused() -> None:
    signature = f"v1,{sign(SECRET, 'evt_1042', NOW, BODY)}"
    tampered = BODY.replace('"brand_id":4', '"brand_id":5')
    for headers, body in [
        (delivery([signature]), tampered),
        (delivery([signature], message_id="evt_1043"), BODY),
        (delivery([signature], timestamp=NOW + 1), BODY),
        (delivery([signature.replace("v1,", "v2,")]), BODY),
        (delivery(["v1,not-base64!", "v1a," + signature[3:]]), BODY),
        (delivery([]), BODY),
    ]:
        with pytest.raises(WebhookVerificationError, match="^no webhook-signature matches$"):
            verify_webhook(SECRET, headers, body, now=NOW + 1)


def test_the_timestamp_must_be_within_the_tolerance_either_way() -> None:
    for offset, accepted in [(-299, True), (299, True), (-301, False), (301, False)]:
        stamp = NOW + offset
        headers = delivery([f"v1,{sign(SECRET, 'evt_1042', stamp, BODY)}"], timestamp=stamp)
        if accepted:
            assert verify_webhook(SECRET, headers, BODY, now=NOW)["id"] == "evt_1042"
        else:
            with pytest.raises(WebhookVerificationError, match="more than the 300 s tolerated"):
                verify_webhook(SECRET, headers, BODY, now=NOW)
    stamp = NOW - 1000
    headers = delivery([f"v1,{sign(SECRET, 'evt_1042', stamp, BODY)}"], timestamp=stamp)
    with pytest.raises(WebhookVerificationError, match=r"^webhook-timestamp is 1000 s old, more than the 300 s tolerated$"):
        verify_webhook(SECRET, headers, BODY, now=NOW)
    assert verify_webhook(SECRET, headers, BODY, tolerance=1000, now=NOW)["id"] == "evt_1042"


def test_headers_are_found_however_the_framework_spells_them() -> None:
    signature = f"v1,{sign(SECRET, 'evt_1042', NOW, BODY)}"
    for names in (("Webhook-Id", "Webhook-Timestamp", "Webhook-Signature"), ("HTTP_WEBHOOK_ID", "HTTP_WEBHOOK_TIMESTAMP", "HTTP_WEBHOOK_SIGNATURE")):
        headers = dict(zip(names, ("evt_1042", str(NOW), signature)))
        assert verify_webhook(SECRET, headers, BODY, now=NOW)["id"] == "evt_1042"


def test_malformed_deliveries_and_secrets() -> None:
    signature = f"v1,{sign(SECRET, 'evt_1042', NOW, BODY)}"
    with pytest.raises(WebhookVerificationError, match="^missing header webhook-signature$"):
        verify_webhook(SECRET, {"webhook-id": "evt_1042", "webhook-timestamp": str(NOW)}, BODY, now=NOW)
    with pytest.raises(WebhookVerificationError, match="webhook-timestamp is not Unix seconds"):
        verify_webhook(SECRET, {**delivery([signature]), "webhook-timestamp": "2026-11-25T10:00:00Z"}, BODY, now=NOW)
    with pytest.raises(TypeError, match="raw_body must be the body as received"):
        verify_webhook(SECRET, delivery([signature]), EVENT, now=NOW)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not whsec_ followed by base64"):
        verify_webhook("whsec_???", delivery([signature]), BODY, now=NOW)
    # Signed, but its id is not the header's: refused.
    other = BODY.replace("evt_1042", "evt_9")
    with pytest.raises(WebhookVerificationError, match="is not the event's id"):
        verify_webhook(SECRET, delivery([f"v1,{sign(SECRET, 'evt_1042', NOW, other)}"]), other, now=NOW)


def test_a_test_delivery_and_an_event_type_not_known_yet() -> None:
    for body in (json.dumps({"id": "evt_7", "type": "webhook.test", "created_at": "2026-11-25T10:00:00Z", "sync_id": None, "data": {"webhook_id": "wh_1"}}),
                 json.dumps({"id": "evt_7", "type": "brand.archived", "created_at": "2026-11-25T10:00:00Z", "sync_id": None, "data": {"brand_id": 4}})):
        event = verify_webhook(SECRET, delivery([f"v1,{sign(SECRET, 'evt_7', NOW, body)}"], message_id="evt_7"), body, now=NOW)
        assert event["data"] == json.loads(body)["data"] and event["sync_id"] is None
