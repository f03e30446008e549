"""Which store reaches a snapshot's URI for a Spark session: the driver's own disk, Hadoop's
FileSystem in the driver's JVM, or (Spark Connect) the server's side (its executors for a
``file:`` path, mqconsole's plugin on its driver for another URI). Its own module so
that store.py (the stores) and serverstore.py (which builds on them) import one way only."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .store import HadoopStore, LocalStore, Store, scheme_of

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def store_for(spark: SparkSession, uri: str) -> Store:
    """The store that reaches ``uri`` for ``spark``'s driver."""
    from .remote import is_connect

    if is_connect(spark):
        from .serverstore import ServerStore

        return ServerStore(spark)
    if scheme_of(uri) == "file":
        return LocalStore()
    return HadoopStore(spark)


__all__ = ["store_for"]
