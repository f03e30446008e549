"""Messages into Arrow record batches of the snapshot's columns (``columns.py``).

``BatchBuilder.add(message, position)`` appends one message's values to per-column lists;
``flush()`` turns them into one ``pyarrow.RecordBatch`` and starts again, so a reader holds
one batch at a time (memory stays flat however long the queue is). Header decoding is
``mq.chain.parse_body_lenient``: a chain that does not parse leaves the header columns null
and never stops the batch. Put times become microseconds since the epoch directly (a cache
per put date), which is what Arrow stores.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from mqconsole.backends.embedded.stored import BACKOUT_COUNT_AT, StoredMessage, long_at
from mqconsole.mq.message import Message

from .columns import Column, arrow_schema
from .fields import md_fields, parse_headers
from .values import BLANKS as _BLANKS
from .values import known_reason_name, put_micros

BATCH_ROWS = 8192
_NUMPY = {pa.int64(): np.dtype(np.int64), pa.int32(): np.dtype(np.int32)}


@dataclass(frozen=True, slots=True)
class ComputedColumn:
    """A plugin's audit column as a reader runs it: ``compute(message)`` gives its value."""

    name: str
    compute: Callable[[Message], Any]


# the fixed columns each row tuple holds, in this order (qmgr, queue and source are the
# partition's, added at flush; payload and plugin columns follow when asked)
ROW_COLUMNS = ("position", "msg_id", "correl_id", "group_id", "put_time", "put_date",
               "put_appl_name", "user_id", "appl_identity_data", "put_appl_type", "msg_type",
               "feedback", "persistence", "priority", "backout_count", "ccsid", "encoding",
               "expiry", "format", "reply_to_q", "reply_to_qmgr", "dlh_reason",
               "dlh_reason_name", "dlh_dest_q", "dlh_dest_qmgr", "dlh_format",
               "dlh_put_appl_name", "dlh_put_time", "xqh_remote_q", "xqh_remote_qmgr",
               "properties", "length", "payload_length", "payload_sha256")
_NO_DLH = (None,) * 7
_NO_XQH = (None, None)
_HEX_BLANK24 = "0" * 48
_B = _BLANKS


def _hex(raw: bytes) -> str:
    return _HEX_BLANK24 if raw == b"\x00" * 24 else raw.hex().upper()


def row_values(message: Message, position: int) -> tuple[tuple, bytes]:
    """One message's fixed columns (in ``ROW_COLUMNS`` order) and its payload."""
    f = md_fields(message)
    body = message.body
    if not isinstance(body, bytes):
        body = bytes(body)
    fmt = f.format.strip(_B)
    h = parse_headers(fmt, f.encoding, f.ccsid, body, message)
    dlh = h.dlh
    dlh_values: tuple[Any, ...]
    if dlh is None:
        dlh_values = _NO_DLH
    else:
        dlh_values = (dlh.reason, known_reason_name(dlh.reason), dlh.dest_q.rstrip(_B),
                      dlh.dest_qmgr.rstrip(_B), dlh.format.strip(_B),
                      dlh.put_appl_name.rstrip(_B), put_micros(dlh.put_date, dlh.put_time)[0])
    xqh = h.xqh
    xqh_values = _NO_XQH if xqh is None else (xqh[0].rstrip(_B), xqh[1].rstrip(_B))
    micros, days = put_micros(f.put_date, f.put_time)
    payload = h.payload
    payload_length: int | None
    sha: str | None
    if h.parsed:
        payload_length, sha = len(payload), hashlib.sha256(payload).hexdigest()
    else:  # where the payload starts cannot be known
        payload_length = sha = None
    return ((position, _hex(f.msg_id), _hex(f.correl_id), _hex(f.group_id), micros, days,
             f.put_appl_name.rstrip(_B), f.user_identifier.rstrip(_B),
             f.appl_identity_data.rstrip(_B), f.put_appl_type, f.msg_type, f.feedback,
             f.persistence, f.priority, f.backout_count, f.ccsid, f.encoding, f.expiry, fmt,
             f.reply_to_q.rstrip(_B), f.reply_to_qmgr.rstrip(_B), *dlh_values, *xqh_values,
             h.properties, len(body), payload_length, sha),
            payload)


def _array(values, kind: pa.DataType) -> pa.Array:
    """``values`` as an Arrow array of ``kind``; a value that is not of it (a plugin column's
    wrong answer) becomes null instead of failing the batch."""
    try:
        return pa.array(values, type=kind)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError, ValueError):
        out = []
        for v in values:
            try:
                out.append(pa.scalar(v, type=kind))
            except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError, ValueError):
                out.append(pa.scalar(None, type=kind))
        return pa.array(out, type=kind)


def _slow(messages: Sequence[Message], positions: Sequence[int] | np.ndarray
          ) -> tuple[list, list[bytes]]:
    rows = [row_values(m, p) for m, p in zip(messages, positions, strict=True)]
    if not rows:
        return [()] * len(ROW_COLUMNS), []
    return list(zip(*(r[0] for r in rows), strict=True)), [r[1] for r in rows]


def fixed_columns(messages: Sequence[Message], positions: Sequence[int], schema: pa.Schema,
                  *, columnar_: bool = True) -> tuple[list, list[bytes]]:
    """The fixed columns of ``messages`` but qmgr, queue and source (``ROW_COLUMNS`` order;
    each an Arrow array or a list) and their payloads (when ``schema`` has them). The plain
    messages (``columnar.decode_messages``) are made at once, the others row by row, and the two are
    put back in the messages' order: one odd message costs only its own row."""
    from . import columnar

    fast = columnar.decode_messages(messages) if columnar_ and messages else None
    return merged(len(messages), fast, positions, schema, lambda at: [messages[i] for i in at])


def packed_fixed_columns(blobs: Sequence[bytes], bodies: Sequence[bytes],
                         positions: Sequence[int] | np.ndarray, schema: pa.Schema
                         ) -> tuple[list, list[bytes]]:
    """``fixed_columns`` of rows read packed (``backends.base.BrowsesPacked``: each MD as
    stored, its BackoutCount and Expiry patched in, and the body): no message object but
    for the rows that are not plain (``columnar.decode_packed``)."""
    from . import columnar

    def slow(at: list[int]) -> list[Message]:
        return [StoredMessage(blobs[i], bodies[i], long_at(blobs[i], BACKOUT_COUNT_AT))
                for i in at]

    fast = columnar.decode_packed(blobs, bodies) if len(blobs) else None
    return merged(len(blobs), fast, positions, schema, slow)


def merged(n: int, fast, positions: Sequence[int] | np.ndarray, schema: pa.Schema,
           messages_of: Callable[[list[int]], list[Message]]) -> tuple[list, list[bytes]]:
    """The plain rows (``fast``: a ``columnar.Decoded``, or None: none) made at once, the
    others row by row from ``messages_of`` (row numbers → messages), merged in the rows'
    order; the payloads only when ``schema`` has them."""
    want = "payload" in schema.names
    if fast is None or fast.columns is None:
        values, payloads = _slow(messages_of(list(range(n))), positions)
        return values, payloads if want else []
    by_name = fast.columns
    fast_payloads = fast.payloads() if want else []
    if fast.mask.all():
        return [positions, *(by_name[c] for c in ROW_COLUMNS[1:])], fast_payloads
    fast_at = np.flatnonzero(fast.mask)
    slow_at = np.flatnonzero(~fast.mask).tolist()
    slow_values, slow_payloads = _slow(messages_of(slow_at), [positions[i] for i in slow_at])
    # row i of the batch is row order[i] of (the fast rows, then the slow rows)
    order = np.empty(n, dtype=np.int64)
    order[fast_at] = np.arange(len(fast_at))
    order[slow_at] = np.arange(len(slow_at)) + len(fast_at)
    take = pa.array(order)
    kinds = {f.name: f.type for f in schema}
    out: list = [positions]
    for name, slow in zip(ROW_COLUMNS[1:], slow_values[1:], strict=True):
        kind = kinds[name]
        head = by_name[name]
        head = head if isinstance(head, pa.Array) else _array(head, kind)
        if head.type != kind:
            head = head.cast(kind)
        out.append(pa.concat_arrays([head, _array(list(slow), kind)]).take(take))
    if not want:
        return out, []
    both = [*fast_payloads, *slow_payloads]
    return out, [both[i] for i in order.tolist()]


def packed_batch(schema: pa.Schema, qmgr: str, queue: str, source: str,
                 blobs: Sequence[bytes], bodies: Sequence[bytes], first: int
                 ) -> pa.RecordBatch:
    """One batch of ``schema`` (no plugin columns) of rows read packed
    (``packed_fixed_columns``), numbered from ``first``."""
    n = len(blobs)
    positions = np.arange(first, first + n, dtype=np.int64)
    columns, payloads = packed_fixed_columns(blobs, bodies, positions, schema)
    return assemble(schema, n, qmgr, queue, source, columns, payloads, [], 0)


class BatchBuilder:
    """Collects rows for one partition (one queue or file) and gives Arrow batches.

    ``call(column, message)`` runs a plugin column (the reader passes one that runs it as
    its plugin and turns a failure into null).
    """

    def __init__(self, columns: Sequence[Column], *, qmgr: str, queue: str, source: str,
                 computed: Sequence[ComputedColumn] = (),
                 call: Callable[[ComputedColumn, Message], Any] | None = None,
                 columnar: bool = True) -> None:
        self.schema = arrow_schema(columns)
        names = [c.name for c in columns]
        self.with_payload = "payload" in names
        self.computed = list(computed)
        extra = ["payload"] if self.with_payload else []
        extra += [c.name for c in self.computed]
        expected = ["qmgr", "queue", *ROW_COLUMNS[:1], "source", *ROW_COLUMNS[1:], *extra]
        if names != expected:
            raise ValueError(f"columns {names} are not the snapshot's")
        self.call = call or (lambda column, message: column.compute(message))
        self.qmgr, self.queue, self.source = qmgr, queue, source
        self.columnar = columnar  # False: always row by row (tests compare the two)
        self._messages: list[Message] = []
        self._positions: list[int] = []
        self._computed: list[tuple] = []

    @property
    def rows(self) -> int:
        return len(self._messages)

    def add(self, message: Message, position: int) -> None:
        self._messages.append(message)
        self._positions.append(position)
        if self.computed:
            self._computed.append(tuple(self.call(c, message) for c in self.computed))

    def _fixed(self) -> tuple[list, list[bytes]]:
        """The fixed columns but qmgr, queue and source (``ROW_COLUMNS`` order) and the
        payloads: the plain messages at once (``columnar``), the others row by row."""
        return fixed_columns(self._messages, self._positions, self.schema,
                             columnar_=self.columnar)

    def flush(self) -> pa.RecordBatch:
        """The rows added since the last flush as one batch (possibly empty)."""
        n = len(self._messages)
        columns, payloads = self._fixed()
        batch = assemble(self.schema, n, self.qmgr, self.queue, self.source, columns,
                         payloads, self._computed, len(self.computed))
        self._messages, self._positions, self._computed = [], [], []
        return batch


def assemble(schema: pa.Schema, n: int, qmgr, queue, source, columns: list,
             payloads: list[bytes], computed: list[tuple], n_computed: int) -> pa.RecordBatch:
    """One batch of ``schema`` from its parts (each an Arrow array, a numpy array or a list
    of ``n``; qmgr, queue and source may be one string for all): qmgr, queue and source,
    the fixed columns (``fixed_columns``), the payloads (kept when the schema has them)
    and the plugin columns' values per row."""
    from .columnar import from_numpy, repeated

    with_payload = "payload" in schema.names
    extra: list = [payloads] if with_payload else []
    if n_computed:
        extra += list(zip(*computed, strict=True)) if n else [()] * n_computed
    values = [qmgr, queue, columns[0], source, *columns[1:], *extra]
    arrays = []
    for v, f in zip(values, schema, strict=True):
        if isinstance(v, pa.ChunkedArray):
            v = v.combine_chunks()
        if isinstance(v, str):
            v = repeated(v, n)
        elif isinstance(v, np.ndarray) and v.dtype == _NUMPY.get(f.type):
            v = from_numpy(v, f.type)
        if not isinstance(v, pa.Array):
            v = _array(v, f.type)
        elif v.type != f.type:
            v = v.cast(f.type)
        arrays.append(v)
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


__all__ = ["BATCH_ROWS", "ROW_COLUMNS", "BatchBuilder", "ComputedColumn", "assemble",
           "fixed_columns", "known_reason_name", "packed_batch", "packed_fixed_columns",
           "put_micros", "row_values"]
