"""The change feed (``GET /changes``), walked page after page.

Written to the feed's wire contract (docs/client-python.md, "Incremental sync"): a page is
``{data, has_more, next_cursor}``, where ``next_cursor`` is always a string to store and call again
with later. The events and the page are the generated types (``models.ChangeEvent``, a Union of
TypedDicts tagged by ``type``, so ``if event["type"] == "analytics.updated":`` narrows ``data``;
``models.ChangesPage``). An event of a type this client does not know yet is handed over as it
came, with ``created_at`` converted.
"""

from __future__ import annotations

from typing import Callable, Iterator, Optional

from .models import ChangeEvent, ChangesPage
from .paging import stuck_cursor

__all__ = ["Feed"]


class Feed:
    """The change feed from a cursor: iterate it for events (``pages()`` for whole pages).

    ``feed.cursor`` is where the feed stands after everything handed out so far: it moves past a
    page once the caller asks for more after that page's last event (or the iteration ends), so a
    caller that stops halfway through a page, or fails on an event, gets that page again from the
    stored cursor. Delivery is at least once: deduplicate by event ``id``. Iterating again later
    continues from ``feed.cursor``. Nothing is stored by the client.
    """

    def __init__(self, fetch: Callable[[Optional[str], Optional[str]], ChangesPage], cursor: Optional[str], start: Optional[str]) -> None:
        self._fetch = fetch
        #: The cursor to store: None until the first page was read when the feed started without one.
        self.cursor = cursor
        self._start = start

    def pages(self) -> Iterator[ChangesPage]:
        """Every page available now; stops after the first page whose ``has_more`` is false."""
        while True:
            cursor = self.cursor
            page = self._fetch(cursor, self._start)
            yield page
            # The caller came back for more: that page is handled.
            self.cursor = page.next_cursor
            self._start = None
            if not page.has_more:
                return
            if page.next_cursor == cursor:
                raise stuck_cursor(cursor)

    def __iter__(self) -> Iterator[ChangeEvent]:
        for page in self.pages():
            yield from page.data
