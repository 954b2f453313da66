"""Query strings: dates as YYYY-MM-DD, lists comma-separated, flags true/false, None left out."""

from __future__ import annotations

import datetime as _dt
import urllib.parse
from typing import Any, Iterable, List, Mapping, Sequence, Tuple, TypeVar, Union

__all__ = ["DateLike", "IdList", "OneOrMany", "Words", "query_string"]

T = TypeVar("T")

#: A date, or its text YYYY-MM-DD.
DateLike = Union[_dt.date, str]
#: One id or several.
IdList = Union[int, Sequence[int]]
#: One word or several (platforms, post types, event types).
Words = Union[str, Sequence[str]]
#: One value or several, of a closed set of words (``include``, event types).
OneOrMany = Union[T, Sequence[T]]


def _one(name: str, value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, _dt.datetime):
        # A datetime is a date to Python, but which day it means depends on its time zone.
        raise TypeError(f"{name}: pass a datetime.date (or YYYY-MM-DD), not a datetime")
    if isinstance(value, _dt.date):
        return value.isoformat()
    if isinstance(value, (str, int)):
        return str(value)
    raise TypeError(f"{name}: cannot send {type(value).__name__} {value!r}")


def _value(name: str, value: Any) -> str:
    if isinstance(value, (str, bytes, int, _dt.date)) or not isinstance(value, Iterable):
        return _one(name, value)
    items = list(value)
    if not items:
        raise ValueError(f"{name}: an empty list; leave the parameter out (None) to mean every one")
    return ",".join(_one(name, item) for item in items)


def query_string(parameters: Mapping[str, Any]) -> str:
    """``?a=1&b=x,y`` for the parameters that are not None ("" when none is)."""
    pairs: List[Tuple[str, str]] = [(name, _value(name, value)) for name, value in parameters.items() if value is not None]
    return "?" + urllib.parse.urlencode(pairs) if pairs else ""
