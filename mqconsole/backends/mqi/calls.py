"""The call guard every MQI call of a connection goes through: one lock, the closed check,
and a failed call turned into one sentence (``MQError``) naming what was refused and the
authority it needs."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

from mqconsole.mq.errors import MQError
from mqconsole.mq.reasons import (
    MQRC_HCONN_ERROR,
    MQRC_NOT_AUTHORIZED,
    MQRC_UNKNOWN_OBJECT_NAME,
)

from . import shim
from .hints import HINTS
from .pcf import PCFSession
from .settings import MQConnectSettings


class Calls:
    """The state of one connection every part reads, and the call guard. The parts
    (``connecting``, ``inquiry``, ``admin``, ``messages``, ``units``) build on it;
    ``connection.MQIQueueManager`` puts them together and sets the state."""

    backend = "mq"
    settings: MQConnectSettings
    lib: shim.MQLibrary
    _lock: threading.RLock
    _closed: bool
    _uow: bool
    _buffer: int
    _name: str
    _ccsid: int
    max_uncommitted: int | None
    connect_warning: int | None
    _encoding: int | None
    _pcf_holder: list[PCFSession | None]
    last_listing_failures: dict[str, int]
    pcf_unavailable: str | None
    last_listing_note: str | None
    _qmgr: Any
    #: MQIA_PLATFORM's name (UNIX, ZOS, ...) read at connect; None when MQINQ was refused
    platform: str | None

    def _error(self, reason: int, comp: int, what: str, *, auth: str = "", obj: str = "",
               hint: str = "") -> MQError:
        text = f"cannot {what}"
        user = self.settings.user or "the connecting user"
        if reason == MQRC_NOT_AUTHORIZED and auth:
            text += f": {user} needs {auth} on {obj!r}" if obj else f": {user} needs {auth}"
            text += hint
        elif reason == MQRC_UNKNOWN_OBJECT_NAME and obj:
            text += f": {obj!r} does not exist on {self._name or 'the queue manager'}"
        elif reason in HINTS:
            text += f": {HINTS[reason]}"
        return MQError(reason, text, completion=comp or 2)

    @contextlib.contextmanager
    def _call(self, what: str, *, auth: str = "", obj: str = "", hint: str = ""
              ) -> Iterator[None]:
        with self._lock:
            if self._closed:
                raise MQError(MQRC_HCONN_ERROR, f"cannot {what}: this connection to "
                                    f"{self._name or 'the queue manager'} is closed")
            try:
                yield
            except self.lib.MQMIError as exc:
                raise self._error(exc.reason, exc.comp, what, auth=auth, obj=obj,
                                  hint=hint) from exc
            except self.lib.PYIFError as exc:
                raise MQError(MQRC_HCONN_ERROR, f"cannot {what}: {exc}") from exc

    def _close_handle(self, handle: Any) -> None:
        with self._lock:
            if self._closed:
                return  # MQDISC closed it
            with contextlib.suppress(self.lib.MQMIError, self.lib.PYIFError):
                handle.close()

    @property
    def name(self) -> str:
        return self._name

    @property
    def in_unit_of_work(self) -> bool:
        return self._uow
