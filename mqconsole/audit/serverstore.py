"""The snapshot's file operations over Spark Connect, done on the server's side.

A Connect client has no JVM and must not need the snapshot's folder (issue 25): the
operations (read the manifest, write it or the commit marker, list, publish...) run in a
small Spark job, a Python function over one row (``mapInArrow``) whose one task does them on
an executor, which reaches the snapshot as it reaches the data it writes. The task does them
with :class:`~.store.LocalStore`: a ``file:`` path the server's executors share. Another URI
(``hdfs:``, ``s3a:``, ``viewfs:``...) is the server's Hadoop's to reach: those operations go
to mqconsole's relation plugin on the server's driver (:mod:`.storeplugin`, HadoopStore's
operations in Java), the same JSON in and the same ``(status, value)`` rows out; a server
without the plugin is said in one sentence (how to add it, or ``--master``). A staging
folder left by a killed export is known by its heartbeat (heartbeat.py): a ``file:`` one's
beats are jobs that may wait behind the export's own for an executor, so they declare the
generous :data:`~.store.QUEUED_STALE_SECONDS`; the plugin's are not (no executor).

What this costs the server (issue 26): each job about half a CPU-second, so
:meth:`ServerStore.many` does a list of operations in one job, in order, the first failure
stopping the rest (the snapshot's small files are read in one job when it is opened, the
commit's writes are one job); and the first Python of each Connect session starts that
session's Python workers (4 CPU-seconds, measured), which a Python data source would double
with its planning on the driver: hence a function, not a data source (``audit report`` and
``audit sql`` run no other Python on the server).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from .store import (
    OPERATIONS,
    QUEUED_STALE_SECONDS,
    STALE_SECONDS,
    LocalStore,
    Op,
    OutTaken,
    Store,
    scheme_of,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

SCHEMA = "status string, value string"
_URI_ARGS = ("uri", "staged", "out")


def run_op(op: str, args: dict[str, Any]) -> tuple[str, str]:
    """Do ``op`` here (on an executor): ``(status, value as JSON)``; an error the client
    raises again is a status (``taken``, ``exists``, ``oserror``), not a failed task."""
    if op not in OPERATIONS:
        return "unknown", json.dumps(op)
    try:
        return "ok", json.dumps(getattr(LocalStore(), op)(**args))
    except OutTaken as e:
        return "taken", json.dumps(str(e))
    except FileExistsError as e:
        return "exists", json.dumps(str(e))
    except OSError as e:  # e.g. a full disk: the client raises it as this process would
        return "oserror", json.dumps([e.errno, e.strerror or str(e), e.filename])


def run_ops(ops: Sequence[Op]) -> Iterator[tuple[str, str]]:
    """:func:`run_op` for each of ``ops`` in order, stopping after the first that fails."""
    for name, args in ops:
        status, value = run_op(name, args)
        yield status, value
        if status != "ok":
            return


BYTES = "$bytes"
"""How an operation's ``bytes`` argument (``write_bytes``) travels in the ops' JSON: an
object with this one key, the bytes in base64."""


def _encode(value: Any) -> Any:
    if isinstance(value, bytes | bytearray):
        import base64

        return {BYTES: base64.b64encode(value).decode("ascii")}
    raise TypeError(f"{type(value).__name__} is not an argument a store operation takes")


def _decode(value: dict[str, Any]) -> Any:
    if set(value) == {BYTES}:
        import base64

        return base64.b64decode(value[BYTES])
    return value


def ops_json(ops: Sequence[Op]) -> str:
    """``ops`` as the JSON a server's task reads (:func:`ops_from_json`)."""
    return json.dumps(list(ops), default=_encode)


def ops_from_json(text: str) -> list[Op]:
    return [(name, args) for name, args in json.loads(text, object_hook=_decode)]


def run_batches(batches: Iterator[Any]) -> Iterator[Any]:
    """The ``mapInArrow`` function: each row's ``ops`` (JSON ``[[op, args], ...]``) done by
    :func:`run_ops`, a ``(status, value)`` row each."""
    import pyarrow as pa

    for batch in batches:
        for text in batch.column(0).to_pylist():
            done = list(run_ops(ops_from_json(text)))
            yield pa.RecordBatch.from_pydict({"status": [s for s, _ in done],
                                              "value": [v for _, v in done]})


def raise_status(status: str, value: Any) -> None:
    """Raise on the client what the operation raised on the server."""
    if status == "taken":
        raise OutTaken(value)
    if status == "exists":
        raise FileExistsError(value)
    if status == "oserror":
        number, text, filename = value
        raise OSError(number, text, filename) if filename else OSError(number, text)
    raise ValueError(f"the server's mqconsole does not know the store operation {value}")


def values_of(rows: Sequence[tuple[str, str]], expected: int) -> list[Any]:
    """The operations' results from their ``(status, value)`` rows (:func:`run_ops`' or the
    plugin's): the first failure raised as the store raises it here."""
    values = []
    for status, text in rows:
        value = json.loads(text)
        if status != "ok":
            raise_status(status, value)
        values.append(value)
    if len(values) != expected:
        raise RuntimeError(f"the server did {len(values)} of {expected} store operations")
    return values


class ServerStore(Store):
    """The store of a Spark Connect session: every operation on the server's side."""

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark

    def many(self, ops: Sequence[Op]) -> list[Any]:
        """All of ``ops`` in one go, in order (see :meth:`Store.many`): ``file:`` ones in one
        Spark job on an executor; where any is another URI, all by mqconsole's plugin on
        the server's driver (:mod:`.storeplugin`), or one sentence when the server lacks
        it."""
        if not ops:
            return []
        other = next((args[key] for _name, args in ops for key in _URI_ARGS
                      if key in args and scheme_of(args[key]) != "file"), None)
        if other is None:
            rows = [(row["status"], row["value"]) for row in
                    self.spark.createDataFrame([(ops_json(ops),)], "ops string")
                    .mapInArrow(run_batches, SCHEMA).collect()]
        else:
            rows = self._by_plugin(ops, other)
        return values_of(rows, len(ops))

    def _by_plugin(self, ops: Sequence[Op], uri: str) -> list[tuple[str, str]]:
        from .storeplugin import is_missing_plugin, missing_plugin, plugin_rows

        try:
            return plugin_rows(self.spark, ops_json(ops))
        except Exception as e:
            if is_missing_plugin(e):
                raise missing_plugin(uri) from None
            raise

    def beat_bound(self, uri: str) -> float:
        """A ``file:`` heartbeat is written by a one-task job on an executor, which waits
        behind the export's own jobs under Spark's FIFO scheduler (heartbeat.py): the
        generous bound. Another URI's, by the plugin on the server's driver: no wait."""
        return QUEUED_STALE_SECONDS if scheme_of(uri) == "file" else STALE_SECONDS

    def _run(self, op: str, **args: Any) -> Any:
        return self.many([(op, args)])[0]

    def read_text(self, uri: str) -> str | None:
        return self._run("read_text", uri=uri)

    def exists(self, uri: str) -> bool:
        return bool(self._run("exists", uri=uri))

    def is_dir(self, uri: str) -> bool:
        return bool(self._run("is_dir", uri=uri))

    def write_new(self, uri: str, text: str) -> None:
        self._run("write_new", uri=uri, text=text)

    def write_bytes(self, uri: str, data: bytes) -> None:
        self._run("write_bytes", uri=uri, data=data)

    def mkdirs(self, uri: str) -> None:
        self._run("mkdirs", uri=uri)

    def remove(self, uri: str) -> None:
        self._run("remove", uri=uri)

    def children(self, uri: str) -> list[str]:
        return list(self._run("children", uri=uri))

    def sizes(self, uri: str) -> dict[str, int]:
        return dict(self._run("sizes", uri=uri))

    def age(self, uri: str) -> float | None:
        return self._run("age", uri=uri)

    def make_private(self, uri: str) -> None:
        self._run("make_private", uri=uri)

    def publish(self, staged: str, out: str, replace: bool) -> None:
        self._run("publish", staged=staged, out=out, replace=replace)


__all__ = ["ServerStore", "raise_status", "run_batches", "run_op", "run_ops", "values_of"]
