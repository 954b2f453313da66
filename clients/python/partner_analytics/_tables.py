"""Rows as a pandas DataFrame or a CSV file: for the reports (their ``data``) and the iterators.

pandas is an optional extra (``pip install 'partner-analytics[pandas]'``), imported only when
``to_pandas()`` is called: importing this package never imports it.
"""

from __future__ import annotations

import csv
import datetime as _dt
import importlib
import json
import os
import tempfile
from decimal import Decimal
from typing import Any, Dict, Iterable, List, Mapping, Union

__all__ = ["ReportTable", "Table", "columns_of", "flat_report_row", "to_pandas", "write_csv"]

PathLike = Union[str, "os.PathLike[str]"]


def columns_of(rows: Iterable[Mapping[str, Any]]) -> List[str]:
    """Every key of the rows, in first-seen order (entries of different platforms have different fields)."""
    return list(dict.fromkeys(key for row in rows for key in row))


def _import_pandas() -> Any:
    try:
        return importlib.import_module("pandas")
    except ImportError:
        raise ImportError(
            "to_pandas() needs pandas, which partner-analytics does not install by itself: "
            "pip install 'partner-analytics[pandas]' (or pip install pandas)"
        ) from None


def _cell(value: Any) -> Any:
    # pandas has no decimal dtype: Decimal columns become float64; dates become datetime64 below.
    return float(value) if isinstance(value, Decimal) else value


def to_pandas(rows: Iterable[Mapping[str, Any]]) -> Any:
    """A pandas DataFrame of the rows: one column per field (first-seen order), absent fields NaN/None.

    Decimal values become floats; date and datetime columns become datetime64 columns.
    """
    pandas = _import_pandas()
    held = list(rows)
    columns = columns_of(held)
    frame = pandas.DataFrame.from_records([{key: _cell(row.get(key)) for key in columns} for row in held], columns=columns)
    for column in columns:
        sample = next((row[column] for row in held if row.get(column) is not None), None)
        if isinstance(sample, _dt.date):
            frame[column] = pandas.to_datetime(frame[column], utc=isinstance(sample, _dt.datetime))
    return frame


def _json(value: Any) -> str:
    """``value`` as JSON the way the API and JavaScript's JSON.stringify write it: compact, numbers
    as written (Decimal's text), dates and instants as the API's text."""
    if isinstance(value, Mapping):
        return "{" + ",".join(json.dumps(str(key), ensure_ascii=False) + ":" + _json(item) for key, item in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_json(item) for item in value) + "]"
    if isinstance(value, (_dt.date, Decimal)):
        text = _text(value)
        return text if isinstance(value, Decimal) else json.dumps(text)
    return json.dumps(value, ensure_ascii=False)


def _text(value: Any) -> str:
    """A cell: empty for null, objects and lists as JSON (as the export writes them)."""
    if value is None:
        return ""
    if isinstance(value, _dt.datetime):
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, (_dt.date, Decimal, str)):
        return str(value)
    if isinstance(value, (Mapping, list, tuple, bool)):
        return _json(value)
    return str(value)


def write_csv(rows: Iterable[Mapping[str, Any]], path: PathLike) -> int:
    """Writes the rows to ``path`` as RFC 4180 CSV; returns how many rows.

    The same file as ``partner-analytics-export --format csv``: CRLF line ends, a header that is
    the union of every row's fields in first-seen order, an empty cell for null or absent, a list
    or an object as its JSON (``missing`` of a data status, ``metrics_reported``). The rows
    go to a temporary file beside ``path``, renamed to ``path`` once complete and removed on any
    failure, so a file at ``path`` is always whole.
    """
    held = list(rows)
    columns = columns_of(held)
    target = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(target))
    handle, partial = tempfile.mkstemp(prefix=os.path.basename(target) + ".", suffix=".partial", dir=directory)
    try:
        with os.fdopen(handle, "w", newline="", encoding="utf-8") as out:
            if columns:
                writer = csv.writer(out, lineterminator="\r\n")
                writer.writerow(columns)
                for row in held:
                    writer.writerow([_text(row.get(column)) for column in columns])
        os.replace(partial, target)
    except BaseException:
        if os.path.exists(partial):
            os.unlink(partial)
        raise
    return len(held)


class Table:
    """What every answer holding a ``data`` list can do with it."""

    def to_pandas(self) -> Any:
        """``data`` as a pandas DataFrame (needs the ``pandas`` extra)."""
        rows: List[Dict[str, Any]] = getattr(self, "data")
        return to_pandas(rows)

    def to_csv(self, path: PathLike) -> int:
        """Writes ``data`` to ``path`` as CSV (see ``write_csv``); returns how many rows."""
        rows: List[Dict[str, Any]] = getattr(self, "data")
        return write_csv(rows, path)


def flat_report_row(row: Mapping[str, Any]) -> Dict[str, Any]:
    """A POST /reports row as one flat record: its dimensions, then one column per metric, then
    (with a comparison) ``previous_<dimension>``, ``comparison_complete`` and per metric
    ``previous_<metric>``, ``change_<metric>``, ``relative_change_<metric>``."""
    flat: Dict[str, Any] = {}
    for key, value in row.items():
        if key == "metrics":
            flat.update(value)
        elif key == "comparison":
            if value is None:
                continue
            for member, item in value.items():
                if member == "complete":
                    flat["comparison_complete"] = item
                elif member == "metrics":
                    flat.update({f"previous_{metric}": figure for metric, figure in item.items()})
                elif member in ("change", "relative_change"):
                    flat.update({f"{member}_{metric}": figure for metric, figure in item.items()})
                else:
                    flat[f"previous_{member}"] = item
        else:
            flat[key] = value
    return flat


class ReportTable:
    """What a report page (POST /reports) can do with its ``rows``: each flattened by ``flat_report_row``."""

    def flat_rows(self) -> List[Dict[str, Any]]:
        """The rows, each one flat record."""
        rows: List[Mapping[str, Any]] = getattr(self, "rows")
        return [flat_report_row(row) for row in rows]

    def to_pandas(self) -> Any:
        """The rows as a pandas DataFrame, one column per dimension and metric (needs the ``pandas`` extra)."""
        return to_pandas(self.flat_rows())

    def to_csv(self, path: PathLike) -> int:
        """Writes the flat rows to ``path`` as CSV (see ``write_csv``); returns how many rows."""
        return write_csv(self.flat_rows(), path)
