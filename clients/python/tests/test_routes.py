"""Every route, on both stores, through the client's typed methods and iterators: login once, walk
every page to the end, and check the types and the figures against each other."""

from __future__ import annotations

import datetime as dt
from decimal import ROUND_HALF_UP, Decimal
from typing import Dict, List, Set, Tuple, Union

from conftest import Api, Recorder
from partner_analytics import (
    AccountStatus, AggReport, DailyReport, DataStatusPage, Health, Liveness, Me, MetricCatalog, MonthlyReport, PostsPage, Readiness, Token,
)

TODAY = dt.datetime.now(dt.timezone.utc).date()
# Whole days in the past, so a walk cannot straddle the demo's "today" as it grows.
UNTIL = TODAY - dt.timedelta(days=1)
SINCE = UNTIL - dt.timedelta(days=59)


def test_logs_in_lazily_once_and_reuses_the_token(api: Api, recorder: Recorder) -> None:
    client = api.client(transport=recorder)
    assert recorder.calls == []
    first = client.me()
    second = client.me()
    assert isinstance(first, Me) and first == second
    assert recorder.calls == ["POST /auth/login", "GET /me", "GET /me"]


def test_login_and_health(api: Api) -> None:
    client = api.client()
    token = client.login()
    assert isinstance(token, Token)
    assert (token.token_type, token.expires_in) == ("bearer", 3600)
    assert token.user_id.startswith("usr_") and token.access_token.count(".") == 2
    health = client.health()
    assert isinstance(health, Health)
    assert (health.status, health.database, health.version, health.redis) == ("ok", "ok", "0.1.0", None)
    assert health.uptime_s >= 0


def test_me_pages_and_every_brand(api: Api, recorder: Recorder) -> None:
    client = api.client(transport=recorder)
    page = client.me(limit=3)
    assert [brand["brand_id"] for brand in page.brands] == [1, 2, 3]
    assert isinstance(page.next_cursor, str)
    assert client.me(limit=3, cursor=page.next_cursor).brands[0]["brand_id"] == 4
    recorder.calls.clear()
    brands = list(client.brands(page_size=2))
    assert [brand["brand_id"] for brand in brands] == [1, 2, 3, 4, 5, 6, 7]
    assert recorder.calls == ["GET /me"] * 4
    # Brand 1 has a fourth account (fb 1000 and yt 1000 share an id); lists are by account_id.
    first = brands[0]
    assert [account["account_id"] for account in first["fb_accounts"]] == [1000]
    assert [account["account_id"] for account in first["yt_accounts"]] == [1000]
    assert all(isinstance(account["account_name"], str) for account in first["ig_accounts"])


def test_daily_walks_every_page_to_the_end(api: Api, recorder: Recorder) -> None:
    client = api.client(transport=recorder)
    pages: List[DailyReport] = list(client.daily(since=SINCE, until=UNTIL).pages())
    entries = [entry for page in pages for entry in page.data]
    groups: List[Tuple[dt.date, int]] = [(entry["date"], entry["brand_id"]) for entry in entries]
    # Every (date, brand) once, latest date first, 20 a page but the last, nothing after it.
    assert len(groups) == len(set(groups)) > 50 * 7
    assert [date for date, _ in groups] == sorted((date for date, _ in groups), reverse=True)
    assert {date for date, _ in groups} <= {SINCE + dt.timedelta(days=n) for n in range(60)}
    assert len(pages) == -(-len(groups) // 20)
    assert [page.total for page in pages[:-1]] == [20] * (len(pages) - 1) and 1 <= pages[-1].total <= 20
    assert all(page.next_cursor is not None for page in pages[:-1]) and pages[-1].next_cursor is None
    assert recorder.calls == ["POST /auth/login"] + ["GET /analytics/"] * len(pages)
    assert (pages[0].since, pages[0].until, pages[0].platforms, pages[0].brand_ids) == (SINCE, UNTIL, "all", [1, 2, 3, 4, 5, 6, 7])
    entry = entries[0]
    assert isinstance(entry["date"], dt.date) and isinstance(entry["revenue"], Decimal) and isinstance(entry["engagement_rate"], Decimal)
    assert isinstance(entry["views"], int) and isinstance(entry["posts_per_day"], Decimal)
    # The items iterator hands out exactly the pages' entries.
    assert list(client.daily(since=SINCE, until=UNTIL)) == entries

    # Every figure of the walk adds up to the aggregated report of the same period.
    agg = client.agg(since=SINCE, until=UNTIL)
    assert isinstance(agg, AggReport)
    for field in ("views", "interactions", "posts_count", "new_followers"):
        assert sum(entry[field] for entry in entries) == agg.aggregates["total"][field], field  # type: ignore[literal-required]
    assert sum((entry["revenue"] for entry in entries), Decimal(0)) == agg.aggregates["total"]["revenue"]


def test_daily_filters_by_platform_and_brand(api: Api) -> None:
    client = api.client()
    entries = client.daily(since=UNTIL - dt.timedelta(days=6), until=UNTIL, brand_id=[1, 2], platform=["fb", "instagram"]).to_list()
    assert {(entry["brand_id"], entry["platform"]) for entry in entries} == {(1, "fb"), (1, "ig")}
    assert all("video_views_3s" in entry for entry in entries if entry["platform"] == "fb")
    assert all("video_views_3s" not in entry for entry in entries if entry["platform"] == "ig")
    page = client.daily_page(since=UNTIL - dt.timedelta(days=6), until=UNTIL, brand_id=1, platform="fb")
    assert (page.brand_id, page.brand_ids, page.platforms) == (1, [1], ["fb"])
    split = client.daily(since=UNTIL, until=UNTIL, split_by_platform=True).to_list()
    assert [entry["platform"] for entry in split] == ["fb", "ig", "tk", "yt", "li", "th", "sc", "da", "pi"]
    assert all("brand_id" not in entry for entry in split)


def test_monthly_and_agg_agree(api: Api) -> None:
    client = api.client()
    since, until = dt.date(UNTIL.year - 1, UNTIL.month, 1), UNTIL
    monthly = client.monthly(since=since, until=until, platform="yt")
    assert isinstance(monthly, MonthlyReport)
    months = [entry["month"] for entry in monthly.data]
    # One entry per month and brand with a YouTube account, latest month first.
    assert months == sorted(months, reverse=True) and len(set(months)) == 13 and len(monthly.data) == monthly.total
    agg = client.agg(since=since, until=until, platform="yt")
    assert sum(entry["views"] for entry in monthly.data) == sum(entry["views"] for entry in agg.data)
    total, average = agg.aggregates["total"], agg.aggregates["average"]
    assert total["views"] == sum(entry["views"] for entry in agg.data)
    assert average["views"] == (total["views"] / len(agg.data)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    assert isinstance(total["posts_per_day"], Decimal)
    # The same report through analytics(type=…).
    assert client.analytics(type="agg", since=since, until=until, platform="yt") == agg


def test_agg_by_account(api: Api) -> None:
    report = api.client().agg(since=SINCE, until=UNTIL, account_id=1000, platform="yt")
    [entry] = report.data
    assert (entry["account_id"], entry["platform"]) == (1000, "yt")
    assert isinstance(entry["name"], str) and str(entry.get("permalink", "")).startswith("https://")
    assert "brand_id" not in entry


def test_posts_walks_every_page_the_same_whatever_the_page_size(api: Api, recorder: Recorder) -> None:
    client = api.client(transport=recorder)
    since = UNTIL - dt.timedelta(days=13)
    big = client.posts(since=since, until=UNTIL, limit=50).to_list()
    pages: List[PostsPage] = list(client.posts(since=since, until=UNTIL, limit=7).pages())
    small = [post for page in pages for post in page.data]
    keys: Set[Tuple[str, str]] = {(post["platform"], post["id"]) for post in big}
    assert len(big) > 50 and len(keys) == len(big)
    assert [(post["platform"], post["id"]) for post in small] == [(post["platform"], post["id"]) for post in big]
    assert all(page.total == 7 for page in pages[:-1]) and pages[-1].next_cursor is None
    times = [post["created_time"] for post in big]
    assert times == sorted(times, reverse=True)
    assert all(time.tzinfo == dt.timezone.utc and since <= time.date() <= UNTIL for time in times)
    assert all(post["engagement_rate"] is None or isinstance(post["engagement_rate"], Decimal) for post in big)


def test_posts_filters_and_orders(api: Api) -> None:
    client = api.client()
    page = client.posts_page(since=SINCE, until=UNTIL, platform="youtube", post_type=["short"], order_by="views", order="asc",
                             limit=20, topics=True, category=True)
    assert page.platforms == ["yt"] and 0 < page.total <= 20
    assert all((post["platform"], post["post_type"]) == ("youtube", "short") for post in page.data)
    views = [post["views"] for post in page.data if post["views"] is not None]
    assert views == sorted(views)
    assert all("subjects" in post and "category" in post for post in page.data)


def test_health_live_ready_and_the_catalogue_need_no_token(api: Api) -> None:
    sent: List[Dict[str, str]] = []
    client = api.client(transport=Recorder(before=lambda request: sent.append(dict(request.headers))))
    assert client.health_live() == Liveness(status="ok")
    assert client.health_ready() == Readiness(status="ok", database="ok")
    catalog = client.metric_catalog()
    assert isinstance(catalog, MetricCatalog) and catalog.total == len(catalog.data) > 10
    assert len(sent) == 3 and all("authorization" not in headers for headers in sent)


def test_the_catalogue_describes_the_entries_and_their_types(api: Api) -> None:
    client = api.client()
    catalog = {metric["name"]: metric for metric in client.metric_catalog().data}
    revenue = catalog["revenue"]
    assert (revenue["unit"], revenue["decimals"], revenue["combine"], revenue["ratio_of"], revenue["derived"]) == (
        "currency", 2, {"over_days": "sum", "over_accounts": "sum"}, None, False)
    assert revenue["none_reported"] == {"daily": Decimal(0), "monthly": Decimal(0), "agg": None}
    assert isinstance(revenue["none_reported"]["daily"], Decimal)
    rate = catalog["engagement_rate"]
    assert rate["derived"] and rate["ratio_of"] is not None and rate["ratio_of"]["denominator_by_platform"]["fb"] == "reach"
    entries = client.daily_page(since=UNTIL, until=UNTIL, brand_id=1, include="status").data
    assert entries
    for entry in entries:
        carried = [field for field in entry if field in catalog]
        # The entry writes its metrics in the catalogue's order; counts are int, currency and ratios Decimal.
        assert carried == [name for name in catalog if name in entry]
        for name in carried:
            value = entry[name]  # type: ignore[literal-required]
            assert isinstance(value, Decimal if catalog[name]["unit"] != "count" else int) and not isinstance(value, bool), name
            assert "daily" in catalog[name]["reports"]
        # include=status counts every metric the entry carries but the derived ones.
        assert list(entry["metrics_reported"]) == [name for name in carried if not catalog[name]["derived"]] == list(entry["metrics_expected"])


def test_data_status_walks_every_account_and_agrees_with_the_daily_report(api: Api, recorder: Recorder) -> None:
    client = api.client(transport=recorder)
    page = client.data_status(since=SINCE, until=UNTIL)
    assert isinstance(page, DataStatusPage) and page.next_cursor is None
    assert (page.since, page.until, page.platforms, page.brand_ids, page.total) == (SINCE, UNTIL, "all", [1, 2, 3, 4, 5, 6, 7], len(page.data))
    accounts = page.data
    order = ["fb", "ig", "tk", "yt", "li", "th", "sc", "da", "pi"]
    keys = [(account["brand_id"], order.index(account["platform"]), account["account_id"]) for account in accounts]
    assert keys == sorted(keys) and len(keys) > 20
    # Walked three at a time, every account once, in the same order.
    recorder.calls.clear()
    pages: List[DataStatusPage] = list(client.account_statuses(since=SINCE, until=UNTIL, limit=3).pages())
    assert [account for walked in pages for account in walked.data] == accounts
    assert [walked.total for walked in pages] == [3] * (len(pages) - 1) + [len(accounts) - 3 * (len(pages) - 1)]
    assert recorder.calls == ["GET /data-status"] * len(pages)
    for account in accounts:
        first, last = account["first_date"], account["last_date"]
        assert isinstance(first, dt.date) and isinstance(last, dt.date) and first <= last
        assert account["synced_at"] is None or account["synced_at"].tzinfo == dt.timezone.utc
        span = (max(SINCE, first), min(UNTIL, last))
        missing = {range_["since"] + dt.timedelta(days=n) for range_ in account["missing"]
                   for n in range((range_["until"] - range_["since"]).days + 1)}
        assert all(span[0] <= day <= span[1] for day in missing)
        assert account["days_expected"] == (span[1] - span[0]).days + 1 == account["days_reported"] + len(missing)
    # An account with gaps (which one depends on the calendar: the demo ends yesterday): its daily
    # entries are exactly the days of its span that are not missing.
    gappy = next(account for account in accounts if account["missing"])
    missing = {range_["since"] + dt.timedelta(days=n) for range_ in gappy["missing"] for n in range((range_["until"] - range_["since"]).days + 1)}
    days = [entry["date"] for entry in client.daily(since=SINCE, until=UNTIL, account_id=gappy["account_id"], platform=gappy["platform"])]
    assert sorted(days) == [day for day in (SINCE + dt.timedelta(days=n) for n in range(60)) if day not in missing]
    # One brand, one platform: the envelope says so.
    narrow = client.data_status(since=SINCE, until=UNTIL, brand_id=1, platform="facebook")
    assert (narrow.brand_id, narrow.platforms, [account["platform"] for account in narrow.data]) == (1, ["fb"], ["fb"])


def test_include_status_counts_agree_with_data_status(api: Api) -> None:
    client = api.client()
    # A brand with a gap in the period: which one depends on the calendar (the demo ends yesterday).
    brand_id = next(account["brand_id"] for account in client.account_statuses(since=SINCE, until=UNTIL).to_list() if account["missing"])
    accounts = client.account_statuses(since=SINCE, until=UNTIL, brand_id=brand_id).to_list()

    def covered(account: AccountStatus, day: dt.date) -> bool:
        first, last = account["first_date"], account["last_date"]
        return first is not None and last is not None and first <= day <= last

    def missing(account: AccountStatus, day: dt.date) -> bool:
        return any(range_["since"] <= day <= range_["until"] for range_ in account["missing"])

    entries = client.daily(since=SINCE, until=UNTIL, brand_id=brand_id, include=["status"]).to_list()
    assert len(entries) == 60
    assert any(entry["accounts_reported"] < entry["accounts_expected"] for entry in entries), f"the demo has gaps in brand {brand_id}"
    for entry in entries:
        day = entry["date"]
        expected = [account for account in accounts if covered(account, day)]
        assert (entry["accounts_expected"], entry["accounts_reported"]) == (
            len(expected), len([account for account in expected if not missing(account, day)])), day
        assert all(0 <= entry["metrics_reported"][name] <= entry["metrics_expected"][name]  # type: ignore[literal-required]
                   for name in entry["metrics_reported"])
    # Without include, no status member.
    assert "accounts_expected" not in client.daily_page(since=UNTIL, until=UNTIL, brand_id=1).data[0]
    reports: List[Union[MonthlyReport, AggReport]] = [client.monthly(since=SINCE, until=UNTIL, brand_id=1, include="status"),
                                                      client.agg(since=SINCE, until=UNTIL, include="status")]
    for report in reports:
        for row in report.data:
            assert isinstance(row["accounts_expected"], int) and 0 <= row["accounts_reported"] <= row["accounts_expected"]
            assert set(row["metrics_reported"]) == set(row["metrics_expected"]) and "engagement_rate" not in row["metrics_reported"]


def test_gaps_carry_fills_stocks_only_where_accounts_missed_and_says_which(api: Api) -> None:
    client = api.client()
    catalog = {metric["name"]: metric for metric in client.metric_catalog().data}
    assert catalog["followers"]["kind"] == "stock" and catalog["views"]["kind"] == "flow" and catalog["engagement_rate"]["kind"] == "rate"
    zero = client.daily(since=SINCE, until=UNTIL, brand_id=1, include="status").to_list()
    carry = client.daily(since=SINCE, until=UNTIL, brand_id=1, include="status", gaps="carry").to_list()
    assert [entry["date"] for entry in carry] == [entry["date"] for entry in zero]
    gappy = 0
    for plain, filled in zip(zero, carry):
        gaps = filled["gaps"]
        assert list(gaps) == list(filled["metrics_reported"])
        # Flows are never invented; a stock only grows by the accounts it carried.
        assert (filled["views"], filled["interactions"], filled["posts_count"]) == (plain["views"], plain["interactions"], plain["posts_count"])
        if gaps["followers"]["carried"] == 0:
            assert filled["followers"] == plain["followers"]
        else:
            gappy += 1
            assert filled["followers"] > plain["followers"]
        missed = {(item["platform"], item["account_id"]) for item in gaps["views"]["missing"]}
        assert len(missed) == plain["metrics_expected"]["views"] - plain["metrics_reported"]["views"] + plain["accounts_expected"] - plain["accounts_reported"]
    assert gappy > 0, "the demo has days on which brand 1's accounts missed followers"
