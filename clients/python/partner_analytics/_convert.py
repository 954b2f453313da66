"""Conversions from the API's JSON to the client's types, used by the generated models.

The JSON is decoded with ``parse_float=Decimal``, so a number with a fraction is already the exact
Decimal of its text; an integer written where the document says ``number`` (a revenue of ``0``)
becomes a Decimal here. A value that does not fit the document raises ``AnswerMismatch``, which
the client reports as a ServerError naming the request.
"""

from __future__ import annotations

import datetime as _dt
import re
from decimal import Decimal
from typing import Any, Dict, Tuple

__all__ = ["AnswerMismatch", "record", "to_date", "to_datetime", "to_decimal"]

# The API's instants: UTC to the second, 2026-11-21T12:00:00Z.
_INSTANT = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6})\d*)?(Z|[+-]\d{2}:\d{2})$")


class AnswerMismatch(ValueError):
    """The answer's JSON does not have the shape the API's document gives it."""


def record(raw: Any, name: str, required: Tuple[str, ...]) -> Dict[str, Any]:
    """A copy of the JSON object ``raw``, checked to have every required member."""
    if not isinstance(raw, dict):
        raise AnswerMismatch(f"{name}: expected an object, got {type(raw).__name__}")
    missing = [field for field in required if field not in raw]
    if missing:
        raise AnswerMismatch(f"{name}: missing {', '.join(missing)}")
    return dict(raw)


def to_date(value: Any) -> _dt.date:
    """``2026-11-01`` as a date."""
    if not isinstance(value, str):
        raise AnswerMismatch(f"expected a date YYYY-MM-DD, got {value!r}")
    try:
        return _dt.date.fromisoformat(value)
    except ValueError:
        raise AnswerMismatch(f"expected a date YYYY-MM-DD, got {value!r}") from None


def to_datetime(value: Any) -> _dt.datetime:
    """``2026-11-21T12:00:00Z`` as an aware datetime in UTC (Python 3.9's fromisoformat refuses the Z)."""
    match = _INSTANT.match(value) if isinstance(value, str) else None
    if match is None:
        raise AnswerMismatch(f"expected an instant such as 2026-11-21T12:00:00Z, got {value!r}")
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    try:
        offset = _dt.timedelta(0) if zone == "Z" else _dt.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6])) * (1 if zone[0] == "+" else -1)
        moment = _dt.datetime(int(year), int(month), int(day), int(hour), int(minute), int(second),
                              int((fraction or "0").ljust(6, "0")), tzinfo=_dt.timezone(offset))
    except ValueError:
        raise AnswerMismatch(f"expected an instant such as 2026-11-21T12:00:00Z, got {value!r}") from None
    return moment.astimezone(_dt.timezone.utc)


def to_decimal(value: Any) -> Decimal:
    """A JSON number as a Decimal (bool is not a number here, although Python says it is an int)."""
    if isinstance(value, Decimal):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return Decimal(value)
    raise AnswerMismatch(f"expected a number, got {value!r}")
