"""A queue manager with every optional capability switched off (issue 22 item 12).

``backends/base.py`` declares optional capabilities (``MovesUnderCursor``, ``FindsMessages``,
``BrowsesPacked``, ``MovesManyUnderCursor``, ``PutsPacked``, ``CountsFacts``,
``SelectsByFacts``, ``ReadsByPosition``, ``ListsByPosition``, ``BrowsesInRanges``,
``ResolvesPuts``) that only the embedded queue manager implements: the MQI backend always
takes the fallback paths. :func:`plain` wraps a connection so that it offers the
``QueueManager`` protocol and nothing optional — on it and on every cursor it opens — so
the operations and contract suites prove the fallback code on the embedded queue manager
too. Everything else (an embedded connection's admin calls: ``set_authority``, …) passes
through unchanged.
"""

from __future__ import annotations

from typing import Any

from mqconsole.backends import base

_ALWAYS = {"QueueManager", "BrowseCursor"}


def _optional_members() -> frozenset[str]:
    """The methods and attributes of every optional capability protocol in base.py."""
    names: set[str] = set()
    for obj in vars(base).values():
        if (isinstance(obj, type) and getattr(obj, "_is_runtime_protocol", False)
                and obj.__name__ not in _ALWAYS):
            names.update(k for k in [*vars(obj), *getattr(obj, "__annotations__", {})]
                         if not k.startswith("_"))
    return frozenset(names)


HIDDEN = _optional_members()


class _Plain:
    """Delegates to ``_inner`` except the optional capabilities' members."""

    def __init__(self, inner: Any) -> None:
        object.__setattr__(self, "_inner", inner)

    def __getattr__(self, name: str) -> Any:
        if name in HIDDEN:
            raise AttributeError(f"{name} (switched off: tests/support/plain.py)")
        return getattr(self._inner, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._inner, name, value)

    def __repr__(self) -> str:
        return f"plain({self._inner!r})"


class PlainCursor(_Plain):
    def __enter__(self) -> PlainCursor:
        self._inner.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._inner.__exit__(*exc)


class PlainQueueManager(_Plain):
    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def in_unit_of_work(self) -> bool:
        return self._inner.in_unit_of_work

    def browse(self, queue: str, *, for_get: bool = False) -> PlainCursor:
        return PlainCursor(self._inner.browse(queue, for_get=for_get))

    def new_connection(self, *args: Any, **kw: Any) -> PlainQueueManager:
        return PlainQueueManager(self._inner.new_connection(*args, **kw))

    def __enter__(self) -> PlainQueueManager:
        self._inner.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._inner.__exit__(*exc)


def plain(qm: Any) -> Any:
    """``qm`` with every optional capability switched off (the ``QueueManager`` protocol and
    the connection's own extras only)."""
    return PlainQueueManager(qm)


__all__ = ["HIDDEN", "PlainCursor", "PlainQueueManager", "plain"]
