"""client.changes() against the service's own GET /changes, on both stores: every event type parsed
into its generated type, paging, filters, 410 CURSOR_EXPIRED from a real purge, and the incremental
sync example of docs/client-python.md run around access changes and a changed range.

Access events come from `partner-analytics users grant/revoke`. The events an import emits
(analytics.updated, posts.updated, brand.updated, account.updated) are written into the store
through the change log's own storage API, numbered under a sync id as an import numbers them
(servers.write_events): the service reads and renders them as it will an import's.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest

from conftest import Api, partner_env
from examples import examples, run_example
from partner_analytics import ChangeEvent, CursorExpiredError, EventType, ForbiddenError, ValidationError, models
from servers import REPO, Keys, create_user, serve, write_events
from test_models import parameters

TODAY = dt.datetime.now(dt.timezone.utc).date()
GUIDE = examples(REPO / "docs" / "client-python.md")


def env_of(api: Api, keys: Keys) -> Dict[str, str]:
    """The walkthrough's variables for another partner of the same server."""
    return {**partner_env(api), "PA_API_CLIENT_KEY": keys.client_key, "PA_API_SECRET_KEY": keys.secret_key}


def instant(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def number(event: ChangeEvent) -> int:
    match = re.fullmatch(r"evt_(\d+)", event["id"])
    assert match, event["id"]
    return int(match.group(1))


def import_events(brand_id: int) -> List[Dict[str, Any]]:
    """One event of each type an import emits, about `brand_id`, as the change log stores them."""
    day = str(TODAY - dt.timedelta(days=3))
    return [
        {"type": "analytics.updated", "data": {"brand_id": brand_id, "accounts": [
            {"platform": "fb", "account_id": 1000, "dates": [{"since": "2026-01-30", "until": "2026-02-02"}, {"since": day, "until": day}]}]}},
        {"type": "posts.updated", "data": {"brand_id": brand_id, "accounts": [{"platform": "ig", "account_id": 1001, "posts_added": 2, "posts_changed": 1}]}},
        {"type": "brand.updated", "data": {"brand_id": brand_id, "brand_name": "Brand «1» — renamed", "change": "renamed"}},
        {"type": "account.updated", "data": {"brand_id": brand_id, "platform": "tk", "account_id": 1002, "account_name": "Account ✓", "change": "moved_in"}},
    ]


def test_the_document_declares_changes_as_the_contract_says() -> None:
    operations = [operation for operation in models.OPERATIONS.values() if operation.path == "/changes"]
    assert len(operations) == 1, "GET /changes is not in packages/client/openapi.json"
    assert set(operations[0].parameters) == {"cursor", "limit", "brand_id", "type", "start"} == parameters("changes_page")
    document = json.loads((REPO / "packages" / "client" / "openapi.json").read_text(encoding="utf-8"))
    schemas = document["components"]["schemas"]
    assert list(schemas["ChangesPage"]["properties"]) == ["data", "has_more", "next_cursor"]
    assert [option["$ref"].rsplit("/", 1)[1] for option in schemas["ChangeEvent"]["anyOf"]] == [
        "AnalyticsUpdatedEvent", "PostsUpdatedEvent", "BrandUpdatedEvent", "AccountUpdatedEvent", "AccessGrantedEvent", "AccessRevokedEvent"]
    for option in schemas["ChangeEvent"]["anyOf"]:
        assert list(schemas[option["$ref"].rsplit("/", 1)[1]]["properties"]) == ["id", "type", "created_at", "sync_id", "data"]


def test_every_event_type_from_the_service_in_its_type(api: Api) -> None:
    keys = api.user("1")
    client = api.client(keys=keys)
    head = client.changes(start="latest")
    assert list(head) == [] and isinstance(head.cursor, str)
    api.cli("users", "grant", keys.user_id or "", "--brands", "2")
    api.cli("users", "revoke", keys.user_id or "", "--brands", "2")
    written_at = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    ids = write_events(api.database_url, import_events(1), instant(written_at), sync=True)
    # An event of a brand the user cannot see is never shown.
    write_events(api.database_url, import_events(8)[2:3], instant(written_at), sync=True)

    feed = client.changes(head.cursor)
    events = list(feed)
    assert [event["type"] for event in events] == ["access.granted", "access.revoked", "analytics.updated", "posts.updated",
                                                  "brand.updated", "account.updated"]
    assert [event["id"] for event in events[2:]] == ids
    assert [number(event) for event in events] == sorted({number(event) for event in events})
    granted, revoked, analytics, posts, brand, account = events
    assert (granted["data"], granted["sync_id"], revoked["data"], revoked["sync_id"]) == ({"brand_id": 2}, None, {"brand_id": 2}, None)
    assert abs((granted["created_at"] - dt.datetime.now(dt.timezone.utc)).total_seconds()) < 600
    # The import's four share its sync id and time; dates are dates, instants aware datetimes.
    assert {event["sync_id"] for event in events[2:]} == {analytics["sync_id"]} and isinstance(analytics["sync_id"], int)
    assert all(event["created_at"] == written_at and event["created_at"].tzinfo == dt.timezone.utc for event in events[2:])
    assert analytics["type"] == "analytics.updated"
    day = TODAY - dt.timedelta(days=3)
    assert analytics["data"] == {"brand_id": 1, "accounts": [{"platform": "fb", "account_id": 1000, "dates": [
        {"since": dt.date(2026, 1, 30), "until": dt.date(2026, 2, 2)}, {"since": day, "until": day}]}]}
    assert posts["type"] == "posts.updated"
    assert posts["data"] == {"brand_id": 1, "accounts": [{"platform": "ig", "account_id": 1001, "posts_added": 2, "posts_changed": 1}]}
    assert brand["type"] == "brand.updated" and brand["data"] == {"brand_id": 1, "brand_name": "Brand «1» — renamed", "change": "renamed"}
    assert account["type"] == "account.updated" and account["data"]["change"] == "moved_in" and account["data"]["account_name"] == "Account ✓"
    assert list(analytics) == ["id", "type", "created_at", "sync_id", "data"]
    # Nothing new: no event, and the cursor still leads after them. (Its text may differ: a cursor
    # also carries the second it was issued, for the retention check.)
    again = client.changes(feed.cursor)
    assert list(again) == [] and isinstance(again.cursor, str)
    assert list(client.changes(again.cursor)) == []


def test_walks_every_page(api: Api) -> None:
    keys = api.user("1")
    client = api.client(keys=keys)
    head = client.changes_page(start="latest")
    assert (head.data, head.has_more) == ([], False)
    for _ in range(2):
        api.cli("users", "grant", keys.user_id or "", "--brands", "2,3,4,5,6,7,8")
        api.cli("users", "revoke", keys.user_id or "", "--brands", "2,3,4,5,6,7,8")
    pages = list(client.changes(head.next_cursor, limit=5).pages())
    events = [event for page in pages for event in page.data]
    assert [(len(page.data), page.has_more) for page in pages] == [(5, True)] * 5 + [(3, False)]
    expected = [("access.granted", brand) for brand in range(2, 9)] + [("access.revoked", brand) for brand in range(2, 9)]
    assert [(event["type"], event["data"]["brand_id"]) for event in events] == expected * 2
    assert [number(event) for event in events] == sorted({number(event) for event in events})
    # From the oldest event kept: the same events at the end, whatever the page size.
    oldest = [event["id"] for event in client.changes(limit=100)]
    assert oldest[-len(events):] == [event["id"] for event in events]
    assert [event["id"] for event in client.changes(limit=7)] == oldest


def test_filters_are_bound_to_the_cursor(api: Api) -> None:
    keys = api.user("1,2")
    client = api.client(keys=keys)
    access: List[EventType] = ["access.granted", "access.revoked"]
    head = client.changes(start="latest", type=access)
    list(head)
    write_events(api.database_url, import_events(2)[2:3], instant(dt.datetime.now(dt.timezone.utc)), sync=True)
    api.cli("users", "grant", keys.user_id or "", "--brands", "3")
    feed = client.changes(head.cursor, type=access)
    assert [(event["type"], event["data"]) for event in feed] == [("access.granted", {"brand_id": 3})]
    # Brand 2's event, filtered by brand and type, from the oldest event kept.
    renamed = list(client.changes(brand_id=2, type="brand.updated", limit=100))
    assert renamed and all((event["type"], event["data"]["brand_id"]) == ("brand.updated", 2) for event in renamed)
    # Another user never sees this user's access events.
    assert all(event["data"] != {"brand_id": 3} for event in api.client().changes(type=access, limit=100))
    with pytest.raises(ValidationError) as caught:
        client.changes_page(cursor=feed.cursor, type="analytics.updated")
    assert [issue["loc"] for issue in caught.value.issues] == [["query", "cursor"]]
    with pytest.raises(ValidationError) as unknown:
        client.changes_page(type="webhook.test")  # type: ignore[arg-type]
    assert [(issue["loc"], issue["type"]) for issue in unknown.value.issues] == [(["query", "type"], "enum")]
    with pytest.raises(ForbiddenError):
        client.changes_page(brand_id=8)


@pytest.fixture(scope="module")
def empty_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """`serve` on an empty store of its own (no demo data, so no event of an import) and a partner
    with no brand: a purge needs a log whose oldest events are the expired ones."""
    cwd = tmp_path_factory.mktemp("empty")
    env = {"DATABASE_URL": f"sqlite:{cwd / 'store.sqlite'}"}
    server = serve(cwd, env, banner=False)
    api = Api("sqlite", server, create_user(cwd, env, ""), cwd, env, banner=False)
    try:
        yield api
    finally:
        api.stop()


def test_a_cursor_before_purged_events_raises_cursor_expired_and_the_sync_example_starts_over(
        empty_api: Api, installed_python: Path, tmp_path: Path) -> None:
    client = empty_api.client()
    stale = client.changes_page(start="latest").next_cursor
    # An event older than the retention (90 days), after the cursor; a server started now purges it a second after it starts.
    old = dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=100)
    write_events(empty_api.database_url, [{"type": "access.granted", "userId": empty_api.keys.user_id, "data": {"brand_id": 1}}],
                 instant(old), sync=False)
    empty_api.sibling({})
    deadline = time.monotonic() + 30
    while True:
        try:
            client.changes_page(cursor=stale)
        except CursorExpiredError as expired:
            caught = expired
            break
        assert time.monotonic() < deadline, "the retention did not purge the expired event within 30 s"
        time.sleep(0.25)
    assert (caught.status, caught.code) == (410, "CURSOR_EXPIRED")
    assert caught.detail == ("Events after this cursor have been removed by the retention. "
                             "Resynchronise: read the data you keep again, then follow the feed from start=latest")
    # The sync example, holding that cursor, reads everything again (here: no brand) and stores a new cursor.
    state = tmp_path / "sync-state"
    state.mkdir()
    (state / "cursor.json").write_text(json.dumps(stale))
    out = run_example(installed_python, GUIDE["sync"], tmp_path, partner_env(empty_api))
    assert out == "the cursor expired: reading everything again\n"
    fresh = json.loads((state / "cursor.json").read_text())
    assert fresh != stale and client.changes_page(cursor=fresh).data == []


def test_the_sync_example_of_the_guide(sqlite_api: Api, installed_python: Path, tmp_path: Path) -> None:
    keys = sqlite_api.user("1")
    env = env_of(sqlite_api, keys)
    client = sqlite_api.client(keys=keys)
    until = TODAY
    since = until - dt.timedelta(days=364)
    state = tmp_path / "sync-state"

    def copy(brand: int) -> Dict[str, Any]:
        kept: Dict[str, Any] = json.loads((state / f"brand-{brand}.json").read_text())
        return kept

    def days(brand: int, first: dt.date, last: dt.date) -> int:
        return len(client.daily(brand_id=brand, since=first, until=last).to_list())

    # 1. The first run takes the position, then reads brand 1's year.
    out = run_example(installed_python, GUIDE["sync"], tmp_path, env).splitlines()
    assert out == [f"brand 1: read {days(1, since, until)} days", "up to date"]
    assert sorted(copy(1)) == sorted(str(entry["date"]) for entry in client.daily(brand_id=1, since=since, until=until))
    # 2. Brand 3 granted: read in full.
    sqlite_api.cli("users", "grant", keys.user_id or "", "--brands", "3")
    out = run_example(installed_python, GUIDE["sync"], tmp_path, env).splitlines()
    assert len(out) == 2 and out[1] == "up to date"
    assert re.fullmatch(rf"evt_\d+ access.granted: brand 3, read {days(3, since, until)} days", out[0])
    entry = client.daily_page(brand_id=3, since=until - dt.timedelta(days=1), until=until - dt.timedelta(days=1)).data[0]
    assert copy(3)[str(entry["date"])] == json.loads(json.dumps(entry, default=str))
    # 3. An import changed two overlapping ranges of brand 1, one reaching before the copy's year: re-read once, clipped.
    first, last = until - dt.timedelta(days=4), until - dt.timedelta(days=2)
    changed = {"type": "analytics.updated", "data": {"brand_id": 1, "accounts": [
        {"platform": "fb", "account_id": 1000, "dates": [{"since": str(since - dt.timedelta(days=9)), "until": str(since)},
                                                          {"since": str(first), "until": str(last - dt.timedelta(days=1))}]},
        {"platform": "ig", "account_id": 1001, "dates": [{"since": str(first + dt.timedelta(days=1)), "until": str(last)}]}]}}
    [event_id] = write_events(sqlite_api.database_url, [changed], instant(dt.datetime.now(dt.timezone.utc)), sync=True)
    out = run_example(installed_python, GUIDE["sync"], tmp_path, env).splitlines()
    assert out == [f"{event_id} analytics.updated: brand 1, re-read {since} to {since} ({days(1, since, since)} days)",
                   f"{event_id} analytics.updated: brand 1, re-read {first} to {last} ({days(1, first, last)} days)", "up to date"]
    # 4. Brand 3 taken away: forgotten; other events are named.
    sqlite_api.cli("users", "revoke", keys.user_id or "", "--brands", "3")
    [renamed] = write_events(sqlite_api.database_url, import_events(1)[2:3], instant(dt.datetime.now(dt.timezone.utc)), sync=True)
    out = run_example(installed_python, GUIDE["sync"], tmp_path, env).splitlines()
    assert re.fullmatch(r"evt_\d+ access.revoked: brand 3 forgotten", out[0])
    assert out[1:] == [f"{renamed} brand.updated: nothing to re-read here", "up to date"]
    assert not (state / "brand-3.json").exists() and (state / "brand-1.json").exists()
    # 5. Nothing new: nothing to do.
    assert run_example(installed_python, GUIDE["sync"], tmp_path, env).splitlines() == ["up to date"]
