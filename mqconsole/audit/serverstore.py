"""The snapshot's file operations over Spark Connect, done on the server's side.

A Connect client has no JVM and must not need the snapshot's folder (issue 25): each
operation (read the manifest, write it or the commit marker, list, publish...) is a small
Spark job of the ``mqconsole_store`` Python data source, whose one task does it on an
executor, which reaches the snapshot as it reaches the data it writes. The task does it
with :class:`~.store.LocalStore`, so over Connect a snapshot is a ``file:`` path the server's
executors share; another URI is refused in one sentence (use ``--master`` there: the
driver's Hadoop reaches it). A staging folder left by a killed export is known by its age.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

from .errors import AuditInputError
from .store import LocalStore, OutTaken, Store, display, scheme_of

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

NAME = "mqconsole_store"
SCHEMA = "status string, value string"


def run_op(op: str, args: dict[str, Any]) -> tuple[str, str]:
    """Do ``op`` here (on an executor): ``(status, value as JSON)``."""
    store = LocalStore()
    try:
        if op == "read_text":
            return "ok", json.dumps(store.read_text(args["uri"]))
        if op == "exists":
            return "ok", json.dumps(store.exists(args["uri"]))
        if op == "is_dir":
            return "ok", json.dumps(store.is_dir(args["uri"]))
        if op == "write_new":
            store.write_new(args["uri"], args["text"])
            return "ok", "null"
        if op == "mkdirs":
            store.mkdirs(args["uri"])
            return "ok", "null"
        if op == "remove":
            store.remove(args["uri"])
            return "ok", "null"
        if op == "children":
            return "ok", json.dumps(store.children(args["uri"]))
        if op == "age":
            return "ok", json.dumps(store.age(args["uri"]))
        if op == "make_private":
            store.make_private(args["uri"])
            return "ok", "null"
        if op == "publish":
            store.publish(args["staged"], args["out"], bool(args["replace"]))
            return "ok", "null"
    except OutTaken as e:
        return "taken", json.dumps(str(e))
    except FileExistsError as e:
        return "exists", json.dumps(str(e))
    return "unknown", json.dumps(op)


class _Reader(DataSourceReader):
    def __init__(self, options: dict[str, str]) -> None:
        self.options = options

    def partitions(self) -> list[InputPartition]:
        return [InputPartition(0)]

    def read(self, partition: InputPartition) -> Iterator[tuple[str, str]]:
        yield run_op(self.options["op"], json.loads(self.options["args"]))


class StoreOpSource(DataSource):
    """``spark.read.format("mqconsole_store").option("op", ...).option("args", JSON)``."""

    @classmethod
    def name(cls) -> str:
        return NAME

    def schema(self) -> str:
        return SCHEMA

    def reader(self, schema: Any) -> DataSourceReader:
        return _Reader(dict(self.options))


class ServerStore(Store):
    """The store of a Spark Connect session: every operation on the server's side."""

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark
        spark.dataSource.register(StoreOpSource)

    def _run(self, op: str, **args: Any) -> Any:
        for key in ("uri", "staged", "out"):
            if key in args and scheme_of(args[key]) != "file":
                raise AuditInputError(
                    f"{display(args[key])}: over Spark Connect, mqconsole reaches a snapshot "
                    "on a file: path the server's executors share; for another file system "
                    "run with --master (the driver's Hadoop reaches it)")
        row = (self.spark.read.format(NAME).option("op", op)
               .option("args", json.dumps(args)).load().collect()[0])
        value = json.loads(row["value"])
        if row["status"] == "taken":
            raise OutTaken(value)
        if row["status"] == "exists":
            raise FileExistsError(value)
        return value

    def read_text(self, uri: str) -> str | None:
        return self._run("read_text", uri=uri)

    def exists(self, uri: str) -> bool:
        return bool(self._run("exists", uri=uri))

    def is_dir(self, uri: str) -> bool:
        return bool(self._run("is_dir", uri=uri))

    def write_new(self, uri: str, text: str) -> None:
        self._run("write_new", uri=uri, text=text)

    def mkdirs(self, uri: str) -> None:
        self._run("mkdirs", uri=uri)

    def remove(self, uri: str) -> None:
        self._run("remove", uri=uri)

    def children(self, uri: str) -> list[str]:
        return list(self._run("children", uri=uri))

    def age(self, uri: str) -> float | None:
        return self._run("age", uri=uri)

    def make_private(self, uri: str) -> None:
        self._run("make_private", uri=uri)

    def publish(self, staged: str, out: str, replace: bool) -> None:
        self._run("publish", staged=staged, out=out, replace=replace)


__all__ = ["NAME", "ServerStore", "StoreOpSource", "run_op"]
