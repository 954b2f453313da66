"""Verifying webhook deliveries (the Standard Webhooks scheme).

Every delivery carries ``webhook-id`` (the event id), ``webhook-timestamp`` (Unix seconds) and
``webhook-signature``: space-separated ``v1,<base64 of HMAC-SHA256>``, two of them during the 24 h
after a secret rotation. The secret is ``whsec_`` + base64 of the key; the signed content is
``{webhook-id}.{webhook-timestamp}.{raw body}``. A delivery is genuine when any ``v1`` signature
matches and the timestamp is within ``tolerance`` seconds of now.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from decimal import Decimal
from typing import List, Mapping, Optional, Union

from ._convert import AnswerMismatch, record
from .models import ExportCompletedData, ExportCompletedEvent, WebhookEvent, WebhookTestData, WebhookTestEvent, parse_webhook_event

__all__ = ["Event", "ExportCompletedData", "ExportCompletedEvent", "WebhookTestData", "WebhookTestEvent", "WebhookVerificationError", "parse_event", "verify_webhook"]

_PREFIX = "whsec_"


#: What a delivery carries: an event of the feed, or a webhook test (generated from the document).
Event = WebhookEvent


def parse_event(raw: object) -> Event:
    """One delivered event from its decoded JSON (see models.parse_webhook_event)."""
    return parse_webhook_event(record(raw, "Event", ("id", "type", "created_at", "sync_id", "data")))


class WebhookVerificationError(ValueError):
    """The delivery is not proven genuine: answer it with 400 and do not act on it."""


def _header(headers: Mapping[str, str], name: str) -> str:
    # Frameworks spell header names differently (Webhook-Id, HTTP_WEBHOOK_ID…): compare loosely.
    wanted = name.lower()
    for key, value in headers.items():
        if key.lower().replace("_", "-") in (wanted, "http-" + wanted):
            return value
    raise WebhookVerificationError(f"missing header {name}")


def _key(secret: str) -> bytes:
    encoded = secret[len(_PREFIX):] if secret.startswith(_PREFIX) else secret
    try:
        key = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("the webhook secret is not whsec_ followed by base64") from None
    if not key:
        raise ValueError("the webhook secret is empty")
    return key


def _signatures(header: str) -> List[bytes]:
    found = []
    for item in header.split():
        version, _, encoded = item.partition(",")
        if version != "v1":
            continue
        try:
            found.append(base64.b64decode(encoded, validate=True))
        except (binascii.Error, ValueError):
            continue
    return found


def verify_webhook(secret: str, headers: Mapping[str, str], raw_body: Union[bytes, str], tolerance: int = 300,
                   *, now: Optional[float] = None) -> Event:
    """The delivery's event, once its signature and timestamp are verified.

    ``headers``: the request's headers, any mapping (names compared case-insensitively).
    ``raw_body``: the body exactly as received, before any JSON parsing (bytes, or str as UTF-8).
    ``tolerance``: seconds the timestamp may be from now, either way (default 300).
    ``now``: the current Unix time, for tests; the clock by default.
    Raises ``WebhookVerificationError`` when a header is missing, the timestamp is malformed or
    outside the window, or no signature matches. Deduplicate the events by ``id``: a delivery may
    arrive more than once.
    """
    if not isinstance(raw_body, (bytes, str)):
        raise TypeError("raw_body must be the body as received (bytes or str), not parsed JSON")
    body = raw_body.encode("utf-8") if isinstance(raw_body, str) else raw_body
    key = _key(secret)
    message_id = _header(headers, "webhook-id")
    stamp = _header(headers, "webhook-timestamp").strip()
    signature_header = _header(headers, "webhook-signature")
    if not (stamp.isascii() and stamp.isdigit()):
        raise WebhookVerificationError(f"webhook-timestamp is not Unix seconds ({stamp!r})")
    offset = (time.time() if now is None else now) - int(stamp)
    if offset > tolerance:
        raise WebhookVerificationError(f"webhook-timestamp is {int(offset)} s old, more than the {tolerance} s tolerated")
    if -offset > tolerance:
        raise WebhookVerificationError(f"webhook-timestamp is {int(-offset)} s ahead, more than the {tolerance} s tolerated")
    expected = hmac.new(key, message_id.encode("utf-8") + b"." + stamp.encode("ascii") + b"." + body, hashlib.sha256).digest()
    # Every signature is compared, in constant time, so the time taken does not say which one came close.
    matched = False
    for candidate in _signatures(signature_header):
        matched = hmac.compare_digest(expected, candidate) or matched
    if not matched:
        raise WebhookVerificationError("no webhook-signature matches")
    try:
        event = parse_event(json.loads(body.decode("utf-8"), parse_float=Decimal))
    except (UnicodeDecodeError, ValueError, AnswerMismatch) as problem:
        raise WebhookVerificationError(f"the signed body is not an event ({problem})") from problem
    if event["id"] != message_id:
        raise WebhookVerificationError(f"webhook-id {message_id!r} is not the event's id {event['id']!r}")
    return event
