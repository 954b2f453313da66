"""pandas is optional and imported only when asked; CSV files are the export command's."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
import types
from decimal import Decimal
from pathlib import Path
from typing import Any, Dict, Iterator, List, cast

import pytest

from partner_analytics import models
from partner_analytics._tables import write_csv

PACKAGE = Path(__file__).resolve().parents[1]

REPORT = models.parse_daily_report({
    "data": [
        {"date": "2026-01-02", "platform": "fb", "revenue": Decimal("1.5"), "views": 10, "followers": 1, "new_followers": 0, "posts_count": 1,
         "posts_per_day": 1, "interactions": 2, "engagement_rate": Decimal("0.2"), "interaction_rate": Decimal("0.2"), "video_views_3s": 4},
        {"date": "2026-01-01", "platform": "ig", "revenue": 0, "views": 20, "followers": 2, "new_followers": 1, "posts_count": 0,
         "posts_per_day": 0, "interactions": 3, "engagement_rate": Decimal("0.15"), "interaction_rate": Decimal("0.15"), "views_video": 5},
    ],
    "total": 2, "since": "2026-01-01", "until": "2026-01-02", "platforms": ["fb", "ig"], "brand_ids": [1],
})


def test_importing_and_using_the_package_never_imports_pandas() -> None:
    script = ("import sys, partner_analytics as pa\n"
              "from partner_analytics import models, Client\n"
              "Client('http://127.0.0.1:9', 'pak_x', 'pas_x')\n"
              "print('pandas' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=PACKAGE, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "False\n", "")


def test_to_pandas_without_pandas_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    # None in sys.modules makes `import pandas` fail, whether or not pandas is installed here.
    monkeypatch.setitem(cast(Dict[str, Any], sys.modules), "pandas", None)
    with pytest.raises(ImportError, match=r"^to_pandas\(\) needs pandas, which partner-analytics does not install by itself: pip install 'partner-analytics\[pandas\]' \(or pip install pandas\)$"):
        REPORT.to_pandas()


class FakePandas(types.ModuleType):
    """Records what to_pandas hands to pandas (pandas itself cannot be installed here)."""

    def __init__(self) -> None:
        super().__init__("pandas")
        self.records: List[Dict[str, Any]] = []
        self.columns: List[str] = []
        self.converted: List[Any] = []
        fake = self

        class DataFrame(dict):  # type: ignore[type-arg]
            @classmethod
            def from_records(cls, records: List[Dict[str, Any]], columns: List[str]) -> "DataFrame":
                fake.records, fake.columns = records, columns
                return cls({column: [record[column] for record in records] for column in columns})

        self.DataFrame = DataFrame

    def to_datetime(self, values: List[Any], utc: bool) -> str:
        self.converted.append((list(values), utc))
        return "datetime64"


@pytest.fixture
def fake_pandas(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakePandas]:
    fake = FakePandas()
    monkeypatch.setitem(sys.modules, "pandas", fake)
    yield fake


def test_to_pandas_hands_pandas_one_column_per_field_floats_and_dates(fake_pandas: FakePandas) -> None:
    frame = REPORT.to_pandas()
    assert fake_pandas.columns == ["date", "platform", "revenue", "views", "followers", "new_followers", "posts_count", "posts_per_day",
                                   "interactions", "engagement_rate", "interaction_rate", "video_views_3s", "views_video"]
    assert fake_pandas.records[0]["revenue"] == 1.5 and isinstance(fake_pandas.records[0]["revenue"], float)
    assert fake_pandas.records[0]["views_video"] is None and fake_pandas.records[1]["video_views_3s"] is None
    assert fake_pandas.converted == [([dt.date(2026, 1, 2), dt.date(2026, 1, 1)], False)]
    assert frame["date"] == "datetime64"


def test_csv_is_the_exports_format(tmp_path: Path) -> None:
    rows: List[Dict[str, Any]] = [{"id": "a,1", "title": 'say "hi"', "created_time": dt.datetime(2026, 1, 1, 10, tzinfo=dt.timezone.utc), "revenue": Decimal("1.50")},
                                  {"id": "b", "title": None, "views": 3, "note": "two\nlines"}]
    target = tmp_path / "posts.csv"
    assert write_csv(rows, target) == 2
    assert target.read_bytes() == (b'id,title,created_time,revenue,views,note\r\n'
                                   b'"a,1","say ""hi""",2026-01-01T10:00:00Z,1.50,,\r\n'
                                   b'b,,,,3,"two\nlines"\r\n')
    assert REPORT.to_csv(tmp_path / "daily.csv") == 2
    assert (tmp_path / "daily.csv").read_text().splitlines()[1] == "2026-01-02,fb,1.5,10,1,0,1,1,2,0.2,0.2,4,"
    assert write_csv([], tmp_path / "empty.csv") == 0 and (tmp_path / "empty.csv").read_bytes() == b""


def test_a_csv_is_whole_or_not_written(tmp_path: Path) -> None:
    target = tmp_path / "daily.csv"
    target.write_text("the previous export\n")

    def failing() -> Iterator[Dict[str, Any]]:
        yield {"a": 1}
        raise OSError("the network went away")

    with pytest.raises(OSError, match="went away"):
        write_csv(failing(), target)
    assert target.read_text() == "the previous export\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["daily.csv"]
    # A failure while writing (here a value that cannot be written) leaves no partial file either.
    class Unwritable:
        def __str__(self) -> str:
            raise OSError("No space left on device")

    with pytest.raises(OSError, match="No space left"):
        unwritable: List[Dict[str, Any]] = [{"a": 1}, {"a": Unwritable()}]
        write_csv(unwritable, target)
    assert target.read_text() == "the previous export\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["daily.csv"]
    with pytest.raises(FileNotFoundError):
        write_csv([{"a": 1}], tmp_path / "missing" / "x.csv")
