"""The feed iterator's cursor handling, against a stand-in that follows the feed's wire contract
to the letter (the service's own /changes is tested in test_changes_live.py): pages while
has_more, the cursor handed back only for events handed out, start=latest, CURSOR_EXPIRED."""

from __future__ import annotations

import datetime as dt
import json
import threading
import urllib.parse
from typing import Any, Dict, List, Tuple

import pytest

from fakes import api_error, http_server
from partner_analytics import ChangesPage, Client, CursorExpiredError, ServerError


class Feed:
    """GET /changes over a list of events; the cursor is "c<position>"; "expired" is too old."""

    def __init__(self, count: int) -> None:
        self.events: List[Dict[str, Any]] = [self.event(number) for number in range(1, count + 1)]
        self.queries: List[Dict[str, str]] = []
        self.lock = threading.Lock()
        self.stuck = False

    @staticmethod
    def event(number: int) -> Dict[str, Any]:
        return {"id": f"evt_{number}", "type": "access.granted" if number % 2 else "brand.updated", "created_at": "2026-11-25T10:00:00Z",
                "sync_id": None if number % 2 else number, "data": {"brand_id": number} if number % 2 else {"brand_id": number, "brand_name": f"B{number}", "change": "created"}}

    def __call__(self, handler: Any) -> Tuple[int, Dict[str, str], bytes]:
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(handler.path).query))
        with self.lock:
            self.queries.append(query)
            if query.get("cursor") == "expired":
                return 410, {"content-type": "application/json"}, api_error(410, "CURSOR_EXPIRED", "The cursor is older than the retention; resynchronise")
            head = len(self.events)
            start = head if query.get("start") == "latest" else int(query.get("cursor", "c0")[1:])
            limit = int(query.get("limit", "50"))
            page = self.events[start:start + limit]
            following = start if self.stuck else start + len(page)
            body = {"data": page, "has_more": following < head, "next_cursor": f"c{following}"}
        return 200, {"content-type": "application/json"}, json.dumps(body).encode()


def client_of(url: str) -> Client:
    return Client(url, "pak_x", "pas_x", access_token="a.b.c")


def test_walks_every_page_and_hands_back_the_cursor() -> None:
    feed = Feed(5)
    with http_server(feed) as (url, _):
        changes = client_of(url).changes(limit=2, brand_id=[1, 2], type=["access.granted", "brand.updated"])
        assert changes.cursor is None
        events = list(changes)
    assert [event["id"] for event in events] == ["evt_1", "evt_2", "evt_3", "evt_4", "evt_5"]
    assert changes.cursor == "c5"
    # Every page asked with the same filters, each after the previous page's cursor.
    assert [query.get("cursor") for query in feed.queries] == [None, "c2", "c4"]
    assert all((query["brand_id"], query["type"], query["limit"]) == ("1,2", "access.granted,brand.updated", "2") for query in feed.queries)
    assert events[0]["created_at"] == dt.datetime(2026, 11, 25, 10, tzinfo=dt.timezone.utc)
    assert events[1]["type"] == "brand.updated" and events[1]["sync_id"] == 2


def test_a_page_left_halfway_is_read_again_from_the_stored_cursor() -> None:
    feed = Feed(5)
    with http_server(feed) as (url, _):
        client = client_of(url)
        changes = client.changes("c0", limit=2)
        seen = []
        for event in changes:
            seen.append(event["id"])
            if event["id"] == "evt_3":
                break  # e.g. the caller failed on evt_3
        # evt_1 and evt_2 were handled (the caller came back for more after them); evt_3's page was not.
        assert seen == ["evt_1", "evt_2", "evt_3"] and changes.cursor == "c2"
        assert [event["id"] for event in client.changes(changes.cursor, limit=2)] == ["evt_3", "evt_4", "evt_5"]


def test_iterating_again_continues_from_where_it_stopped() -> None:
    feed = Feed(3)
    with http_server(feed) as (url, _):
        changes = client_of(url).changes(start="latest")
        assert list(changes) == [] and changes.cursor == "c3"
        assert feed.queries[0].get("start") == "latest"
        with feed.lock:
            feed.events += [Feed.event(4), Feed.event(5)]
        assert [event["id"] for event in changes] == ["evt_4", "evt_5"]
        assert changes.cursor == "c5" and "start" not in feed.queries[-1]


def test_pages_for_batch_processing() -> None:
    feed = Feed(5)
    with http_server(feed) as (url, _):
        client = client_of(url)
        pages = list(client.changes(limit=3).pages())
        assert [(len(page.data), page.has_more, page.next_cursor) for page in pages] == [(3, True, "c3"), (2, False, "c5")]
        page = client.changes_page(cursor="c5")
        assert page == ChangesPage(data=[], has_more=False, next_cursor="c5")


def test_an_expired_cursor_raises_cursor_expired() -> None:
    with http_server(Feed(1)) as (url, _):
        with pytest.raises(CursorExpiredError) as caught:
            list(client_of(url).changes("expired"))
    assert (caught.value.status, caught.value.code) == (410, "CURSOR_EXPIRED")


def test_guards() -> None:
    feed = Feed(5)
    feed.stuck = True
    with http_server(feed) as (url, _):
        with pytest.raises(ServerError, match="handed back the cursor it was given"):
            list(client_of(url).changes("c1", limit=1))
        with pytest.raises(ValueError, match="a cursor or start='latest', not both"):
            client_of(url).changes("c1", start="latest")
