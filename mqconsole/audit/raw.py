"""Raw rows: what a reader yields when the decoding is done elsewhere (issue 25 item 4).

A queue of real MQ can only be browsed forward, by one task; taking each message's headers
apart is most of an export's Python time. So the reader yields *raw* rows — where the
message was read, its position, its MQMD packed as the embedded queue manager stores it
(CCSID 819, ``MQMD.pack(ccsid=819)``) and its body — and the export decodes them after a
repartition, across every core of the cluster (``decoder``: ``mapInArrow``). A message of
the embedded queue manager gives its packed MD as stored; any other message (real MQ, a
saved file) is packed here. A descriptor whose text is not latin-1 (packing would lose it)
travels pickled in ``message`` instead, so nothing differs from decoding in the reader.

``decode_batch`` makes the snapshot's columns of a raw batch: the plain messages at once,
the others row by row (``rows.merged``), plugin columns as their plugin.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from mqconsole.backends.embedded.stored import BACKOUT_COUNT_AT, StoredMessage, long_at
from mqconsole.mq.message import Message

from .columnar import packed_as_stored
from .columns import Column, arrow_schema
from .rows import ComputedColumn, assemble, merged

RAW_COLUMNS: tuple[tuple[str, pa.DataType, str], ...] = (
    ("qmgr", pa.string(), "string"),
    ("queue", pa.string(), "string"),
    ("position", pa.int64(), "bigint"),
    ("source", pa.string(), "string"),
    ("md", pa.binary(), "binary"),  # null: the message is in ``message``
    ("backout_count", pa.int32(), "int"),
    ("expiry", pa.int32(), "int"),  # null: the MD's own
    ("body", pa.binary(), "binary"),
    ("message", pa.binary(), "binary"),  # a pickled Message whose MD does not pack losslessly
)
RAW_SCHEMA = pa.schema([pa.field(name, kind) for name, kind, _ in RAW_COLUMNS])
RAW_DDL = ", ".join(f"`{name}` {ddl}" for name, _, ddl in RAW_COLUMNS)
RAW_BATCH_BYTES = 64 << 20  # a raw batch is flushed at these many body bytes too


def raw_values(message: Message) -> tuple[bytes | None, int | None, int | None, bytes,
                                          bytes | None]:
    """``(md, backout_count, expiry, body, pickled)`` of one message (see the module)."""
    body = message.body if isinstance(message.body, bytes) else bytes(message.body)
    packed = packed_as_stored(message)
    if packed is None:
        return None, None, None, body, pickle.dumps(message)
    return packed[0], packed[1], packed[2], body, None


class RawBatchBuilder:
    """Collects raw rows of one partition (one queue, stretch or piece of a file)."""

    def __init__(self, *, qmgr: str, queue: str, source: str) -> None:
        self.qmgr, self.queue, self.source = qmgr, queue, source
        self._positions: list[int] = []
        self._values: list[tuple] = []
        self.bytes = 0

    @property
    def rows(self) -> int:
        return len(self._values)

    def add(self, message: Message, position: int) -> None:
        values = raw_values(message)
        self._values.append(values)
        self._positions.append(position)
        self.bytes += len(values[3])

    def add_packed(self, md: bytes, body: bytes, position: int) -> None:
        """A message already packed (a saved file's ``DmpReader.packed``)."""
        self._values.append((md, long_at(md, BACKOUT_COUNT_AT), None, body, None))
        self._positions.append(position)
        self.bytes += len(body)

    def flush(self) -> pa.RecordBatch:
        from .columnar import binaries, from_numpy, int32s, repeated

        n = len(self._values)
        columns = list(zip(*self._values, strict=True)) if n else [()] * 5
        md, backouts, expiries, bodies, pickled = columns
        arrays = [repeated(self.qmgr, n), repeated(self.queue, n),
                  from_numpy(np.array(self._positions, dtype=np.int64), pa.int64()),
                  repeated(self.source, n), binaries(md), int32s(backouts), int32s(expiries),
                  binaries(bodies), binaries(pickled)]
        self._values, self._positions, self.bytes = [], [], 0
        return pa.RecordBatch.from_arrays(arrays, schema=RAW_SCHEMA)


def messages_of(raw: pa.RecordBatch) -> list[Message]:
    """The messages of a raw batch (a stored message per packed MD: decoded lazily)."""
    out: list[Message] = []
    for md, backout, expiry, body, pickled in zip(
            *(raw.column(name).to_pylist() for name in
              ("md", "backout_count", "expiry", "body", "message")), strict=True):
        if md is None:
            out.append(pickle.loads(pickled))
        else:
            out.append(StoredMessage(md, body, backout, expiry))
    return out


def decode_batch(raw: pa.RecordBatch, columns: Sequence[Column], *,
                 computed: Sequence[ComputedColumn] = (),
                 call: Callable[[ComputedColumn, Message], Any] | None = None,
                 columnar: bool = True) -> pa.RecordBatch:
    """The snapshot's rows (``columns``) of a raw batch, in its order: the plain rows from
    its columns at once (``columnar.decode_arrow``: no message object), the others (and
    every row when plugin columns ask for the messages) as messages, row by row."""
    from .columnar import decode_arrow

    schema = arrow_schema(columns)
    n = raw.num_rows
    positions = raw.column("position").to_numpy(zero_copy_only=False)
    fast = decode_arrow(raw.column("md"), raw.column("body"), raw.column("backout_count"),
                        raw.column("expiry")) if columnar and n else None
    messages = messages_of(raw) if computed else None

    def some(at: list[int]) -> list[Message]:
        if messages is not None:
            return [messages[i] for i in at]
        if len(at) == n:
            return messages_of(raw)
        return messages_of(raw.take(pa.array(at, pa.int64())))

    fixed, payloads = merged(n, fast, positions, schema, some)
    run = call or (lambda column, message: column.compute(message))
    computed_rows = [tuple(run(c, m) for c in computed) for m in messages or ()]
    return assemble(schema, n, raw.column("qmgr"), raw.column("queue"),
                    raw.column("source"), fixed, payloads, computed_rows, len(computed))


def decoder(columns: Sequence[Column], computed: Sequence[ComputedColumn],
            make_call: Callable[[], Callable[[ComputedColumn, Message], Any] | None]
            ) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The function ``mapInArrow`` runs on every task: raw batches → snapshot batches."""
    columns, computed = list(columns), list(computed)

    def decode(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        call = make_call()
        for raw in batches:
            yield decode_batch(raw, columns, computed=computed, call=call)

    return decode


__all__ = ["RAW_BATCH_BYTES", "RAW_COLUMNS", "RAW_DDL", "RAW_SCHEMA", "RawBatchBuilder",
           "decode_batch", "decoder", "messages_of", "raw_values"]
