"""Iterators over every page of a paged query (the change feed has its own, in feed.py)."""

from __future__ import annotations

from typing import Any, Callable, Generic, Iterator, List, Mapping, Optional, Sequence, TypeVar

from ._tables import PathLike, to_pandas, write_csv
from .errors import ServerError

__all__ = ["Pages"]

ItemT = TypeVar("ItemT", bound=Mapping[str, Any])
PageT = TypeVar("PageT")


def stuck_cursor(cursor: Optional[str]) -> ServerError:
    return ServerError(f"the API handed back the cursor it was given ({cursor!r}): stopping rather than loop",
                       status=200, code="HTTP_200", request_id=None, body=None)


class Pages(Generic[ItemT, PageT]):
    """Every item of a paged query, page after page, fetched as the iteration reaches them.

    ``for item in pages`` walks the items; ``pages.pages()`` the pages themselves; ``to_list()``,
    ``to_pandas()`` and ``to_csv(path)`` read every page first. Each iteration starts again from
    the first page.
    """

    def __init__(self, fetch: Callable[[Optional[str]], PageT], items: Callable[[PageT], Sequence[ItemT]],
                 next_cursor: Callable[[PageT], Optional[str]]) -> None:
        self._fetch = fetch
        self._items = items
        self._next_cursor = next_cursor

    def pages(self) -> Iterator[PageT]:
        cursor: Optional[str] = None
        while True:
            page = self._fetch(cursor)
            yield page
            following = self._next_cursor(page)
            if following is None:
                return
            if following == cursor:
                raise stuck_cursor(cursor)
            cursor = following

    def __iter__(self) -> Iterator[ItemT]:
        for page in self.pages():
            yield from self._items(page)

    def to_list(self) -> List[ItemT]:
        return list(self)

    def to_pandas(self) -> Any:
        """Every item as a pandas DataFrame (needs the ``pandas`` extra; see ``Table.to_pandas``)."""
        return to_pandas(self.to_list())

    def to_csv(self, path: PathLike) -> int:
        """Every item written to ``path`` as CSV, the same file as the export command's; returns how many."""
        return write_csv(self.to_list(), path)
