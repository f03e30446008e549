"""What the message list and the messages screen ask of the rows of a queue, whichever way
they are read (issue 26 item 8): :class:`RowSource`.

Two models give the rows: ``browsing.BrowseModel`` reads forward from the queue's start (a
browse: MQ's only way; a filter's rows too), ``paging.PagedModel`` reads a page at any
position where the list shows it (a backend that reads by position: the embedded queue
manager), and counts the whole queue's summary with the backend. The screen asks the model
what it can do (``reads_in_order``, ``can_count_facts``, ``summary_pending``,
``rows_before``) instead of asking which class it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import threading
    from datetime import datetime

    from mqconsole.ops.views import MessageView
    from mqconsole.tui.browsing import Row


@runtime_checkable
class RowSource(Protocol):
    """The rows of one queue as the list shows them: row ``i`` (0-based), ``count`` of them
    known so far, ``done`` when every one is known. What only one way of reading does is a
    no-op of the other (a browse has no pages to load; a page model reads none ahead)."""

    stopped: bool  # a read ahead stopped by the operator (goes on when asked)
    depth_hint: int | None
    quick: bool  # pages are read as rows the backend lists: cheap enough for the event loop

    @property
    def queue(self) -> str: ...
    @property
    def count(self) -> int: ...
    @property
    def done(self) -> bool: ...
    @property
    def known(self) -> bool:
        """``count`` is the queue's (a page model's first page read; a browse at its end)."""
    @property
    def closed(self) -> bool: ...
    @property
    def where(self) -> Any: ...
    @property
    def where_text(self) -> str | None: ...
    @property
    def page_size(self) -> int: ...
    @property
    def now(self) -> datetime: ...
    @property
    def index(self) -> Any:
        """The rows read, light (``browsing.LightIndex``-like: ``mark``, ``msgid``,
        ``positions``)."""
    @property
    def summary(self) -> Any: ...
    @property
    def scanned(self) -> int: ...
    @property
    def reads_in_order(self) -> bool:
        """True: the rows come from one browse from the queue's start, read ahead by a
        reader as the list needs them (``read_until``); False: a page is read where it is
        shown (``missing``, ``load``) and the count is the queue's from the first page."""

    @property
    def can_count_facts(self) -> bool:
        """The whole queue's summary can be counted by the backend now (``count_facts``)."""

    @property
    def summary_pending(self) -> bool:
        """The summary does not cover the queue yet: say so rather than show it."""

    def rows_before(self, row: int, positions: set[int]) -> int:
        """How many of the rows before ``row`` hold the messages at ``positions``."""

    def has_row(self, i: int) -> bool: ...
    def row(self, i: int) -> Row: ...
    def row_at(self, i: int) -> Row | None: ...
    def view(self, i: int) -> MessageView | None: ...
    def fetch(self, i: int, *, cancel: threading.Event | None = None) -> MessageView: ...
    def drop(self, left: set[int]) -> bool: ...
    def can_filter(self) -> bool: ...
    def filtered(self, where: Any, where_text: str | None, *, cancel: Any = None,
                 progress: Any = None) -> RowSource | None: ...
    def total_label(self) -> str: ...
    def expected_rows(self) -> int: ...
    def read_until(self, rows: int | None, *, cancel: threading.Event | None = None,
                   progress: Callable[[Any], None] | None = None) -> int: ...
    def missing(self, first: int, last: int) -> list[int]: ...
    def load(self, pages: list[int]) -> None: ...
    def load_now(self, pages: list[int]) -> bool: ...
    def count_facts(self, summarize: Callable[[Any], bool]) -> None: ...
    def close(self) -> None: ...


__all__ = ["RowSource"]
