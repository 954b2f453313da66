"""The Python client's numbers equal the TypeScript client's and partner-analytics-export's for the
same queries, field by field (every field of every entry or post, in the same order), and its
CSV file is the export's byte for byte."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from decimal import Decimal
from pathlib import Path
from typing import Any, List, Mapping, Sequence

import pytest

from conftest import Api
from servers import EXPORT, NODE, REPO, base_env

UNTIL = dt.datetime.now(dt.timezone.utc).date() - dt.timedelta(days=1)
SINCE = UNTIL - dt.timedelta(days=44)
YEAR_START = UNTIL - dt.timedelta(days=364)


def wire(value: Any) -> Any:
    """A Python client value as the JSON says it: dates as text, instants as UTC text, numbers as Decimal."""
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, Decimal)):
        return Decimal(value)
    if isinstance(value, Mapping):
        return {key: wire(item) for key, item in value.items()}
    if isinstance(value, list):
        return [wire(item) for item in value]
    raise TypeError(type(value))


def numbers(value: Any) -> Any:
    """JSON from another client with every number a Decimal, to compare with wire()."""
    return wire(json.loads(json.dumps(value), parse_float=Decimal, parse_int=Decimal))


def assert_same_rows(python: Sequence[Mapping[str, Any]], other: List[Any], what: str) -> None:
    assert len(python) == len(other) > 0, what
    for index, (ours, theirs) in enumerate(zip(python, other)):
        assert list(ours) == list(theirs), f"{what} #{index}: fields differ"
        for field in ours:
            assert wire(ours[field]) == numbers(theirs[field]), f"{what} #{index}.{field}: {ours[field]!r} != {theirs[field]!r}"


def export(api: Api, *args: str) -> str:
    env = base_env({"PA_BASE_URL": api.base_url, "PA_API_CLIENT_KEY": api.keys.client_key, "PA_API_SECRET_KEY": api.keys.secret_key})
    done = subprocess.run([NODE, str(EXPORT), *args], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def typescript(api: Api, script: str) -> Any:
    """The TypeScript client (packages/client/src) run by tsx: `client` is in scope; print JSON."""
    program = (f"const {{ PartnerAnalyticsClient }} = await import('./packages/client/src/index.ts')\n"
               f"const client = new PartnerAnalyticsClient({{ baseUrl: {json.dumps(api.base_url)}, clientKey: {json.dumps(api.keys.client_key)}, secretKey: {json.dumps(api.keys.secret_key)} }})\n"
               f"{script}")
    done = subprocess.run([NODE, "--import", "tsx", "--input-type=module", "-e", program], cwd=REPO, env=base_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_daily_pages_equal_the_exports_and_the_typescript_clients(sqlite_api: Api) -> None:
    ours = sqlite_api.client().daily(since=SINCE, until=UNTIL, brand_id=[1, 2, 3], platform=["fb", "ig", "yt"]).to_list()
    exported = json.loads(export(sqlite_api, "analytics", "--type", "daily", "--since", str(SINCE), "--until", str(UNTIL),
                                 "--brand-id", "1,2,3", "--platform", "fb,ig,yt", "--format", "json"))
    assert_same_rows(ours, exported, "daily vs export")
    theirs = typescript(sqlite_api, "const rows = []\n"
                        f"for await (const entry of client.dailyEntries({{ since: '{SINCE}', until: '{UNTIL}', brand_id: [1, 2, 3], platform: ['fb', 'ig', 'yt'] }})) rows.push(entry)\n"
                        "console.log(JSON.stringify(rows))")
    assert_same_rows(ours, theirs, "daily vs TypeScript client")


def test_monthly_and_agg_equal_the_exports(sqlite_api: Api) -> None:
    client = sqlite_api.client()
    monthly = client.monthly(since=YEAR_START, until=UNTIL, split_by_platform=True)
    exported = json.loads(export(sqlite_api, "analytics", "--type", "monthly", "--since", str(YEAR_START), "--until", str(UNTIL),
                                 "--split-by-platform", "--format", "json"))
    assert_same_rows(monthly.data, exported, "monthly vs export")

    agg = client.agg(since=YEAR_START, until=UNTIL, platform="fb,ig,tk,yt,li,th,sc,da,pi".split(","))
    envelope = json.loads(export(sqlite_api, "analytics", "--type", "agg", "--since", str(YEAR_START), "--until", str(UNTIL),
                                 "--platform", "fb,ig,tk,yt,li,th,sc,da,pi", "--format", "json"))
    assert_same_rows(agg.data, envelope["data"], "agg vs export")
    assert wire(agg.aggregates) == numbers(envelope["aggregates"])
    assert (wire(agg.since), wire(agg.until), agg.platforms, agg.brand_ids, agg.total) == (
        envelope["since"], envelope["until"], envelope["platforms"], envelope["brand_ids"], envelope["total"])
    theirs = typescript(sqlite_api, f"console.log(JSON.stringify(await client.analytics({{ type: 'agg', since: '{YEAR_START}', until: '{UNTIL}', account_id: [1000], platform: ['yt'] }})))")
    by_account = client.agg(since=YEAR_START, until=UNTIL, account_id=1000, platform="yt")
    assert_same_rows(by_account.data, theirs["data"], "agg by account vs TypeScript client")
    assert wire(by_account.aggregates) == numbers(theirs["aggregates"])


def test_posts_equal_the_exports(sqlite_api: Api) -> None:
    since = UNTIL - dt.timedelta(days=13)
    ours = sqlite_api.client().posts(since=since, until=UNTIL, order_by="views", limit=50, topics=True).to_list()
    exported = [json.loads(line) for line in export(sqlite_api, "posts", "--since", str(since), "--until", str(UNTIL), "--order-by", "views",
                                                     "--page-size", "50", "--format", "ndjson").splitlines()]
    # The export has no --topics: compare the fields both have, and every one of them.
    assert [list(post) for post in exported] == [[field for field in post if field != "subjects"] for post in ours]
    assert_same_rows([{field: value for field, value in post.items() if field != "subjects"} for post in ours], exported, "posts vs export")


@pytest.mark.parametrize("kind", ["daily", "posts"])
def test_csv_files_equal_the_exports_byte_for_byte(sqlite_api: Api, tmp_path: Path, kind: str) -> None:
    client = sqlite_api.client()
    ours, theirs = tmp_path / f"{kind}.csv", tmp_path / f"{kind}.export.csv"
    if kind == "daily":
        client.daily(since=SINCE, until=UNTIL, platform=["fb", "ig"]).to_csv(ours)
        export(sqlite_api, "analytics", "--type", "daily", "--platform", "fb,ig", "--since", str(SINCE), "--until", str(UNTIL),
               "--format", "csv", "--out", str(theirs))
    else:
        since = UNTIL - dt.timedelta(days=6)
        client.posts(since=since, until=UNTIL, limit=50).to_csv(ours)
        export(sqlite_api, "posts", "--page-size", "50", "--since", str(since), "--until", str(UNTIL), "--format", "csv", "--out", str(theirs))
    assert ours.stat().st_size > 1000
    assert ours.read_bytes() == theirs.read_bytes()


def test_data_status_equals_the_typescript_clients(sqlite_api: Api) -> None:
    client = sqlite_api.client()
    ours = client.account_statuses(since=SINCE, until=UNTIL, limit=7).to_list()
    theirs = typescript(sqlite_api, "const rows = []\n"
                        f"for await (const account of client.accountStatuses({{ since: '{SINCE}', until: '{UNTIL}', limit: 7 }})) rows.push(account)\n"
                        "console.log(JSON.stringify(rows))")
    assert_same_rows(ours, theirs, "data status vs TypeScript client")
    assert any(account["missing"] for account in ours) and all(isinstance(account["first_date"], dt.date) for account in ours)
    page = client.data_status(since=SINCE, until=UNTIL, brand_id=[2, 3], platform=["yt", "sc", "pi"], limit=2)
    envelope = typescript(sqlite_api, f"console.log(JSON.stringify(await client.dataStatus({{ since: '{SINCE}', until: '{UNTIL}', brand_id: [2, 3], platform: ['yt', 'sc', 'pi'], limit: 2 }})))")
    assert_same_rows(page.data, envelope["data"], "data status page vs TypeScript client")
    assert (wire(page.since), wire(page.until), page.platforms, page.brand_ids, page.total, page.next_cursor is None) == (
        envelope["since"], envelope["until"], envelope["platforms"], envelope["brand_ids"], envelope["total"], envelope["next_cursor"] is None)


def test_include_status_and_the_catalogue_equal_the_typescript_clients(sqlite_api: Api) -> None:
    client = sqlite_api.client()
    ours = client.daily(since=UNTIL - dt.timedelta(days=9), until=UNTIL, brand_id=[1, 4], include="status").to_list()
    theirs = typescript(sqlite_api, "const rows = []\n"
                        f"for await (const entry of client.dailyEntries({{ since: '{UNTIL - dt.timedelta(days=9)}', until: '{UNTIL}', brand_id: [1, 4], include: ['status'] }})) rows.push(entry)\n"
                        "console.log(JSON.stringify(rows))")
    assert_same_rows(ours, theirs, "daily with include=status vs TypeScript client")
    assert all("metrics_expected" in entry for entry in ours)
    catalog = client.metric_catalog()
    theirs_catalog = typescript(sqlite_api, "console.log(JSON.stringify(await client.metricCatalog()))")
    assert_same_rows(catalog.data, theirs_catalog["data"], "metric catalogue vs TypeScript client")


@pytest.mark.parametrize("kind", ["data-status", "include-status"])
def test_csv_cells_of_lists_and_objects_are_the_exports_json(sqlite_api: Api, tmp_path: Path, kind: str) -> None:
    """The export's CSV writer (and the dashboard's download) writes a list or an object as its JSON; so does to_csv."""
    client = sqlite_api.client()
    ours = tmp_path / f"{kind}.csv"
    since = UNTIL - dt.timedelta(days=20)
    if kind == "data-status":
        client.account_statuses(since=since, until=UNTIL).to_csv(ours)
        walk = f"client.accountStatuses({{ since: '{since}', until: '{UNTIL}' }})"
    else:
        client.daily(since=since, until=UNTIL, brand_id=[1, 3], include="status").to_csv(ours)
        walk = f"client.dailyEntries({{ since: '{since}', until: '{UNTIL}', brand_id: [1, 3], include: ['status'] }})"
    theirs = typescript(sqlite_api, "const { toCsv } = await import('./packages/client/src/export/formats.ts')\n"
                        f"const rows = []\nfor await (const row of {walk}) rows.push(row)\n"
                        "console.log(JSON.stringify(toCsv(rows)))")
    written = ours.read_bytes().decode("utf-8")
    assert ('"[{""since"":""' in written) if kind == "data-status" else ('"{""revenue"":' in written)
    assert written == theirs
