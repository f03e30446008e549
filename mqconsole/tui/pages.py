"""Rows kept in another process, fetched a page at a time as they come into view (issue 23
item 3): the replay's events and the dead-letter handler's messages stay in the process that
made them, and the console holds a few pages of them, never the whole list.

:class:`Pages` gives row ``i`` when its page is here; otherwise None, and the page is asked
for in a thread worker of the screen (a row list draws a placeholder meanwhile and is drawn
again when the page comes). At most ``keep`` pages are held, the ones drawn last kept.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Generic, TypeVar

from mqconsole.tui.flow import in_thread, start

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from mqconsole.tui.flow import Console

T = TypeVar("T")
PAGE = 200  # rows a page (a screen of 50 rows spans two at most)
KEEP = 4  # pages held


class Pages(Generic[T]):
    """``count`` rows, ``fetch(start, stop)`` giving rows ``start`` to ``stop`` (blocking, in
    a thread worker of ``node``; None: they are gone, nothing is said); ``arrived()`` is
    called on the event loop when a page comes. ``first``: rows 0.. already here (however
    many pages they are)."""

    def __init__(self, ctx: Console, node: DOMNode, count: int,
                 fetch: Callable[[int, int], Sequence[T] | None], arrived: Callable[[], object],
                 *, first: Sequence[T] = (), size: int = PAGE, keep: int = KEEP,
                 what: str = "rows") -> None:
        self.ctx = ctx
        self.node = node
        self.count = count
        self.size = size
        self.keep = keep
        self.what = what
        self._fetch = fetch
        self._arrived = arrived
        self._pages: OrderedDict[int, Sequence[T]] = OrderedDict()
        self._asked: set[int] = set()
        self.failed = False  # a fetch failed (said once): no more are asked
        for n, at in enumerate(range(0, min(len(first), count), size)):
            page = list(first[at:at + size])
            if len(page) == size or at + len(page) == count:  # (a part of one is asked for)
                self._pages[n] = page  # all kept until others come

    def get(self, i: int) -> T | None:
        """Row ``i``, or None while its page is being fetched (asked for now)."""
        if not 0 <= i < self.count:
            return None
        n, at = divmod(i, self.size)
        page = self._pages.get(n)
        if page is None:
            self._ask(n)
            return None
        self._pages.move_to_end(n)
        return page[at] if at < len(page) else None

    @property
    def held(self) -> int:
        """Rows held now."""
        return sum(len(p) for p in self._pages.values())

    def _ask(self, n: int) -> None:
        if n in self._asked or self.failed:
            return
        self._asked.add(n)
        start(self.node, partial(self._get, n), what=self.what, group=f"pages-{id(self)}")

    async def _get(self, n: int) -> None:
        fetch = partial(self._fetch, n * self.size, min(self.count, (n + 1) * self.size))
        try:
            rows = await in_thread(self.ctx, fetch, queue=None, what=self.what,
                                   node=self.node, group=f"pages-{id(self)}")
        except BaseException:
            self.failed = True  # said once (in_thread's notification), or the screen went
            raise
        finally:
            self._asked.discard(n)
        if rows is None:
            return
        self._pages[n] = rows
        while len(self._pages) > self.keep:
            self._pages.popitem(last=False)
        self._arrived()


__all__ = ["KEEP", "PAGE", "Pages"]
