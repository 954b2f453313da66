"""POST /reports through the client: the body it sends, rows as dicts, flat rows for pandas and CSV,
and the live route on both stores (its figures against the daily report's)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path
from typing import Any, Dict

from conftest import Api
from partner_analytics import models
from partner_analytics._tables import flat_report_row
from partner_analytics.client import _report_body

TODAY = dt.datetime.now(dt.timezone.utc).date()
UNTIL = TODAY - dt.timedelta(days=1)
SINCE = UNTIL - dt.timedelta(days=13)

PAGE: Dict[str, Any] = {
    "rows": [
        {"week": "2026-W10", "platform": "fb", "metrics": {"views": 10, "engagement_rate": Decimal("0.5")},
         "comparison": {"week": "2025-W10", "complete": True, "metrics": {"views": 8, "engagement_rate": Decimal("0.25")},
                        "change": {"views": 2, "engagement_rate": Decimal("0.25")}, "relative_change": {"views": Decimal("0.25"), "engagement_rate": 1}}},
        {"week": "2026-W11", "platform": "fb", "metrics": {"views": 3, "engagement_rate": None}, "comparison": None},
    ],
    "total": 2, "total_rows": 2, "since": "2026-03-02", "until": "2026-03-15", "dimensions": ["week", "platform"],
    "metrics": ["views", "engagement_rate"], "platforms": "all", "brand_ids": [1],
    "comparison": {"since": "2025-03-03", "until": "2025-03-16"},
    "cost": {"requests": 1, "rows_estimate": 4, "account_days_read": 20, "heavy": False},
}


def test_the_body_leaves_out_what_is_not_given_and_writes_dates_as_text() -> None:
    body = _report_body(metrics="views", dimensions=["week", "platform"], since=dt.date(2026, 3, 2), until="2026-03-15", brand_id=1,
                        account_id=None, platform="fb", order_by=[{"metric": "views", "desc": True}], limit=10, offset=None, cursor=None,
                        comparison={"since": dt.date(2025, 3, 3), "until": "2025-03-16"}, include="totals")
    assert body == {"metrics": ["views"], "dimensions": ["week", "platform"], "since": "2026-03-02", "until": "2026-03-15",
                    "filters": {"brand_id": [1], "platform": ["fb"]}, "order_by": [{"metric": "views", "desc": True}], "limit": 10,
                    "comparison": {"since": "2025-03-03", "until": "2025-03-16"}, "include": ["totals"]}
    carried = _report_body(metrics=["followers"], dimensions=None, since=None, until=None, brand_id=None, account_id=None, platform=None,
                           order_by=None, limit=None, offset=None, cursor=None, comparison=None, include=None, gaps="carry")
    assert carried == {"metrics": ["followers"], "gaps": "carry"}


def test_rows_are_dicts_and_flatten_to_one_column_per_metric(tmp_path: Path) -> None:
    page = models.parse_report_response(PAGE)
    assert isinstance(page, models.ReportResponse)
    assert page.rows[0]["metrics"]["views"] == Decimal(10)
    assert page.flat_rows() == [
        {"week": "2026-W10", "platform": "fb", "views": Decimal(10), "engagement_rate": Decimal("0.5"), "previous_week": "2025-W10",
         "comparison_complete": True, "previous_views": Decimal(8), "previous_engagement_rate": Decimal("0.25"), "change_views": Decimal(2),
         "change_engagement_rate": Decimal("0.25"), "relative_change_views": Decimal("0.25"), "relative_change_engagement_rate": Decimal(1)},
        {"week": "2026-W11", "platform": "fb", "views": Decimal(3), "engagement_rate": None},
    ]
    assert flat_report_row({"brand_id": 2, "metrics": {"followers": 5}}) == {"brand_id": 2, "followers": 5}
    target = tmp_path / "report.csv"
    assert page.to_csv(target) == 2
    assert target.read_text(encoding="utf-8").split("\r\n")[0].startswith("week,platform,views,engagement_rate,previous_week,comparison_complete")


def test_a_live_report_equals_the_daily_figures(api: Api) -> None:
    client = api.client()
    rows = list(client.report_rows(metrics=["views", "followers", "posts_count"], dimensions=["date", "brand"], since=SINCE, until=UNTIL, limit=7))
    daily = list(client.daily(since=SINCE, until=UNTIL))
    assert len(rows) == len(daily) > 0
    by_key = {(row["date"], row["brand_id"]): row["metrics"] for row in rows}
    for entry in daily:
        figures = by_key[(entry["date"], entry["brand_id"])]
        assert [figures["views"], figures["followers"], figures["posts_count"]] == [Decimal(entry["views"]), Decimal(entry["followers"]), Decimal(entry["posts_count"])]
    top = client.report(metrics=["interactions"], dimensions=["account"], since=SINCE, until=UNTIL,
                        order_by=[{"metric": "interactions", "desc": True}], limit=3, include=["totals"])
    values = [Decimal(row["metrics"]["interactions"] or 0) for row in top.rows]
    assert values == sorted(values, reverse=True) and len(values) == 3
    assert top.totals is not None and Decimal(top.totals["interactions"] or 0) >= sum(values)
