"""Browse cursors of the embedded queue manager (MQOPEN browse+input, BROWSE_FIRST/NEXT).

A cursor remembers the ``(npri, id)`` of the last row it passed and asks for the rows
after it (keyset pagination, never an offset), so every page costs the same on a queue of
a million messages. Each page is read in a fresh snapshot: messages committed since show
up if they sort after the cursor, as in MQ. While the connection holds its unit of work's
write transaction, nothing else can change the queue, so the cursor reads ``READ_AHEAD``
rows at once and serves ``next()`` from them until the connection takes or discards
another message or the transaction ends. ``get_current`` takes exactly the row last
browsed, by its row id, so duplicate MsgIds never take the wrong message.
"""

from __future__ import annotations

import math
import sqlite3
import time
from collections import deque
from typing import TYPE_CHECKING

from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD, MQMD_V1_LENGTH, MQMD_V2_LENGTH
from mqconsole.mq.message import Message
from mqconsole.mq.reasons import (
    MQRC_CONTEXT_HANDLE_ERROR,
    MQRC_CONTEXT_NOT_AVAILABLE,
    MQRC_HOBJ_ERROR,
    MQRC_NO_MSG_UNDER_CURSOR,
    MQRC_NOT_OPEN_FOR_INPUT,
)

from ..base import Context
from .auth import QUEUE
from .browsing import movable
from .calls import cursor_call, cursor_keeping_moves
from .store import sqlite_error
from .stored import (
    BACKOUT_COUNT_AT,
    EXPIRY_AT,
    StoredMessage,
    message_from_row,
    moved_messages,
    token_of,
)

if TYPE_CHECKING:
    from .finding import Finding

READ_AHEAD = 64  # rows a cursor reads at once while its connection holds the write lock
# A read-ahead is dropped when the transaction ends (a commit every N messages of a move),
# so a cursor sizes it to what it served in its last transaction, within these bounds:
# reading a fixed 64 rows would read 129 rows for 100 messages moved per commit.
READ_AHEAD_MIN = 16
READ_AHEAD_MAX = 512
# A stored MD that a put of the message as browsed would store again byte for byte
# (move_current_to): BackoutCount 0 (the count is kept in its own column) and Expiry -1.
_MD_SIZES = (MQMD_V1_LENGTH, MQMD_V2_LENGTH)
_UNLIMITED = b"\xff\xff\xff\xff"
_ZERO = b"\x00\x00\x00\x00"
_GONE = "the browsed message is no longer on {queue!r} (another consumer took it, or it expired)"


class EmbeddedCursor:
    """One browse handle. Use it from the thread that owns the connection, or any: calls
    are serialised with the connection's own."""

    def __init__(self, qm: Finding, queue: str, objects: list[str],
                 handle: int, *, for_get: bool = True) -> None:
        self.queue = queue
        self._for_get = for_get  # opened for input too (get_current, move_current_to)
        self._qm = qm
        self._objects = objects  # the opened object, then the local queue behind an alias
        self._local = objects[-1]
        self._handle = handle
        self._after: tuple[int, int] | None = None  # (npri, id) of the last row passed
        self._current: tuple | None = None  # the row of the message under the cursor
        self._current_key: tuple[int, int] | None = None  # (tx_gen, takes) when it was read
        self._browsed: Message | None = None  # the message made of self._current
        # the MD of the message last got through this cursor, for a pass-all put (as a
        # handle opened MQOO_SAVE_ALL_CONTEXT saves it); None after a browse
        self._saved: Message | None = None
        self._closed = False
        self._ahead: deque[tuple] = deque()  # rows read ahead, after self._after
        self._ahead_key: tuple[int, int] | None = None  # (tx_gen, takes) they are valid for
        self._ahead_end = False  # the read ahead reached the end of the queue
        self._served = 0  # rows served from the read-ahead under the current key
        self._run = READ_AHEAD  # rows served in the last run of a read-ahead (the size)
        self._until: tuple[int, int] | None = None  # (npri, id) of the last row to serve

    def limit_to(self, after: list[int] | None, until: list[int] | None) -> None:
        """Browse only the rows after ``(npri, id)`` ``after`` up to ``until`` (None: the
        queue's start, its end): a stretch of ``browse_ranges``, before the first read."""
        self._after = None if after is None else (after[0], after[1])
        self._until = None if until is None else (until[0], until[1])

    def _check(self) -> None:
        if self._closed:
            raise MQError(MQRC_HOBJ_ERROR, f"the browse cursor on {self.queue!r} is closed")

    @cursor_call
    def next(self) -> Message | None:
        qm = self._qm
        self._check()
        s = qm._s
        ahead = self._ahead
        if ahead and s.held and self._ahead_key == (s.tx_gen, s.takes):
            # The common case of a move: the next row is read ahead already, in this
            # transaction, so the get-inhibited check passed in it too (a change of
            # the queue's attributes ends the transaction).
            row = ahead[0]
            expires_at = row[3]
            if expires_at is None:
                ahead.popleft()
                self._served += 1
                self._after = (row[1], row[0])
                self._current = row
                self._current_key = self._ahead_key
                self._saved = None  # a browse: no context to pass (2098)
                msg = self._browsed = StoredMessage(row[4], row[5], row[2],
                                                    token=token_of(row[0]))
                return msg
        batch = self.next_batch(1)
        return batch[0] if batch else None

    @cursor_call
    def next_batch(self, n: int) -> list[Message]:
        if n <= 0:
            return []
        now = time.time()
        rows = self._next_rows(n, now)
        out: list[Message] = [message_from_row(row[4], row[5], row[2], row[3], now, row[0])
                              for row in rows]
        if out:
            self._saved = None  # a browse: no context to pass (2098)
            self._browsed = out[-1]
        return out

    @cursor_call
    def next_packed(self, n: int) -> list[tuple[bytes, bytes]]:
        """Up to ``n`` next messages as ``(packed MD, body)`` (``backends.base.BrowsesPacked``):
        the MD as stored, with the BackoutCount and the Expiry left patched in where they
        are not what was put, so it unpacks to what ``next_batch`` gives."""
        if n <= 0:
            return []
        now = time.time()
        rows = self._next_rows(n, now)
        if rows:
            self._saved = None  # a browse: no context to pass (2098)
            self._browsed = None  # no message object was made of the current row
        return [(row[4] if row[2] == 0 and row[3] is None else _patched(row, now), row[5])
                for row in rows]

    def _next_rows(self, n: int, now: float) -> list[tuple]:
        """The rows of the next ``n`` messages (``_MSG_COLS``): what ``next_batch`` and
        ``next_packed`` read, expired ones discarded; the last becomes the current one."""
        qm = self._qm
        self._check()
        qm._check_get_inhibited(self._objects)
        s = qm._s
        # While this connection holds the write transaction nothing but itself can
        # change the queue, so rows read ahead stay right until it takes or discards
        # a message (other than the one under this cursor) or the transaction ends.
        key = (s.tx_gen, s.takes) if s.held else None
        ahead = self._ahead
        if key is None or key != self._ahead_key:
            ahead.clear()
            self._ahead_end = False
            if self._served:  # a run of read-ahead ended: size the next one by it
                self._run = min(max(self._served, READ_AHEAD_MIN), READ_AHEAD_MAX)
                self._served = 0
        out: list[tuple] = []
        expired: list[int] = []
        while len(out) < n:
            if not ahead:
                if self._ahead_end:
                    break
                want = n - len(out)
                fetch = max(want, self._run) if key is not None else want
                rows = qm._browse_rows(self._local, self._after, fetch)
                full = len(rows) == fetch
                until = self._until
                if until is not None and rows and (rows[-1][1], rows[-1][0]) > until:
                    rows = [r for r in rows if (r[1], r[0]) <= until]
                    full = False
                ahead.extend(rows)
                self._ahead_end = not full
                if not ahead:
                    break
            row = ahead.popleft()
            expires_at = row[3]
            self._after = (row[1], row[0])
            if expires_at is not None and expires_at <= now:
                expired.append(row[0])  # MQ discards what a browse finds expired
                continue
            out.append(row)
        if key is not None:
            self._served += len(out)
        if key is None:
            ahead.clear()  # nothing read ahead outside a held transaction
            self._ahead_end = False
        if expired:
            qm._discard_expired(expired, now)
        self._ahead_key = (s.tx_gen, s.takes) if s.held else None
        if out:
            self._current = out[-1]
            self._current_key = key  # read in this transaction (None: outside one)
        return out

    # -- finding one message (backends.base.FindsMessages) ----------------------------------
    @cursor_call
    def browse_token(self, token: bytes) -> Message | None:
        """BROWSE_FIRST with MQMO_MATCH_MSG_TOKEN: the message whose token is ``token``
        (its row id), now under the cursor; None when it left (or expired: discarded)."""
        self._check()
        row_id = int.from_bytes(token, "big")
        if len(token) != 16 or row_id >= 2**63:  # no row has it (SQLite's ids are 64-bit)
            return None
        row = self._qm._row_by_id(self._local, row_id)
        return self._land(row)

    @cursor_call
    def browse_msg_id(self, msg_id: bytes, first: bool) -> Message | None:
        """BROWSE_FIRST (``first``) or BROWSE_NEXT with MQMO_MATCH_MSG_ID: the next message
        carrying ``msg_id`` after the cursor, through the MsgId index, now under the
        cursor; None when there is none."""
        self._check()
        after = None if first else self._after
        while True:
            row = self._qm._row_by_msg_id(self._local, msg_id, after)
            if row is None:
                return None
            msg = self._land(row)
            if msg is not None:
                return msg
            after = (row[1], row[0])  # it had expired (discarded): the next one

    @cursor_call
    def position_of_current(self) -> int | None:
        """Where the message under the cursor is in a browse of the whole queue now (an
        index count in SQLite); None when no message is under the cursor."""
        self._check()
        row = self._current
        if row is None:
            return None
        return self._qm._position_of(self._local, (row[1], row[0]), time.time())

    def _land(self, row: tuple | None) -> Message | None:
        """The cursor put on ``row`` (``_MSG_COLS``), as a browse that stopped there
        leaves it: the next ``next()`` reads on after it. An expired row is discarded."""
        if row is None:
            return None
        qm = self._qm
        qm._check_get_inhibited(self._objects)
        now = time.time()
        if row[3] is not None and row[3] <= now:
            qm._discard_expired([row[0]], now)  # MQ discards what a browse finds expired
            return None
        s = qm._s
        self._ahead.clear()
        self._ahead_end = False
        self._ahead_key = None
        self._after = (row[1], row[0])
        self._current = row
        self._current_key = (s.tx_gen, s.takes) if s.held else None
        self._saved = None  # a browse: no context to pass (2098)
        msg = self._browsed = message_from_row(row[4], row[5], row[2], row[3], now, row[0])
        return msg

    @cursor_call
    def get_current(self, *, syncpoint: bool = True) -> Message:
        self._check()
        msg = self._take_current(syncpoint, True)
        assert isinstance(msg, Message)
        self._saved = msg  # its MD is unpacked only if a put passes it
        return msg

    def saved_context(self) -> MQMD:
        """The context a pass-all put takes from this cursor (``put(pass_from=...)``): the
        MD of the message last got through it. IBM, MQRC_CONTEXT_NOT_AVAILABLE (2098):
        none when no message was got yet or the last MQGET was a browse; a cursor opened
        for browsing only saves none (MQRC_CONTEXT_HANDLE_ERROR, 2097)."""
        if not self._for_get:
            raise MQError(MQRC_CONTEXT_HANDLE_ERROR, f"the cursor on {self.queue!r} was "
                          "opened for browsing only: it saves no context to pass")
        if self._saved is None:
            raise MQError(MQRC_CONTEXT_NOT_AVAILABLE, f"no message was got through the "
                          f"cursor on {self.queue!r} since its last browse: no context "
                          "to pass")
        return self._saved.md

    def _take_current(self, syncpoint: bool, want: bool) -> Message | bool:
        """``get_current`` inside the call's guard; ``want=False``: True, not the message."""
        qm = self._qm
        if not self._for_get:
            raise MQError(MQRC_NOT_OPEN_FOR_INPUT,
                          f"the browse cursor on {self.queue!r} was opened for browsing only")
        qm._require(qm._auth_records(), "get", QUEUE, self.queue)
        if self._current is None:
            raise MQError(MQRC_NO_MSG_UNDER_CURSOR,
                          f"no message under the browse cursor on {self.queue!r}")
        row, self._current = self._current, None
        s = qm._s
        now_key = (s.tx_gen, s.takes) if s.held else None
        unchanged = now_key is not None and self._current_key == now_key
        ahead_valid = now_key is not None and self._ahead_key == now_key
        msg = qm._take_under_cursor(self._objects, row, unchanged, syncpoint, want)
        if ahead_valid and s.held and msg is not None:
            self._ahead_key = (s.tx_gen, s.takes)  # it took a row already passed
        if msg is None:
            raise MQError(MQRC_NO_MSG_UNDER_CURSOR, _GONE.format(queue=self.queue))
        return msg

    @cursor_call
    def move_current_to(self, queue: str, message: Message,
                        context: Context = Context.SET_ALL, qmgr_name: str = "",
                        as_browsed: bool = False) -> MQError | None:
        """The step of a move in one call (``backends.base.MovesUnderCursor``):
        ``qm.put(queue, message, context=context, syncpoint=True, qmgr_name=qmgr_name)``
        on this cursor's connection, then
        ``get_current(syncpoint=True)``, in that order, under one hold of the lock.

        The put's failure is raised exactly as ``put`` raises it: nothing was got and the
        message stays under the cursor. A failure of the get after the put went through
        is returned, not raised (the put stays in the unit of work, as after the two
        calls), so the caller can tell the two apart; None when both went through. The
        message got is the row browsed, taken by its row id, so it is not returned.

        ``as_browsed``: the caller says ``message`` is the very one this cursor's last
        ``next`` returned, not changed since. A set-all put of it then stores the MD as
        it is stored already (the same bytes) instead of packing it again."""
        qm = self._qm
        self._check()
        if not self._for_get:
            raise MQError(MQRC_NOT_OPEN_FOR_INPUT,
                          f"the browse cursor on {self.queue!r} was opened for browsing only")
        packed = None
        row = self._current
        if as_browsed and row is not None and message is self._browsed and row[3] is None:
            blob = row[4]
            if (len(blob) in _MD_SIZES and blob[BACKOUT_COUNT_AT:BACKOUT_COUNT_AT + 4] == _ZERO
                    and blob[EXPIRY_AT:EXPIRY_AT + 4] == _UNLIMITED):
                packed = blob
                s = qm._s
                key = (s.tx_gen, s.takes)
                if (context is Context.SET_ALL and not qmgr_name and s.held
                        and self._current_key == key):
                    # browsed in this transaction, nothing taken since: one pass
                    taken = qm._move_browsed(self._objects, row, queue)
                    if taken is not None:
                        self._current = None
                        if taken is True:
                            if self._ahead_key == key:
                                self._ahead_key = (s.tx_gen, s.takes)  # a row passed
                            return None
                        if taken is False:
                            return MQError(MQRC_NO_MSG_UNDER_CURSOR, _GONE.format(
                                queue=self.queue))
                        return taken  # the get failed
        qm._put(queue, message, context, True, qmgr_name, False, packed)
        try:
            self._take_current(True, False)
        except MQError as e:
            return e
        except sqlite3.Error as exc:  # what the guard does, for the get alone
            qm._s.rolled_back()
            return sqlite_error(exc, qm.location, qm._busy)
        return None

    @cursor_keeping_moves
    def move_next(self, queue: str, n: int) -> list[Message]:
        """Up to ``n`` steps of a move in one call (``backends.base.MovesManyUnderCursor``):
        the rows read ahead in this transaction (reading on as needed), while each is
        ``browsing.movable`` and ``_move_room`` allows, moved by ``_move_rows`` in one pass.
        ``[]`` until a move step of this transaction has resolved ``queue`` (the first
        message of each unit of work is moved by ``move_current_to``, which checks)."""
        qm = self._qm
        self._check()
        if not self._for_get:
            raise MQError(MQRC_NOT_OPEN_FOR_INPUT,
                          f"the browse cursor on {self.queue!r} was opened for browsing only")
        s = qm._s
        if n <= 0 or not s.held:
            return []
        room, max_length = qm._move_room(self._objects, queue)
        n = min(n, room)
        if n <= 0:
            return []
        ahead = self._ahead
        key = (s.tx_gen, s.takes)
        if self._ahead_key != key:  # read outside this transaction: read again
            ahead.clear()
            self._ahead_end = False
            self._ahead_key = key
        rows: list[tuple] = []
        while len(rows) < n:
            if not ahead:
                if self._ahead_end:
                    break
                after = (rows[-1][1], rows[-1][0]) if rows else self._after
                fetch = max(n - len(rows), self._run)
                more = qm._browse_rows(self._local, after, fetch)
                ahead.extend(more)
                self._ahead_end = len(more) < fetch
                if not ahead:
                    break
            if not movable(ahead[0], max_length):
                break
            rows.append(ahead.popleft())
        if not rows:
            return []
        try:
            qm._move_rows(self._objects, rows, queue)
        except BaseException:
            ahead.clear()  # the transaction was rolled back: read again from self._after
            self._ahead_end = False
            self._ahead_key = None
            raise
        last = rows[-1]
        self._after = (last[1], last[0])
        self._current = self._browsed = None
        self._served += len(rows)
        self._ahead_key = (s.tx_gen, s.takes)
        return moved_messages(rows)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        qm = self._qm
        if qm._closed:
            return  # the connection's close removed its handles
        with qm._guard():
            qm._close_handle(self._handle)

    def __enter__(self) -> EmbeddedCursor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<EmbeddedCursor {self.queue!r} {'closed' if self._closed else 'open'}>"


def _patched(row: tuple, now: float) -> bytes:
    """A row's stored MD with its BackoutCount and its Expiry left (tenths of a second, as
    ``message_from_row`` gives it) written in, in the MD's byte order."""
    md = bytearray(row[4])
    order = "little" if md[4] else "big"
    md[BACKOUT_COUNT_AT:BACKOUT_COUNT_AT + 4] = row[2].to_bytes(4, order, signed=True)
    if row[3] is not None:
        left = max(1, math.ceil((row[3] - now) * 10))
        md[EXPIRY_AT:EXPIRY_AT + 4] = min(left, 2**31 - 1).to_bytes(4, order, signed=True)
    return bytes(md)
